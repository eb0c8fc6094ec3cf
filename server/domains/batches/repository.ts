// SQL of batches and their items (migration 029).
import type { Db } from '../../db/index';

export interface BatchRow {
  id: string;
  space_id: string;
  user_id: string | null;
  name: string;
  auto_generate: boolean;
  status: 'running' | 'completed' | 'cancelled';
  minutes_needed: number;
  created_at: string;
  completed_at: string | null;
}

export interface ItemRow {
  id: string;
  batch_id: string;
  position: number;
  name: string;
  dst_langs: string[];
  request: Record<string, unknown>;
  project_id: string | null;
  error: string | null;
}

/** The languages' projects of the items (the item's own project and those made from its analysis). */
export interface LangProjectRow {
  id: string;
  root: string;
  dst_lang: string;
  status: string;
  progress: number;
  error_message: string | null;
  error_code: string | null;
  translated_video: string | null;
  name: string;
  pending_dst_langs: Array<{ dst_lang: string }>;
  dubbed_generation: number | null;
}

const BATCH = `id, space_id, user_id, name, auto_generate, status, minutes_needed::float8 AS minutes_needed, created_at, completed_at`;

export function insertBatch(db: Db, b: { spaceId: string; userId: string; name: string; autoGenerate: boolean; minutesNeeded: number }): Promise<BatchRow> {
  return db.one(
    `INSERT INTO batches (space_id, user_id, name, auto_generate, minutes_needed) VALUES ($1, $2, $3, $4, $5) RETURNING ${BATCH}`,
    [b.spaceId, b.userId, b.name, b.autoGenerate, b.minutesNeeded],
  );
}

export function insertItem(
  db: Db,
  i: { batchId: string; position: number; name: string; dstLangs: string[]; request: object },
): Promise<ItemRow> {
  return db.one(
    `INSERT INTO batch_items (batch_id, position, name, dst_langs, request) VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [i.batchId, i.position, i.name, JSON.stringify(i.dstLangs), JSON.stringify(i.request)],
  );
}

export function updateItem(db: Db, id: string, p: { projectId: string | null; error: string | null }): Promise<unknown> {
  return db.query(`UPDATE batch_items SET project_id = $2, error = $3 WHERE id = $1`, [id, p.projectId, p.error]);
}

export function setItemError(db: Db, id: string, error: string | null): Promise<unknown> {
  return db.query(`UPDATE batch_items SET error = $2 WHERE id = $1`, [id, error]);
}

export function findBatch(db: Db, id: string): Promise<BatchRow | null> {
  return db.maybeOne(`SELECT ${BATCH} FROM batches WHERE id = $1`, [id]);
}

export function listBatches(db: Db, spaceId: string): Promise<Array<BatchRow & { items: number }>> {
  return db.query(
    `SELECT ${BATCH}, (SELECT count(*)::int FROM batch_items i WHERE i.batch_id = batches.id) AS items
     FROM batches WHERE space_id = $1 ORDER BY created_at DESC, id LIMIT 100`,
    [spaceId],
  );
}

export function itemsOf(db: Db, batchId: string): Promise<ItemRow[]> {
  return db.query(`SELECT * FROM batch_items WHERE batch_id = $1 ORDER BY position`, [batchId]);
}

export function projectsOfItems(db: Db, rootIds: string[]): Promise<LangProjectRow[]> {
  if (rootIds.length === 0) return Promise.resolve([]);
  return db.query(
    `SELECT id, COALESCE(copied_from, id) AS root, dst_lang, status, progress, error_message, error_code, translated_video, name,
            pending_dst_langs, dubbed_generation
     FROM projects WHERE id = ANY($1::uuid[]) OR copied_from = ANY($1::uuid[]) ORDER BY created_date, id`,
    [`{${rootIds.join(',')}}`],
  );
}

/** The running batch a project belongs to (as an item's project or a language made from it), locked. */
export function runningBatchOfProject(db: Db, projectId: string): Promise<(BatchRow & { item_id: string }) | null> {
  return db.maybeOne(
    `SELECT b.id, b.space_id, b.user_id, b.name, b.auto_generate, b.status, b.minutes_needed::float8 AS minutes_needed,
            b.created_at, b.completed_at, i.id AS item_id
     FROM batch_items i JOIN batches b ON b.id = i.batch_id
     WHERE i.project_id IN (SELECT id FROM projects WHERE id = $1 UNION SELECT copied_from FROM projects WHERE id = $1 AND copied_from IS NOT NULL)
       AND b.status = 'running'
     LIMIT 1`,
    [projectId],
  );
}

/** Marks the batch finished once (false when it already was). */
export async function finishBatch(db: Db, id: string, status: 'completed' | 'cancelled'): Promise<boolean> {
  const rows = await db.query(`UPDATE batches SET status = $2, completed_at = now() WHERE id = $1 AND status = 'running' RETURNING id`, [id, status]);
  return rows.length > 0;
}

export function reopenBatch(db: Db, id: string): Promise<unknown> {
  return db.query(`UPDATE batches SET status = 'running', completed_at = NULL WHERE id = $1`, [id]);
}
