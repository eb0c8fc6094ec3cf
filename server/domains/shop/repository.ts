// SQL of the shops (migration 034), their products' projects (035) and publications (036), on the query builder.
import type { Db } from '../../db/index';
import { all, first, json, one, q, run, sql } from '../../db/sql';
import type { Publication } from '../../../contract/schemas/shop-publish';

const SHOP_COLS = ['domain', 'space_id', 'name', 'token_box', 'token_scopes', 'installed'] as const;
const shops = () => q.selectFrom('shops').select(SHOP_COLS);
export type ShopRow = Awaited<ReturnType<typeof findShop>> & {};

export function findShop(db: Db, domain: string) {
  return first(db, shops().where('domain', '=', domain));
}

export function findShopBySpace(db: Db, spaceId: string): Promise<ShopRow | null> {
  return first(db, shops().where('space_id', '=', spaceId));
}

/** Locks the shop's row (creating it when missing): one first staff user creates the Teamspace. */
export async function lockOrInsertShop(db: Db, domain: string, name: string): Promise<ShopRow> {
  await run(db, q.insertInto('shops').values({ domain, name }).onConflict((c) => c.column('domain').doNothing()));
  return one(db, shops().where('domain', '=', domain).forUpdate());
}

const touched = { updated_at: sql<Date>`now()` };

export async function setShopSpace(db: Db, domain: string, spaceId: string): Promise<void> {
  await run(db, q.updateTable('shops').set({ space_id: spaceId, redacted_at: null, ...touched }).where('domain', '=', domain));
}

export async function storeToken(db: Db, domain: string, box: string, scopes: string | null): Promise<void> {
  await run(db, q.updateTable('shops').set({ token_box: box, token_scopes: scopes, installed: true, uninstalled_at: null, ...touched }).where('domain', '=', domain));
}

/** Forgets the token only if it is still the one given (a newer exchange is kept). */
export async function clearToken(db: Db, domain: string, box?: string): Promise<void> {
  let u = q.updateTable('shops').set({ token_box: null, token_scopes: null, ...touched }).where('domain', '=', domain);
  if (box !== undefined) u = u.where('token_box', '=', box);
  await run(db, u);
}

export async function markUninstalled(db: Db, domain: string): Promise<void> {
  await run(db, q.updateTable('shops').set({ token_box: null, token_scopes: null, installed: false, uninstalled_at: sql<Date>`now()`, ...touched }).where('domain', '=', domain));
}

export async function markRedacted(db: Db, domain: string): Promise<void> {
  await run(db, q.updateTable('shops').set({ token_box: null, token_scopes: null, space_id: null, redacted_at: sql<Date>`now()`, ...touched }).where('domain', '=', domain));
}

export async function renameShop(db: Db, domain: string, name: string): Promise<void> {
  await run(db, q.updateTable('shops').set({ name, ...touched }).where('domain', '=', domain));
}

/** Whether this webhook delivery was recorded already. */
export async function deliverySeen(db: Db, webhookId: string): Promise<boolean> {
  return (await first(db, q.selectFrom('shop_webhooks').select('webhook_id').where('webhook_id', '=', webhookId))) !== null;
}

/** true the first time this delivery is seen. */
export async function firstDelivery(db: Db, webhookId: string, domain: string, topic: string): Promise<boolean> {
  const rows = await all(
    db,
    q.insertInto('shop_webhooks').values({ webhook_id: webhookId, domain, topic }).onConflict((c) => c.doNothing()).returning('webhook_id'),
  );
  return rows.length > 0;
}

/** Projects of the space with something running (a pipeline stage, lip-sync or burning subtitles). */
export function runningProjects(db: Db, spaceId: string): Promise<Array<{ id: string }>> {
  return all(
    db,
    q.selectFrom('projects')
      .select('id')
      .where('space_id', '=', spaceId)
      .where((e) =>
        e.or([
          e('status', 'like', '%\\_started'),
          e('lipsync_state', '=', 'processing'),
          e('subtitles_burn_state', '=', 'processing'),
          e.exists(
            e.selectFrom('pipeline_jobs as j').select('j.project_id').whereRef('j.project_id', '=', 'projects.id').where('j.state', 'in', ['queued', 'running']),
          ),
        ]),
      ),
  );
}

/** Every project of a space (the ones to stop before the space goes). */
export async function projectIdsOfSpace(db: Db, spaceId: string): Promise<string[]> {
  return (await all(db, q.selectFrom('projects').select('id').where('space_id', '=', spaceId))).map((r) => r.id);
}

/** Whether a project was made from this uploaded media. */
export async function mediaUsedByProject(db: Db, mediaId: string): Promise<boolean> {
  return (await first(db, q.selectFrom('projects').select('id').where('media_id', '=', mediaId).limit(1))) !== null;
}

export async function linkProjectProduct(
  db: Db,
  r: { projectId: string; domain: string; productId: string; productTitle: string; mediaId: string | null },
): Promise<void> {
  const set = { product_id: r.productId, product_title: r.productTitle, media_id: r.mediaId };
  await run(
    db,
    q.insertInto('shop_project_products').values({ project_id: r.projectId, domain: r.domain, ...set }).onConflict((c) => c.column('project_id').doUpdateSet(set)),
  );
}

/** The product a project's video was imported from (migration 035). */
export function productOfProject(db: Db, projectId: string) {
  return first(db, q.selectFrom('shop_project_products').select(['project_id', 'domain', 'product_id', 'product_title', 'media_id']).where('project_id', '=', projectId));
}

/** The shop of each of these spaces that is a shop's Teamspace (space id -> shop domain). */
export async function shopsOfSpaces(db: Db, spaceIds: string[]): Promise<Map<string, string>> {
  if (spaceIds.length === 0) return new Map();
  const rows = await all(
    db,
    q.selectFrom('shops').select(['space_id', 'domain']).where(sql<boolean>`space_id = ANY(${`{${spaceIds.join(',')}}`}::uuid[])`),
  );
  return new Map(rows.flatMap((r) => (r.space_id ? [[r.space_id, r.domain] as const] : [])));
}

// ------------------------------------------------------------------ publications (migration 036)

const PUBLICATION_COLS = [
  'id', 'domain', 'space_id', 'project_id', 'root_project_id', 'product_id', 'product_title', 'language', 'state', 'error', 'media_id',
  'stale_media_ids', 'updated_at',
] as const;
const publications = () => q.selectFrom('shop_publications').select(PUBLICATION_COLS).$narrowType<{ state: Publication['state']; stale_media_ids: string[] }>();
export type PublicationRow = Awaited<ReturnType<typeof listPublicationRows>>[number];

/** The publications of a video (its original project) in a space, by language and product. */
export function listPublicationRows(db: Db, rootProjectId: string, spaceId: string) {
  return all(db, publications().where('root_project_id', '=', rootProjectId).where('space_id', '=', spaceId).orderBy('language').orderBy('product_title'));
}

/** Fails a publication whose work stopped longer than `staleMs` ago (null: it moved on meanwhile). */
export function failStalePublication(db: Db, id: string, error: string, staleMs: number): Promise<PublicationRow | null> {
  return first(
    db,
    q.updateTable('shop_publications')
      .set({ state: 'failed', error, ...touched })
      .where('id', '=', id)
      .where('state', 'in', ['uploading', 'processing'])
      .where('updated_at', '<', sql<Date>`now() - make_interval(secs => ${staleMs}::int / 1000.0)`)
      .returning(PUBLICATION_COLS)
      .$narrowType<{ state: Publication['state']; stale_media_ids: string[] }>(),
  );
}

/** The publication of a product's language, created (as failed) when missing, locked for the transaction. */
export async function lockPublication(db: Db, r: { domain: string; spaceId: string; productId: string; language: string }): Promise<PublicationRow> {
  await run(
    db,
    q.insertInto('shop_publications')
      .values({ domain: r.domain, space_id: r.spaceId, product_id: r.productId, language: r.language, state: 'failed' })
      .onConflict((c) => c.columns(['domain', 'product_id', 'language']).doNothing()),
  );
  return one(db, publications().where('domain', '=', r.domain).where('product_id', '=', r.productId).where('language', '=', r.language).forUpdate());
}

/** Starts a publication again (uploading), remembering the earlier media to remove once the new one is ready. */
export function restartPublication(
  db: Db,
  id: string,
  r: { spaceId: string; projectId: string; rootProjectId: string; productTitle: string; staleMediaIds: string[]; userId: string },
): Promise<PublicationRow> {
  return one(
    db,
    q.updateTable('shop_publications')
      .set({
        space_id: r.spaceId,
        project_id: r.projectId,
        root_project_id: r.rootProjectId,
        product_title: sql<string>`COALESCE(NULLIF(${r.productTitle}::text, ''), product_title)`,
        state: 'uploading',
        error: null,
        media_id: null,
        stale_media_ids: json(r.staleMediaIds),
        user_id: r.userId,
        ...touched,
      })
      .where('id', '=', id)
      .returning(PUBLICATION_COLS)
      .$narrowType<{ state: Publication['state']; stale_media_ids: string[] }>(),
  );
}

export async function updatePublication(
  db: Db,
  id: string,
  fields: { state?: Publication['state']; error?: string | null; media_id?: string; product_title?: string; stale_media_ids?: string[] },
): Promise<void> {
  const { stale_media_ids, ...rest } = fields;
  const set = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  await run(db, q.updateTable('shop_publications').set({ ...set, ...(stale_media_ids ? { stale_media_ids: json(stale_media_ids) } : {}), ...touched }).where('id', '=', id));
}

/** Marks a publication still at work as alive (its heartbeat). */
export async function touchPublication(db: Db, id: string): Promise<void> {
  await run(db, q.updateTable('shop_publications').set(touched).where('id', '=', id).where('state', 'in', ['uploading', 'processing']));
}

export async function staleMediaOf(db: Db, id: string): Promise<string[]> {
  const r = await one(db, q.selectFrom('shop_publications').select('stale_media_ids').where('id', '=', id).$narrowType<{ stale_media_ids: string[] }>());
  return r.stale_media_ids;
}

/** The ids of a video's projects in a space (the original first), for its dubbed languages. */
export async function projectsOfVideo(db: Db, rootId: string, spaceId: string | null): Promise<string[]> {
  const rows = await all(
    db,
    q.selectFrom('projects')
      .select('id')
      .where((e) => e.or([e('id', '=', rootId), e('copied_from', '=', rootId)]))
      .where(sql<boolean>`space_id = ${spaceId}`)
      .orderBy(sql`(id = ${rootId})`, 'desc')
      .orderBy('created_date')
      .orderBy('id'),
  );
  return rows.map((r) => r.id);
}
