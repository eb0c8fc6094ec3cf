// All SQL of the transcript: a project's segments.
import type { Db } from '../../../db/index';
import type { JsonValue, Segments } from '../../../db/schema';
import type { Selectable } from 'kysely';
import { all, first, json, q, run, sql } from '../../../db/sql';
import type { TermRuleHit } from '../../glossaries/check';
import { nextTurn } from '../../../turn';

export type SegmentStatus = 'done' | 'error' | 'processing' | 'updated';

export interface SegmentRow {
  id: string;
  project_id: string;
  start_sec: number;
  end_sec: number;
  speaker: string;
  src_text: string;
  dst_text: string;
  status: SegmentStatus;
  words: Array<{ text: string; start: number; end: number; confidence?: number }> | null;
  speed_factor: number | null;
  overflow_sec: number | null;
  audio_hash: string | null;
  /** Kept in the original audio: not dubbed, the source plays over its span (migration 026). */
  keep_original: boolean;
  /** Which dictionary rule fired where at the last translation (null: none recorded; migration 025). */
  term_hits?: TermRuleHit[] | null;
  /** How sure the recognizer was of the segment, 0..1 (null: no score, or the text was uploaded or typed). */
  asr_confidence: number | null;
}

const COLS = [
  'id',
  'project_id',
  'start_sec',
  'end_sec',
  'speaker',
  'src_text',
  'dst_text',
  'status',
  'words',
  'speed_factor',
  'overflow_sec',
  'audio_hash',
  'keep_original',
  'term_hits',
  'asr_confidence',
] as const;
type Selected = Pick<Selectable<Segments>, (typeof COLS)[number]>;

/** A segment as read: its jsonb columns in their domain shape (the database knows them as any JSON), its status as its union. */
function segmentOf(r: Selected): SegmentRow {
  return { ...r, status: r.status as SegmentStatus, words: r.words as SegmentRow['words'], term_hits: r.term_hits as SegmentRow['term_hits'] };
}
const segmentOrNull = (r: Selected | null) => (r ? segmentOf(r) : null);

/** `column::text` is one of `values` (given as one jsonb array parameter, however many there are). */
function textIn(column: 'id' | 'project_id' | 'status', values: readonly string[]) {
  return sql<boolean>`${sql.ref(column)}::text IN (SELECT jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
}

/** Segments per statement of a whole transcript's read. */
const READ_PAGE = 500;
/** Paged reads of a whole transcript tried before one statement reads it (a write came between two pages each time). */
const READ_ATTEMPTS = 3;

/**
 * The project's segments in order (start, end, creation, id), or only those of `ids`.
 * The whole transcript is read in pages of READ_PAGE with the event loop's turn between two (the embedded database
 * runs a statement on the server's thread: 10,000 segments in one statement held every request ~0.15-0.25 s). The
 * pages are one version of the transcript: its revision (migration 014, moved on by every write to its segments) is
 * the same before and after them, or the read starts again; after READ_ATTEMPTS, one statement reads it all.
 */
export async function segmentsOf(db: Db, projectId: string, ids?: string[] | null): Promise<SegmentRow[]> {
  const ordered = (query: ReturnType<typeof segmentsQuery>) => query.orderBy('start_sec').orderBy('end_sec').orderBy('created_at').orderBy('id');
  if (ids && ids.length > 0) return (await all(db, ordered(segmentsQuery(projectId).where(textIn('id', ids))))).map(segmentOf);
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    const before = await transcriptRev(db, projectId);
    const rows: SegmentRow[] = [];
    let after: PageKey | null = null;
    for (;;) {
      let query = segmentsQuery(projectId);
      if (after) {
        const k = after;
        // the first comparison lets the index on (project_id, start_sec) start where the page does
        query = query
          .where('start_sec', '>=', k.start_sec)
          .where(sql<boolean>`(start_sec, end_sec, created_at, id) > (${k.start_sec}::float8, ${k.end_sec}::float8, ${k.created_at}::timestamptz, ${k.id}::uuid)`);
      }
      const page = await all(db, ordered(query).select(sql<string>`created_at::text`.as('created_key')).limit(READ_PAGE));
      for (const { created_key: _c, ...r } of page) rows.push(segmentOf(r));
      if (page.length < READ_PAGE) break;
      const last = page[page.length - 1]!;
      after = { start_sec: last.start_sec, end_sec: last.end_sec, created_at: last.created_key, id: last.id };
      await nextTurn();
    }
    if (rows.length <= READ_PAGE || (await transcriptRev(db, projectId)) === before) return rows;
  }
  return (await all(db, ordered(segmentsQuery(projectId)))).map(segmentOf);
}

function segmentsQuery(projectId: string) {
  return q.selectFrom('segments').select(COLS).where('project_id', '=', projectId);
}

/** Where the previous page of a read ended: its last row's ordering key (created_at as its text: microseconds kept). */
interface PageKey {
  start_sec: number;
  end_sec: number;
  created_at: string;
  id: string;
}

/** The project's transcript revision (null before its first segment). */
async function transcriptRev(db: Db, projectId: string): Promise<string | null> {
  const r = await first(db, q.selectFrom('transcript_revs').select(sql<string>`rev::text`.as('rev')).where('project_id', '=', projectId));
  return r?.rev ?? null;
}

export interface NewSegment {
  start: number;
  end: number;
  speaker: string;
  src: string;
  dst: string;
  status: SegmentStatus;
  words?: Array<{ text: string; start: number; end: number; confidence?: number }> | null;
  asr_confidence?: number | null;
}

/** A segment's times and speaker: what the overlap check reads. */
export interface TimedRow {
  id: string;
  start_sec: number;
  end_sec: number;
  speaker: string;
}

/**
 * The times and speakers of the project's segments that overlap any of `spans` (touching included): the only ones
 * an edit of those spans can collide with. An edit reads these instead of the whole transcript (thousands of rows
 * with their words, read on the server's thread by the embedded database).
 */
export async function segmentsNear(db: Db, projectId: string, spans: ReadonlyArray<{ start: number; end: number }>): Promise<TimedRow[]> {
  if (spans.length === 0) return [];
  return all(
    db,
    q
      .selectFrom('segments')
      .select(['id', 'start_sec', 'end_sec', 'speaker'])
      .where('project_id', '=', projectId)
      .where((eb) => eb.or(spans.map((x) => eb.and([eb('start_sec', '<=', x.end), eb('end_sec', '>=', x.start)]))))
      .orderBy('start_sec')
      .orderBy('id'),
  );
}

/** Segments per INSERT statement. */
const INSERT_CHUNK = 25;

export async function insertSegments(db: Db, projectId: string, segs: NewSegment[]): Promise<SegmentRow[]> {
  const out: SegmentRow[] = [];
  // Chunks of rows per statement keep parameter counts small; between two, the event loop gets its turn (the
  // embedded database runs a statement on it: an hour's transcript in one go held every request ~0.5 s).
  for (let i = 0; i < segs.length; i += INSERT_CHUNK) {
    if (i > 0) await nextTurn();
    const chunk = segs.slice(i, i + INSERT_CHUNK);
    const rows = await all(
      db,
      q
        .insertInto('segments')
        .values(
          chunk.map((s) => ({
            project_id: projectId,
            start_sec: s.start,
            end_sec: s.end,
            speaker: s.speaker,
            src_text: s.src,
            dst_text: s.dst,
            status: s.status,
            words: s.words ? json(s.words) : null,
            asr_confidence: typeof s.asr_confidence === 'number' && Number.isFinite(s.asr_confidence) ? sql<number>`${s.asr_confidence}::float8` : null,
          })),
        )
        .returning(COLS),
    );
    out.push(...rows.map(segmentOf));
  }
  return out;
}

export async function deleteAllSegments(db: Db, projectId: string): Promise<void> {
  await run(db, q.deleteFrom('segments').where('project_id', '=', projectId));
}

export async function deleteSegments(db: Db, projectId: string, ids: string[]): Promise<number> {
  const rows = await all(db, q.deleteFrom('segments').where('project_id', '=', projectId).where(textIn('id', ids)).returning('id'));
  return rows.length;
}

export interface SegmentPatch {
  start_sec?: number;
  end_sec?: number;
  speaker?: string;
  src_text?: string;
  dst_text?: string;
  status?: SegmentStatus;
  speed_factor?: number | null;
  overflow_sec?: number | null;
  audio_hash?: string | null;
  keep_original?: boolean;
}

export async function updateSegment(db: Db, projectId: string, id: string, patch: SegmentPatch): Promise<SegmentRow | null> {
  const keys = Object.keys(patch) as Array<keyof SegmentPatch>;
  if (keys.length === 0) return first(db, q.selectFrom('segments').select(COLS).where('project_id', '=', projectId).where('id', '=', id)).then(segmentOrNull);
  // a key given as undefined is written as null, as ever (the builder would leave it out)
  const set = Object.fromEntries(keys.map((k) => [k, patch[k] ?? null])) as SegmentPatch;
  return first(
    db,
    q
      .updateTable('segments')
      .set({ ...set, updated_at: sql`now()` })
      .where('project_id', '=', projectId)
      .where('id', '=', id)
      .returning(COLS),
  ).then(segmentOrNull);
}

export async function setSegmentsStatus(db: Db, projectId: string, from: SegmentStatus[] | null, to: SegmentStatus): Promise<void> {
  let query = q.updateTable('segments').set({ status: to }).where('project_id', '=', projectId);
  if (from) query = query.where(textIn('status', from));
  await run(db, query);
}

export async function countChangedSegments(db: Db, projectIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (projectIds.length === 0) return out;
  const rows = await all(
    db,
    q
      .selectFrom('segments')
      .select(['project_id', (eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')])
      .where(textIn('project_id', projectIds))
      .where('status', '=', 'updated')
      .groupBy('project_id'),
  );
  for (const r of rows) out.set(r.project_id, Number(r.n));
  return out;
}

/**
 * Copies a project's segments into another (a new language of it), WRITE_SLICE per statement in one transaction with
 * the event loop's turn between two (10,000 segments in one statement held every request ~0.2 s).
 */
export async function copySegments(db: Db, fromId: string, toId: string, dstLangText: 'empty' | 'keep'): Promise<void> {
  const ids = (await all(db, q.selectFrom('segments').select('id').where('project_id', '=', fromId).orderBy('start_sec').orderBy('end_sec').orderBy('created_at').orderBy('id'))).map((r) => r.id);
  await inSlices(db, ids, (t, slice) => copySegmentSlice(t, fromId, toId, dstLangText, slice));
}

async function copySegmentSlice(db: Db, fromId: string, toId: string, dstLangText: 'empty' | 'keep', ids: readonly string[]): Promise<void> {
  await run(
    db,
    q
      .insertInto('segments')
      .columns(['project_id', 'start_sec', 'end_sec', 'speaker', 'src_text', 'dst_text', 'status', 'words', 'asr_confidence', 'created_at'])
      .expression(
        q
          .selectFrom('segments')
          .select([
            sql<string>`${toId}::uuid`.as('project_id'),
            'start_sec',
            'end_sec',
            'speaker',
            'src_text',
            sql<string>`CASE WHEN ${dstLangText}::text = 'keep' THEN dst_text ELSE '' END`.as('dst_text'),
            sql<string>`'processing'`.as('status'),
            'words',
            'asr_confidence',
            'created_at',
          ])
          .where('project_id', '=', fromId)
          .where(textIn('id', ids)),
      ),
  );
}

/** Segments per statement of a write to many segments. */
const WRITE_SLICE = 250;

/**
 * Writes `rows` a slice of WRITE_SLICE per statement, all in one transaction (the caller's, or a new one), with the
 * event loop's turn between two statements: the embedded database runs a statement on the server's thread, and
 * 10,000 segments in one statement held every request 0.2-0.3 s.
 */
async function inSlices<R>(db: Db, rows: readonly R[], write: (t: Db, slice: readonly R[]) => Promise<void>): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length <= WRITE_SLICE) return write(db, rows);
  await db.tx(async (t) => {
    for (let i = 0; i < rows.length; i += WRITE_SLICE) {
      if (i > 0) await nextTurn();
      await write(t, rows.slice(i, i + WRITE_SLICE));
    }
  });
}

/** Sets the speaker of many segments at once (one transaction). */
export async function setSegmentSpeakers(db: Db, projectId: string, rows: Array<{ id: string; speaker: string }>): Promise<void> {
  await inSlices(db, rows, (t, slice) =>
    run(
      t,
      q
        .updateTable('segments as s')
        .from(sql<{ id: string; speaker: string }>`jsonb_to_recordset(${JSON.stringify(slice)}::jsonb)`.as<'x'>(sql`x(id uuid, speaker text)`))
        .set({ speaker: sql.ref('x.speaker'), updated_at: sql`now()` })
        .where('s.project_id', '=', projectId)
        .whereRef('s.id', '=', sql.ref('x.id')),
    ),
  );
}

/** Sets the translated text (and status) of many segments at once (one transaction). */
export async function setSegmentTranslations(
  db: Db,
  projectId: string,
  rows: Array<{
    id: string;
    dst: string;
    /** dictionary terms expected and found (glossaries/check.ts) */
    glossaryCheck?: object | null;
    /** which dictionary rule fired where (glossaries/check.ts termRuleHits) */
    termHits?: object[] | null;
  }>,
  status: SegmentStatus,
): Promise<void> {
  const given = rows.map((r) => ({ id: r.id, dst: r.dst, glossary_check: r.glossaryCheck ?? null, term_hits: r.termHits ?? null }));
  await inSlices(db, given, (t, slice) =>
    run(
      t,
      q
        .updateTable('segments as s')
        .from(
          sql<{ id: string; dst: string; glossary_check: JsonValue; term_hits: JsonValue }>`jsonb_to_recordset(${JSON.stringify(slice)}::jsonb)`.as<'x'>(
            sql`x(id uuid, dst text, glossary_check jsonb, term_hits jsonb)`,
          ),
        )
        .set({ dst_text: sql.ref('x.dst'), status, glossary_check: sql.ref('x.glossary_check'), term_hits: sql.ref('x.term_hits'), updated_at: sql`now()` })
        .where('s.project_id', '=', projectId)
        .whereRef('s.id', '=', sql.ref('x.id')),
    ),
  );
}

/** Records the voiceover result of many segments at once (one transaction). */
export async function setSegmentFits(
  db: Db,
  projectId: string,
  rows: Array<{ id: string; speed_factor: number; overflow_sec: number; audio_hash: string; status: SegmentStatus }>,
): Promise<void> {
  await inSlices(db, rows, (t, slice) =>
    run(
      t,
      q
        .updateTable('segments as s')
        .from(
          sql<{ id: string; speed_factor: number; overflow_sec: number; audio_hash: string; status: string }>`jsonb_to_recordset(${JSON.stringify(slice)}::jsonb)`.as<'x'>(
            sql`x(id uuid, speed_factor float8, overflow_sec float8, audio_hash text, status text)`,
          ),
        )
        .set({
          speed_factor: sql.ref('x.speed_factor'),
          overflow_sec: sql.ref('x.overflow_sec'),
          audio_hash: sql.ref('x.audio_hash'),
          status: sql.ref('x.status'),
          updated_at: sql`now()`,
        })
        .where('s.project_id', '=', projectId)
        .whereRef('s.id', '=', sql.ref('x.id')),
    ),
  );
}

/** Segments kept in the original audio after a voiceover: not voiced, so no speed factor, overflow or clip. */
export async function clearSegmentFits(db: Db, projectId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await run(
    db,
    q
      .updateTable('segments')
      .set({ speed_factor: null, overflow_sec: null, audio_hash: null, status: 'done', updated_at: sql`now()` })
      .where('project_id', '=', projectId)
      .where(textIn('id', ids)),
  );
}

/** A speaker's voice changed: its voiced segments must be synthesised again. */
export async function markSpeakerSegmentsUpdated(db: Db, projectId: string, speaker: string): Promise<void> {
  await run(db, q.updateTable('segments').set({ status: 'updated' }).where('project_id', '=', projectId).where('speaker', '=', speaker).where('status', '=', 'done'));
}

/** The start of the segment of the project that starts next after `seg` (by start, then end), other than itself. */
export async function nextSegmentStart(db: Db, projectId: string, seg: { id: string; start_sec: number; end_sec: number }): Promise<number | null> {
  const next = await first(
    db,
    q
      .selectFrom('segments')
      .select('start_sec')
      .where('project_id', '=', projectId)
      .where('id', '<>', seg.id)
      .where((eb) => eb.or([eb('start_sec', '>', seg.start_sec), eb.and([eb('start_sec', '=', seg.start_sec), eb('end_sec', '>', seg.end_sec)])]))
      .orderBy('start_sec')
      .orderBy('end_sec')
      .limit(1),
  );
  return next ? Number(next.start_sec) : null;
}
