// SQL of the shops (migration 034).
import type { Db } from '../../db/index';

export interface ShopRow {
  domain: string;
  space_id: string | null;
  name: string;
  token_box: string | null;
  token_scopes: string | null;
  installed: boolean;
}

const COLS = 'domain, space_id, name, token_box, token_scopes, installed';

export function findShop(db: Db, domain: string): Promise<ShopRow | null> {
  return db.maybeOne<ShopRow>(`SELECT ${COLS} FROM shops WHERE domain = $1`, [domain]);
}

export function findShopBySpace(db: Db, spaceId: string): Promise<ShopRow | null> {
  return db.maybeOne<ShopRow>(`SELECT ${COLS} FROM shops WHERE space_id = $1`, [spaceId]);
}

/** Locks the shop's row (creating it when missing): one first staff user creates the Teamspace. */
export async function lockOrInsertShop(db: Db, domain: string, name: string): Promise<ShopRow> {
  await db.query(`INSERT INTO shops (domain, name) VALUES ($1, $2) ON CONFLICT (domain) DO NOTHING`, [domain, name]);
  return db.one<ShopRow>(`SELECT ${COLS} FROM shops WHERE domain = $1 FOR UPDATE`, [domain]);
}

export async function setShopSpace(db: Db, domain: string, spaceId: string): Promise<void> {
  await db.query(`UPDATE shops SET space_id = $2, redacted_at = NULL, updated_at = now() WHERE domain = $1`, [domain, spaceId]);
}

export async function storeToken(db: Db, domain: string, box: string, scopes: string | null): Promise<void> {
  await db.query(
    `UPDATE shops SET token_box = $2, token_scopes = $3, installed = true, uninstalled_at = NULL, updated_at = now() WHERE domain = $1`,
    [domain, box, scopes],
  );
}

/** Forgets the token only if it is still the one given (a newer exchange is kept). */
export async function clearToken(db: Db, domain: string, box?: string): Promise<void> {
  if (box === undefined) {
    await db.query(`UPDATE shops SET token_box = NULL, token_scopes = NULL, updated_at = now() WHERE domain = $1`, [domain]);
  } else {
    await db.query(`UPDATE shops SET token_box = NULL, token_scopes = NULL, updated_at = now() WHERE domain = $1 AND token_box = $2`, [domain, box]);
  }
}

export async function markUninstalled(db: Db, domain: string): Promise<void> {
  await db.query(
    `UPDATE shops SET token_box = NULL, token_scopes = NULL, installed = false, uninstalled_at = now(), updated_at = now() WHERE domain = $1`,
    [domain],
  );
}

export async function markRedacted(db: Db, domain: string): Promise<void> {
  await db.query(
    `UPDATE shops SET token_box = NULL, token_scopes = NULL, space_id = NULL, redacted_at = now(), updated_at = now() WHERE domain = $1`,
    [domain],
  );
}

export async function renameShop(db: Db, domain: string, name: string): Promise<void> {
  await db.query(`UPDATE shops SET name = $2, updated_at = now() WHERE domain = $1`, [domain, name]);
}

/** true the first time this delivery is seen. */
export async function firstDelivery(db: Db, webhookId: string, domain: string, topic: string): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO shop_webhooks (webhook_id, domain, topic) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING webhook_id`,
    [webhookId, domain, topic],
  );
  return rows.length > 0;
}

/** Projects of the space with something running (a pipeline stage, lip-sync or burning subtitles). */
export function runningProjects(db: Db, spaceId: string): Promise<Array<{ id: string }>> {
  return db.query<{ id: string }>(
    `SELECT id FROM projects
      WHERE space_id = $1
        AND (status LIKE '%\\_started' OR lipsync_state = 'processing' OR subtitles_burn_state = 'processing'
             OR EXISTS (SELECT 1 FROM pipeline_jobs j WHERE j.project_id = projects.id AND j.state IN ('queued', 'running')))`,
    [spaceId],
  );
}

/** The product a project's video was imported from (migration 035). */
export interface ProjectProductRow {
  project_id: string;
  domain: string;
  product_id: string;
  product_title: string;
  media_id: string | null;
}

export async function linkProjectProduct(
  db: Db,
  r: { projectId: string; domain: string; productId: string; productTitle: string; mediaId: string | null },
): Promise<void> {
  await db.query(
    `INSERT INTO shop_project_products (project_id, domain, product_id, product_title, media_id) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (project_id) DO UPDATE SET product_id = $3, product_title = $4, media_id = $5`,
    [r.projectId, r.domain, r.productId, r.productTitle, r.mediaId],
  );
}

export function productOfProject(db: Db, projectId: string): Promise<ProjectProductRow | null> {
  return db.maybeOne<ProjectProductRow>(
    `SELECT project_id, domain, product_id, product_title, media_id FROM shop_project_products WHERE project_id = $1`,
    [projectId],
  );
}

/** The shop of each of these spaces that is a shop's Teamspace (space id -> shop domain). */
export async function shopsOfSpaces(db: Db, spaceIds: string[]): Promise<Map<string, string>> {
  if (spaceIds.length === 0) return new Map();
  const rows = await db.query<{ space_id: string; domain: string }>(
    `SELECT space_id, domain FROM shops WHERE space_id = ANY($1::uuid[])`,
    [`{${spaceIds.join(',')}}`],
  );
  return new Map(rows.map((r) => [r.space_id, r.domain]));
}
