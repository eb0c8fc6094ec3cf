// All SQL of retention: the storage garbage queue (filled by triggers, migration 010), upload records past
// their retention, and which stored ids still have rows.
import type { Db } from '../../db/index';
import { all, one, q, run, sql } from '../../db/sql';
import { storableText } from '../../db/text';

export interface GarbageRow {
  id: string;
  kind: 'prefix' | 'key' | 'tus';
  target: string;
  attempts: number;
}

export function pendingGarbage(db: Db, limit: number): Promise<GarbageRow[]> {
  return all(
    db,
    q
      .selectFrom('storage_garbage')
      .select([sql<string>`id::text`.as('id'), 'kind', 'target', 'attempts'])
      .orderBy('id')
      .limit(limit)
      .$narrowType<{ kind: GarbageRow['kind'] }>(),
  );
}

export async function garbageDone(db: Db, id: string): Promise<void> {
  await run(db, q.deleteFrom('storage_garbage').where('id', '=', sql<number>`${id}::bigint`));
}

export async function garbageFailed(db: Db, id: string, error: string): Promise<void> {
  await run(
    db,
    q
      .updateTable('storage_garbage')
      .set({ attempts: (e) => e('attempts', '+', 1), last_error: storableText(error, 500) })
      .where('id', '=', sql<number>`${id}::bigint`),
  );
}

/** @internal Used by tests only. */
export async function countGarbage(db: Db): Promise<number> {
  return Number((await one(db, q.selectFrom('storage_garbage').select(sql<string>`count(*)::text`.as('n')))).n);
}

/** Deletes upload records older than `ageMs` (their files are queued by the trigger). Returns how many. */
export async function deleteUploadsOlderThan(db: Db, ageMs: number): Promise<number> {
  const rows = await all(
    db,
    q
      .deleteFrom('media_uploads')
      .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${ageMs / 1000})`)
      .returning('id'),
  );
  return rows.length;
}

/**
 * The uploads a deleted project used that no other project uses any more: removed with it (their file was
 * copied into the project at ingest; the trigger queues the upload's file).
 */
export async function deleteUploadsOnlyUsedBy(db: Db, projectId: string): Promise<number> {
  const rows = await all(
    db,
    q
      .deleteFrom('media_uploads as m')
      .where(
        sql<boolean>`m.id IN (SELECT x FROM projects p, LATERAL (VALUES (p.media_id), (p.src_srt_media_id), (p.dst_srt_media_id)) v(x)
                    WHERE p.id = ${projectId} AND x IS NOT NULL)`,
      )
      .where((e) =>
        e.not(
          e.exists(
            e
              .selectFrom('projects as o')
              .select(sql`1`.as('one'))
              .where('o.id', '<>', projectId)
              .where((o) => o.or([o('o.media_id', '=', o.ref('m.id')), o('o.src_srt_media_id', '=', o.ref('m.id')), o('o.dst_srt_media_id', '=', o.ref('m.id'))])),
          ),
        ),
      )
      .returning('m.id'),
  );
  return rows.length;
}

/** Of the given ids, those with a row in `table` (projects or media_uploads). */
export async function existingIds(db: Db, table: 'projects' | 'media_uploads', ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await all(
    db,
    q
      .selectFrom(table)
      .select(sql<string>`id::text`.as('id'))
      .where(sql<boolean>`id::text IN (SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`),
  );
  return new Set(rows.map((r) => r.id));
}

/** Of the given upload ids, those still receiving bytes (tus uploads not finished). */
export async function uploadingIds(db: Db, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await all(
    db,
    q
      .selectFrom('media_uploads')
      .select(sql<string>`id::text`.as('id'))
      .where('status', '=', 'uploading')
      .where(sql<boolean>`id::text IN (SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`),
  );
  return new Set(rows.map((r) => r.id));
}
