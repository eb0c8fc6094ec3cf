// All SQL of the Dictionary (glossaries table; entries live in its `terms` jsonb column).
import type { GlossaryEntry } from '../../../contract/schemas/glossary';
import type { Db } from '../../db/index';

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

const COLS = `id, space_id, name, src_lang, dst_lang, terms, jsonb_array_length(terms)::int AS entries_count, created_at, updated_at`;
const COLS_WITHOUT_TERMS = `id, space_id, name, src_lang, dst_lang, '[]'::jsonb AS terms, jsonb_array_length(terms)::int AS entries_count, created_at, updated_at`;

export function findGlossaryRecord(db: Db, id: string, o: { forUpdate?: boolean } = {}): Promise<GlossaryRecord | null> {
  return db.maybeOne<GlossaryRecord>(`SELECT ${COLS} FROM glossaries WHERE id = $1${o.forUpdate ? ' FOR UPDATE' : ''}`, [id]);
}

/** The space a glossary belongs to (plan gates), or null. */
export async function glossarySpaceId(db: Db, id: string): Promise<string | null> {
  const r = await db.maybeOne<{ space_id: string }>(`SELECT space_id FROM glossaries WHERE id = $1`, [id]);
  return r?.space_id ?? null;
}

/** The dictionaries of a space, newest first; languages compared on their base code when given. */
export function listGlossaries(db: Db, spaceId: string, f: { src?: string | null; dst?: string | null }): Promise<GlossaryRecord[]> {
  return db.query<GlossaryRecord>(
    `SELECT id, space_id, name, src_lang, dst_lang, '[]'::jsonb AS terms, jsonb_array_length(terms)::int AS entries_count, created_at, updated_at
       FROM glossaries
      WHERE space_id = $1
        AND ($2::text IS NULL OR split_part(src_lang, '-', 1) = split_part($2::text, '-', 1))
        AND ($3::text IS NULL OR split_part(dst_lang, '-', 1) = split_part($3::text, '-', 1))
      ORDER BY created_at DESC, id DESC`,
    [spaceId, f.src ?? null, f.dst ?? null],
  );
}

export function insertGlossary(
  db: Db,
  g: { spaceId: string; userId: string; name: string; src: string; dst: string; entries: GlossaryEntry[] },
): Promise<GlossaryRecord> {
  return db.one<GlossaryRecord>(
    `INSERT INTO glossaries (space_id, created_by, name, src_lang, dst_lang, terms) VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING ${COLS}`,
    [g.spaceId, g.userId, g.name, g.src, g.dst, g.entries],
  );
}

export async function updateGlossary(db: Db, id: string, f: { name?: string; entries?: GlossaryEntry[] }): Promise<GlossaryRecord> {
  // New entries are not read back: parsing a large list out of the database again (on the event loop with the
  // embedded database) cost as much as writing it.
  const cols = f.entries ? COLS_WITHOUT_TERMS : COLS;
  const row = await db.one<GlossaryRecord>(
    `UPDATE glossaries SET name = COALESCE($2, name), terms = COALESCE($3::jsonb, terms), updated_at = now() WHERE id = $1 RETURNING ${cols}`,
    [id, f.name ?? null, f.entries ?? null],
  );
  return f.entries ? { ...row, terms: f.entries } : row;
}

export async function deleteGlossary(db: Db, id: string): Promise<void> {
  await db.query(`DELETE FROM glossaries WHERE id = $1`, [id]);
}
