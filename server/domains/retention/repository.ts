// All SQL of retention: the storage garbage queue (filled by triggers, migration 010), upload records past
// their retention, and which stored ids still have rows.
import type { Db } from '../../db/index';
import { storableText } from '../../db/text';

export interface GarbageRow {
  id: string;
  kind: 'prefix' | 'key' | 'tus';
  target: string;
  attempts: number;
}

export function pendingGarbage(db: Db, limit: number): Promise<GarbageRow[]> {
  return db.query<GarbageRow>(
    `SELECT id::text AS id, kind, target, attempts FROM storage_garbage ORDER BY id LIMIT $1`,
    [limit],
  );
}

export async function garbageDone(db: Db, id: string): Promise<void> {
  await db.query(`DELETE FROM storage_garbage WHERE id = $1::bigint`, [id]);
}

export async function garbageFailed(db: Db, id: string, error: string): Promise<void> {
  await db.query(`UPDATE storage_garbage SET attempts = attempts + 1, last_error = $2 WHERE id = $1::bigint`, [id, storableText(error, 500)]);
}

export async function countGarbage(db: Db): Promise<number> {
  return Number((await db.one<{ n: string }>(`SELECT count(*)::text AS n FROM storage_garbage`)).n);
}

/** Deletes upload records older than `ageMs` (their files are queued by the trigger). Returns how many. */
export async function deleteUploadsOlderThan(db: Db, ageMs: number): Promise<number> {
  const rows = await db.query(`DELETE FROM media_uploads WHERE created_at < now() - make_interval(secs => $1) RETURNING id`, [ageMs / 1000]);
  return rows.length;
}

/**
 * The uploads a deleted project used that no other project uses any more: removed with it (their file was
 * copied into the project at ingest; the trigger queues the upload's file).
 */
export async function deleteUploadsOnlyUsedBy(db: Db, projectId: string): Promise<number> {
  const rows = await db.query(
    `DELETE FROM media_uploads m
     WHERE m.id IN (SELECT x FROM projects p, LATERAL (VALUES (p.media_id), (p.src_srt_media_id), (p.dst_srt_media_id)) v(x)
                    WHERE p.id = $1 AND x IS NOT NULL)
       AND NOT EXISTS (SELECT 1 FROM projects o WHERE o.id <> $1
                       AND (o.media_id = m.id OR o.src_srt_media_id = m.id OR o.dst_srt_media_id = m.id))
     RETURNING m.id`,
    [projectId],
  );
  return rows.length;
}

/** Of the given ids, those with a row in `table` (projects or media_uploads). */
export async function existingIds(db: Db, table: 'projects' | 'media_uploads', ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.query<{ id: string }>(
    `SELECT id::text AS id FROM ${table} WHERE id::text IN (SELECT jsonb_array_elements_text($1::jsonb))`,
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}

/** Of the given upload ids, those still receiving bytes (tus uploads not finished). */
export async function uploadingIds(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.query<{ id: string }>(
    `SELECT id::text AS id FROM media_uploads WHERE status = 'uploading' AND id::text IN (SELECT jsonb_array_elements_text($1::jsonb))`,
    [ids],
  );
  return new Set(rows.map((r) => r.id));
}
