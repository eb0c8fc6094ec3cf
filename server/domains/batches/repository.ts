// SQL of batches and their items (migration 029), on the query builder.
import type { Db } from '../../db/index';
import { all, first, json, one, q, run, sql } from '../../db/sql';
import type { JsonObject } from '../../db/schema';

type BatchStatus = 'running' | 'completed' | 'cancelled';

const BATCH_COLS = ['id', 'space_id', 'user_id', 'name', 'auto_generate', 'status', 'created_at', 'completed_at'] as const;
const minutesNeeded = sql<number>`minutes_needed::float8`.as('minutes_needed');
const batches = () => q.selectFrom('batches').select(BATCH_COLS).select(minutesNeeded).$narrowType<{ status: BatchStatus }>();
export type BatchRow = Awaited<ReturnType<typeof findBatch>> & {};

const items = () => q.selectFrom('batch_items').selectAll().$narrowType<{ dst_langs: string[]; request: JsonObject }>();
export type ItemRow = Awaited<ReturnType<typeof itemsOf>>[number];

/** The languages' projects of the items (the item's own project and those made from its analysis). */
export type LangProjectRow = Awaited<ReturnType<typeof projectsOfItems>>[number];

export function insertBatch(db: Db, b: { spaceId: string; userId: string; name: string; autoGenerate: boolean; minutesNeeded: number }): Promise<BatchRow> {
  return one(
    db,
    q.insertInto('batches')
      .values({ space_id: b.spaceId, user_id: b.userId, name: b.name, auto_generate: b.autoGenerate, minutes_needed: b.minutesNeeded })
      .returning(BATCH_COLS)
      .returning(minutesNeeded)
      .$narrowType<{ status: BatchStatus }>(),
  );
}

export function insertItem(
  db: Db,
  i: { batchId: string; position: number; name: string; dstLangs: string[]; request: object },
): Promise<ItemRow> {
  return one(
    db,
    q.insertInto('batch_items')
      .values({ batch_id: i.batchId, position: i.position, name: i.name, dst_langs: json(i.dstLangs), request: json(i.request) })
      .returningAll()
      .$narrowType<{ dst_langs: string[]; request: JsonObject }>(),
  );
}

export function updateItem(db: Db, id: string, p: { projectId: string | null; error: string | null }): Promise<void> {
  return run(db, q.updateTable('batch_items').set({ project_id: p.projectId, error: p.error }).where('id', '=', id));
}

export function setItemError(db: Db, id: string, error: string | null): Promise<void> {
  return run(db, q.updateTable('batch_items').set({ error }).where('id', '=', id));
}

export function findBatch(db: Db, id: string) {
  return first(db, batches().where('id', '=', id));
}

export function listBatches(db: Db, spaceId: string) {
  return all(
    db,
    batches()
      .select((e) => e.selectFrom('batch_items as i').select(sql<number>`count(*)::int`.as('n')).whereRef('i.batch_id', '=', 'batches.id').as('items'))
      .where('space_id', '=', spaceId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .limit(100),
  );
}

export function itemsOf(db: Db, batchId: string) {
  return all(db, items().where('batch_id', '=', batchId).orderBy('position'));
}

export function projectsOfItems(db: Db, rootIds: string[]) {
  if (rootIds.length === 0) return Promise.resolve([]);
  const ids = `{${rootIds.join(',')}}`;
  return all(
    db,
    q.selectFrom('projects')
      .select(['id', 'dst_lang', 'status', 'progress', 'error_message', 'error_code', 'translated_video', 'name', 'pending_dst_langs', 'dubbed_generation'])
      .select(sql<string>`COALESCE(copied_from, id)`.as('root'))
      .where(sql<boolean>`id = ANY(${ids}::uuid[]) OR copied_from = ANY(${ids}::uuid[])`)
      .orderBy('created_date')
      .orderBy('id')
      .$narrowType<{ pending_dst_langs: Array<{ dst_lang: string }> }>(),
  );
}

/** The running batch a project belongs to (as an item's project or a language made from it). */
export function runningBatchOfProject(db: Db, projectId: string) {
  return first(
    db,
    q.selectFrom('batch_items as i')
      .innerJoin('batches as b', 'b.id', 'i.batch_id')
      .select(['b.id', 'b.space_id', 'b.user_id', 'b.name', 'b.auto_generate', 'b.status', 'b.created_at', 'b.completed_at', 'i.id as item_id'])
      .select(sql<number>`b.minutes_needed::float8`.as('minutes_needed'))
      .where(
        sql<boolean>`i.project_id IN (SELECT id FROM projects WHERE id = ${projectId} UNION SELECT copied_from FROM projects WHERE id = ${projectId} AND copied_from IS NOT NULL)`,
      )
      .where('b.status', '=', 'running')
      .limit(1)
      .$narrowType<{ status: BatchStatus }>(),
  );
}

/** Marks the batch finished once (false when it already was). */
export async function finishBatch(db: Db, id: string, status: 'completed' | 'cancelled'): Promise<boolean> {
  const rows = await all(
    db,
    q.updateTable('batches').set({ status, completed_at: sql<Date>`now()` }).where('id', '=', id).where('status', '=', 'running').returning('id'),
  );
  return rows.length > 0;
}

export function reopenBatch(db: Db, id: string): Promise<void> {
  return run(db, q.updateTable('batches').set({ status: 'running', completed_at: null }).where('id', '=', id));
}
