// The Dictionary's rules: a glossary belongs to one Teamspace and every member may read and edit it; terms are
// unique in a dictionary (see entryProblems); CSV import keeps the good rows and reports the bad ones by line.
// Plan gate (Business and above): server/app/gates.ts.
import type * as v from 'valibot';
import {
  entryProblems, sameTerm, glossaryTooLarge, GLOSSARY_MAX_ENTRIES,
  type CreateGlossaryRequest, type UpdateGlossaryRequest, type Glossary, type GlossaryEntry, type GlossaryImportResult,
} from '../../../contract/schemas/glossary';
import type { AppDeps } from '../../deps';
import { spaceAccess, isUuid } from '../spaces/guard';
import type { UserRow } from '../../caller';
import { DomainError, notFound, unprocessable } from '../../errors';
import * as repo from './repository';
import { glossaryCsv } from './csv';
import { parseCsvInThread } from './parse';
import { nextTurn } from '../../turn';

type Deps = Pick<AppDeps, 'db'>;
type CreateBody = v.InferOutput<typeof CreateGlossaryRequest>;
type UpdateBody = v.InferOutput<typeof UpdateGlossaryRequest>;

export const GLOSSARY_NOT_FOUND = 'Dictionary not found';

const iso = (d: Date | string) => new Date(d).toISOString();

function shape(g: repo.GlossaryRecord, withEntries: boolean): Glossary {
  return {
    id: g.id,
    glossary_id: g.id,
    space_id: g.space_id,
    name: g.name,
    source_lang: g.src_lang,
    target_lang: g.dst_lang,
    entries_count: g.entries_count,
    ...(withEntries ? { entries: (g.terms ?? []).map(normalise) } : {}),
    created_at: iso(g.created_at),
    updated_at: iso(g.updated_at),
  };
}

/** Entries written before the Dictionary had flags ({source, target} only) read with the defaults. */
function normalise(e: Partial<GlossaryEntry> & { source: string }): GlossaryEntry {
  return {
    source: e.source,
    target: e.target ?? '',
    do_not_translate: e.do_not_translate ?? false,
    case_sensitive: e.case_sensitive ?? false,
    pronunciation: e.pronunciation ?? null,
  };
}

function checkEntries(entries: GlossaryEntry[]): void {
  const problems = entryProblems(entries);
  if (problems.length) throw unprocessable(problems.map((p) => ({ loc: ['body', 'entries', p.index, p.field], msg: p.msg, type: 'value_error' })));
}

/** The glossary, once the caller's access to its space is checked (unknown id -> 404, other space -> 403). */
async function accessible(deps: Deps, user: UserRow, id: string, o: { forUpdate?: boolean } = {}): Promise<repo.GlossaryRecord> {
  if (!isUuid(id)) throw notFound(GLOSSARY_NOT_FOUND);
  const g = await repo.findGlossaryRecord(deps.db, id, o);
  if (!g) throw notFound(GLOSSARY_NOT_FOUND);
  await spaceAccess(deps.db, user, g.space_id);
  return g;
}

export async function listGlossaries(deps: Deps, user: UserRow, spaceId: string, f: { src?: string | null; dst?: string | null }): Promise<Glossary[]> {
  const space = await spaceAccess(deps.db, user, spaceId);
  return (await repo.listGlossaries(deps.db, space.id, f)).map((g) => shape(g, false));
}

export async function getGlossary(deps: Deps, user: UserRow, id: string): Promise<Glossary> {
  return shape(await accessible(deps, user, id), true);
}

export async function createGlossary(deps: Deps, user: UserRow, spaceId: string, body: CreateBody): Promise<Glossary> {
  const space = await spaceAccess(deps.db, user, spaceId);
  checkEntries(body.entries);
  const g = await repo.insertGlossary(deps.db, {
    spaceId: space.id, userId: user.id, name: body.name, src: body.source_lang, dst: body.target_lang, entries: body.entries,
  });
  return shape(g, true);
}

export async function updateGlossary(deps: Deps, user: UserRow, id: string, body: UpdateBody): Promise<Glossary> {
  await accessible(deps, user, id);
  if (body.entries) checkEntries(body.entries);
  return shape(await repo.updateGlossary(deps.db, id, { name: body.name, entries: body.entries }), true);
}

export async function deleteGlossary(deps: Deps, user: UserRow, id: string): Promise<{ glossary_id: string; status: 'deleted' }> {
  await accessible(deps, user, id);
  await repo.deleteGlossary(deps.db, id);
  return { glossary_id: id, status: 'deleted' };
}

/** The key two entries share when they may be the same term (sameTerm decides within a key). */
const termKey = (e: Pick<GlossaryEntry, 'source'>) => e.source.trim().replace(/\s+/g, ' ').toLowerCase();

const tooLarge = (n: number) => unprocessable([{ loc: ['body', 'file'], msg: glossaryTooLarge(n), type: 'too_long' }]);

const SLICE = 5_000;

/**
 * Merges a CSV file into the dictionary: a row whose term is already there replaces that entry, other rows are
 * added; refused rows (and rows repeating an earlier row of the file) are reported by line, the rest is kept.
 * The file is parsed in a worker thread; the merge is linear (terms looked up by key) and yields between slices.
 * A file, or a result, of more than GLOSSARY_MAX_ENTRIES terms is refused whole (422).
 */
export async function importGlossaryCsv(deps: Deps, user: UserRow, id: string, bytes: Uint8Array): Promise<GlossaryImportResult> {
  await accessible(deps, user, id);
  const parsed = await parseCsvInThread(bytes, GLOSSARY_MAX_ENTRIES);
  if ('fileError' in parsed) throw new DomainError('unsupported_media', parsed.fileError);
  const { rows, errors } = parsed;
  if (parsed.tooMany) throw tooLarge(rows.length);
  if (rows.length === 0 && errors.length === 0) throw new DomainError('bad_request', 'The file has no terms');
  return deps.db.tx(async (db) => {
    const g = await accessible({ db }, user, id, { forUpdate: true });
    const entries = (g.terms ?? []).map(normalise);
    const byKey = new Map<string, number[]>();
    const index = (e: GlossaryEntry, i: number) => {
      const k = termKey(e);
      const at = byKey.get(k);
      if (at) at.push(i);
      else byKey.set(k, [i]);
    };
    for (let i = 0; i < entries.length; i++) {
      index(entries[i], i);
      if (i % SLICE === SLICE - 1) await nextTurn();
    }
    const fromFile = new Map<string, GlossaryEntry[]>();
    let added = 0;
    let updated = 0;
    for (let n = 0; n < rows.length; n++) {
      if (n % SLICE === SLICE - 1) await nextTurn();
      const r = rows[n];
      const k = termKey(r.entry);
      const seen = fromFile.get(k);
      if (seen?.some((e) => sameTerm(e, r.entry))) {
        errors.push({ line: r.line, msg: `The term "${r.entry.source}" appears earlier in the file` });
        continue;
      }
      if (seen) seen.push(r.entry);
      else fromFile.set(k, [r.entry]);
      const i = (byKey.get(k) ?? []).find((j) => sameTerm(entries[j], r.entry));
      if (i !== undefined) {
        entries[i] = r.entry;
        updated++;
      } else {
        index(r.entry, entries.length);
        entries.push(r.entry);
        added++;
      }
    }
    if (entries.length > GLOSSARY_MAX_ENTRIES) throw tooLarge(entries.length);
    errors.sort((a, b) => a.line - b.line);
    const saved = added + updated > 0 ? await repo.updateGlossary(db, id, { entries }) : g;
    return { added, updated, errors, glossary: shape(saved, true) };
  });
}

export async function exportGlossaryCsv(deps: Deps, user: UserRow, id: string): Promise<{ name: string; csv: string }> {
  const g = await accessible(deps, user, id);
  return { name: g.name, csv: glossaryCsv((g.terms ?? []).map(normalise)) };
}
