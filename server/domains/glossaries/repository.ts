// All SQL of the Dictionary (glossaries table; entries live in its `terms` jsonb column).
import type { GlossaryEntry } from '../../../contract/schemas/glossary';
import type { Db } from '../../db/index';
import type { Json } from '../../db/schema';
import { all, first, json, one, q, run, sql } from '../../db/sql';

export interface GlossaryRecord {
  id: string;
  space_id: string;
  name: string;
  src_lang: string;
  dst_lang: string;
  terms: GlossaryEntry[];
  entries_count: number;
  created_at: Date | string;
  updated_at: Date | string;
}

// The entries are the domain's shape of the jsonb list (checked on the way in by the contract).
const COLS = [
  'id',
  'space_id',
  'name',
  'src_lang',
  'dst_lang',
  sql<GlossaryEntry[]>`terms`.as('terms'),
  sql<number>`jsonb_array_length(terms)::int`.as('entries_count'),
  'created_at',
  'updated_at',
] as const;
const COLS_WITHOUT_TERMS = [
  'id',
  'space_id',
  'name',
  'src_lang',
  'dst_lang',
  sql<GlossaryEntry[]>`'[]'::jsonb`.as('terms'),
  sql<number>`jsonb_array_length(terms)::int`.as('entries_count'),
  'created_at',
  'updated_at',
] as const;

export function findGlossaryRecord(db: Db, id: string, o: { forUpdate?: boolean } = {}): Promise<GlossaryRecord | null> {
  const query = q.selectFrom('glossaries').select(COLS).where('id', '=', id);
  return first(db, o.forUpdate ? query.forUpdate() : query);
}

/** The space a glossary belongs to (plan gates), or null. */
export async function glossarySpaceId(db: Db, id: string): Promise<string | null> {
  const r = await first(db, q.selectFrom('glossaries').select('space_id').where('id', '=', id));
  return r?.space_id ?? null;
}

/** The dictionaries of a space, newest first; languages compared on their base code when given. */
export function listGlossaries(db: Db, spaceId: string, f: { src?: string | null; dst?: string | null }): Promise<GlossaryRecord[]> {
  const src = f.src ?? null;
  const dst = f.dst ?? null;
  return all(
    db,
    q
      .selectFrom('glossaries')
      .select(COLS_WITHOUT_TERMS)
      .where('space_id', '=', spaceId)
      .where(sql<boolean>`(${src}::text IS NULL OR split_part(src_lang, '-', 1) = split_part(${src}::text, '-', 1))`)
      .where(sql<boolean>`(${dst}::text IS NULL OR split_part(dst_lang, '-', 1) = split_part(${dst}::text, '-', 1))`)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc'),
  );
}

export function insertGlossary(
  db: Db,
  g: { spaceId: string; userId: string; name: string; src: string; dst: string; entries: GlossaryEntry[] },
): Promise<GlossaryRecord> {
  return one(
    db,
    q
      .insertInto('glossaries')
      .values({ space_id: g.spaceId, created_by: g.userId, name: g.name, src_lang: g.src, dst_lang: g.dst, terms: json(g.entries) })
      .returning(COLS),
  );
}

export async function updateGlossary(db: Db, id: string, f: { name?: string; entries?: GlossaryEntry[] }): Promise<GlossaryRecord> {
  // New entries are not read back: parsing a large list out of the database again (on the event loop with the
  // embedded database) cost as much as writing it.
  const query = q
    .updateTable('glossaries')
    .set({
      name: (e) => e.fn.coalesce(sql<string>`${f.name ?? null}`, e.ref('name')),
      terms: (e) => e.fn.coalesce(sql<Json>`${f.entries ? JSON.stringify(f.entries) : null}::jsonb`, e.ref('terms')),
      updated_at: sql`now()`,
    })
    .where('id', '=', id);
  const row = await one(db, f.entries ? query.returning(COLS_WITHOUT_TERMS) : query.returning(COLS));
  return f.entries ? { ...row, terms: f.entries } : row;
}

export async function deleteGlossary(db: Db, id: string): Promise<void> {
  await run(db, q.deleteFrom('glossaries').where('id', '=', id));
}
