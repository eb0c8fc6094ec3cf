// All SQL of the transcript: a project's segments.
import type { Db } from '../../../db/index';
import type { TermRuleHit } from '../../glossaries/check';

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

const COLS = `id, project_id, start_sec, end_sec, speaker, src_text, dst_text, status, words, speed_factor, overflow_sec, audio_hash, keep_original, term_hits, asr_confidence`;

export function segmentsOf(db: Db, projectId: string, ids?: string[] | null): Promise<SegmentRow[]> {
  if (ids && ids.length > 0) {
    return db.query<SegmentRow>(
      `SELECT ${COLS} FROM segments WHERE project_id = $1 AND id::text IN (SELECT jsonb_array_elements_text($2::jsonb))
       ORDER BY start_sec, end_sec, created_at, id`,
      [projectId, ids],
    );
  }
  return db.query<SegmentRow>(
    `SELECT ${COLS} FROM segments WHERE project_id = $1 ORDER BY start_sec, end_sec, created_at, id`,
    [projectId],
  );
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

export async function insertSegments(db: Db, projectId: string, segs: NewSegment[]): Promise<SegmentRow[]> {
  const out: SegmentRow[] = [];
  // Chunks of rows per statement keep parameter counts small.
  for (let i = 0; i < segs.length; i += 200) {
    const chunk = segs.slice(i, i + 200);
    const params: unknown[] = [projectId];
    const values = chunk.map((s) => {
      const conf = typeof s.asr_confidence === 'number' && Number.isFinite(s.asr_confidence) ? s.asr_confidence : null;
      params.push(s.start, s.end, s.speaker, s.src, s.dst, s.status, s.words ? JSON.stringify(s.words) : null, conf);
      const b = params.length - 8;
      return `($1, $${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7}::jsonb, $${b + 8}::float8)`;
    });
    const rows = await db.query<SegmentRow>(
      `INSERT INTO segments (project_id, start_sec, end_sec, speaker, src_text, dst_text, status, words, asr_confidence)
       VALUES ${values.join(', ')} RETURNING ${COLS}`,
      params as never[],
    );
    out.push(...rows);
  }
  return out;
}

export async function deleteAllSegments(db: Db, projectId: string): Promise<void> {
  await db.query(`DELETE FROM segments WHERE project_id = $1`, [projectId]);
}

export async function deleteSegments(db: Db, projectId: string, ids: string[]): Promise<number> {
  const rows = await db.query(
    `DELETE FROM segments WHERE project_id = $1 AND id::text IN (SELECT jsonb_array_elements_text($2::jsonb)) RETURNING id`,
    [projectId, ids],
  );
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
  if (keys.length === 0) return db.maybeOne<SegmentRow>(`SELECT ${COLS} FROM segments WHERE project_id = $1 AND id = $2`, [projectId, id]);
  const sets = keys.map((k, i) => `${k} = $${i + 3}`);
  return db.maybeOne<SegmentRow>(
    `UPDATE segments SET ${sets.join(', ')}, updated_at = now() WHERE project_id = $1 AND id = $2 RETURNING ${COLS}`,
    [projectId, id, ...keys.map((k) => patch[k] as never)],
  );
}

export async function setSegmentsStatus(db: Db, projectId: string, from: SegmentStatus[] | null, to: SegmentStatus): Promise<void> {
  if (from) {
    await db.query(
      `UPDATE segments SET status = $3 WHERE project_id = $1 AND status IN (SELECT jsonb_array_elements_text($2::jsonb))`,
      [projectId, from, to],
    );
  } else {
    await db.query(`UPDATE segments SET status = $2 WHERE project_id = $1`, [projectId, to]);
  }
}

export async function countChangedSegments(db: Db, projectIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (projectIds.length === 0) return out;
  const rows = await db.query<{ project_id: string; n: number }>(
    `SELECT project_id, count(*)::int AS n FROM segments
     WHERE project_id::text IN (SELECT jsonb_array_elements_text($1::jsonb)) AND status = 'updated' GROUP BY project_id`,
    [projectIds],
  );
  for (const r of rows) out.set(r.project_id, Number(r.n));
  return out;
}

export async function copySegments(db: Db, fromId: string, toId: string, dstLangText: 'empty' | 'keep'): Promise<void> {
  await db.query(
    `INSERT INTO segments (project_id, start_sec, end_sec, speaker, src_text, dst_text, status, words, asr_confidence, created_at)
     SELECT $2, start_sec, end_sec, speaker, src_text, CASE WHEN $3 = 'keep' THEN dst_text ELSE '' END, 'processing', words,
       asr_confidence, created_at
     FROM segments WHERE project_id = $1`,
    [fromId, toId, dstLangText],
  );
}

/** Sets the speaker of many segments at once. */
export async function setSegmentSpeakers(db: Db, projectId: string, rows: Array<{ id: string; speaker: string }>): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `UPDATE segments s SET speaker = x.speaker, updated_at = now()
     FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, speaker text)
     WHERE s.project_id = $1 AND s.id = x.id`,
    [projectId, rows],
  );
}

/** Sets the translated text (and status) of many segments at once. */
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
  if (rows.length === 0) return;
  await db.query(
    `UPDATE segments s SET dst_text = x.dst, status = $3, glossary_check = x.glossary_check, term_hits = x.term_hits, updated_at = now()
     FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, dst text, glossary_check jsonb, term_hits jsonb)
     WHERE s.project_id = $1 AND s.id = x.id`,
    [projectId, rows.map((r) => ({ id: r.id, dst: r.dst, glossary_check: r.glossaryCheck ?? null, term_hits: r.termHits ?? null })), status],
  );
}

/** Records the voiceover result of many segments at once. */
export async function setSegmentFits(
  db: Db,
  projectId: string,
  rows: Array<{ id: string; speed_factor: number; overflow_sec: number; audio_hash: string; status: SegmentStatus }>,
): Promise<void> {
  if (rows.length === 0) return;
  await db.query(
    `UPDATE segments s SET speed_factor = x.speed_factor, overflow_sec = x.overflow_sec, audio_hash = x.audio_hash,
       status = x.status, updated_at = now()
     FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, speed_factor float8, overflow_sec float8, audio_hash text, status text)
     WHERE s.project_id = $1 AND s.id = x.id`,
    [projectId, rows],
  );
}

/** Segments kept in the original audio after a voiceover: not voiced, so no speed factor, overflow or clip. */
export async function clearSegmentFits(db: Db, projectId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.query(
    `UPDATE segments SET speed_factor = NULL, overflow_sec = NULL, audio_hash = NULL, status = 'done', updated_at = now()
     WHERE project_id = $1 AND id::text IN (SELECT jsonb_array_elements_text($2::jsonb))`,
    [projectId, ids],
  );
}

/** A speaker's voice changed: its voiced segments must be synthesised again. */
export async function markSpeakerSegmentsUpdated(db: Db, projectId: string, speaker: string): Promise<void> {
  await db.query(`UPDATE segments SET status = 'updated' WHERE project_id = $1 AND speaker = $2 AND status = 'done'`, [projectId, speaker]);
}
