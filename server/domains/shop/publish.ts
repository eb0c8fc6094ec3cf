// Dubbed videos back to the shop (issue 32, part 4): "Publish to product" uploads a language's dubbed MP4 to the
// platform and attaches it to a product, in the background:
//   1. stagedUploadsCreate (resource VIDEO, the file's size) -> a staged target (url, parameters, resourceUrl);
//   2. a multipart POST to the target: its parameters, then the file, streamed from storage;
//   3. productCreateMedia (originalSource = resourceUrl, VIDEO, alt text in the target language);
//   4. the media polled (node(id) { ... on Media { status } }) with a bounded backoff until READY or FAILED.
// One dub per language on a product: once the new media is READY the earlier ones are deleted (productDeleteMedia);
// while the new one fails the earlier dub stays. The platform's messages (userErrors, mediaErrors) are stored as
// they are. Only the editors and the owner of the shop's Teamspace publish.
import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import { Readable, pipeline } from 'node:stream';
import type { PublishRequest, Publication, PublicationList, ShopProductList } from '../../../contract/schemas/shop-publish';
import { isFinished, type ProjectStatus } from '../../../contract/statuses';
import { flights } from '../../cache/flights';
import type { AppDeps } from '../../deps';
import { safeFileName } from '../../storage/signed';
import type { UserRow } from '../../caller';
import { badRequest, conflict, DomainError, forbidden } from '../../errors';
import * as projectsRepo from '../projects/repository';
import { loadProject } from '../projects/service';
import { spaceAccess, type SpaceAccess } from '../spaces/guard';
import { shopAdminGraphql, ShopAdminError } from './admin';
import * as repo from './repository';

/** Delays of the background work (tests shorten them). */
export const publishTiming = {
  /** First wait before reading the media's status, doubled up to pollMaxMs. */
  pollFirstMs: 2_000,
  pollMaxMs: 30_000,
  /** The platform has this long to process the video. */
  processDeadlineMs: 30 * 60_000,
  /** The upload to the staged target has this long. */
  uploadTimeoutMs: 30 * 60_000,
  /** A running publication touches its row this often; one untouched for staleMs was interrupted. */
  heartbeatMs: 30_000,
  staleMs: 5 * 60_000,
};

export const ONLY_EDITORS = 'Only the editors of the Teamspace can publish to the shop';
export const NOT_A_SHOP = 'This Teamspace is not a shop: open the project from the app in your store admin';
export const INTERRUPTED = 'The publication was interrupted (the server restarted): publish again';

type PublicationRow = repo.PublicationRow;

function toJson(r: PublicationRow): Publication {
  return {
    id: r.id, project_id: r.project_id ?? '', language: r.language, product_id: r.product_id, product_title: r.product_title,
    state: r.state, error: r.error, media_id: r.media_id, updated_at: new Date(r.updated_at).toISOString(),
  };
}

/** Publications running in this app (id -> their work; app state, server/cache). */
const RUNNING = flights<void>('shop.publications');

/** Resolves when every publication started by this app has settled (tests, shutdown). @internal */
export function publishIdle(deps: AppDeps): Promise<void> {
  return deps.db.state.of(RUNNING).idle();
}

/** A failure whose message is shown to the user as it is (the platform's words, or ours). */
class PublishFailure extends Error {}

const sameLang = (a: string, b: string) => a.toLowerCase().replace(/_/g, '-') === b.toLowerCase().replace(/_/g, '-');

/** The original project of `p` (itself, or the project it was made from in the same space). */
async function originalOf(deps: AppDeps, p: projectsRepo.ProjectRow): Promise<projectsRepo.ProjectRow> {
  if (!p.copied_from) return p;
  const parent = await projectsRepo.findProject(deps.db, p.copied_from);
  return parent && parent.space_id === p.space_id ? parent : p;
}

/** The finished project of the video in `language` with its dubbed MP4 in storage. */
async function dubbedProjectOf(deps: AppDeps, root: projectsRepo.ProjectRow, language: string): Promise<projectsRepo.ProjectRow | null> {
  for (const id of await repo.projectsOfVideo(deps.db, root.id, root.space_id)) {
    const p = await projectsRepo.findProject(deps.db, id);
    if (!p || !sameLang(p.dst_lang, language) || !isFinished(p.status as ProjectStatus) || !p.translated_video) continue;
    if (await deps.storage.exists(p.translated_video)) return p;
  }
  return null;
}

/** The caller must be an editor or the owner of a shop's Teamspace. */
async function shopEditor(deps: AppDeps, space: SpaceAccess): Promise<repo.ShopRow> {
  if (space.role !== 'owner' && space.role !== 'editor') throw forbidden(ONLY_EDITORS);
  const shop = await repo.findShopBySpace(deps.db, space.id);
  if (!shop) throw badRequest(NOT_A_SHOP);
  return shop;
}

/** The language's name in that language ("español", "Deutsch"), or the code. */
function nativeName(lang: string): string {
  try {
    return new Intl.DisplayNames([lang], { type: 'language' }).of(lang) ?? lang;
  } catch {
    return lang;
  }
}

// ------------------------------------------------------------------ reads

/** Marks publications whose work stopped (a restart) as failed, so they can be published again. */
async function failInterrupted(deps: AppDeps, rows: PublicationRow[]): Promise<PublicationRow[]> {
  const out: PublicationRow[] = [];
  for (const r of rows) {
    const stale = (r.state === 'uploading' || r.state === 'processing') && !deps.db.state.of(RUNNING).has(r.id)
      && Date.now() - new Date(r.updated_at).getTime() > publishTiming.staleMs;
    if (!stale) {
      out.push(r);
      continue;
    }
    const fixed = await repo.failStalePublication(deps.db, r.id, INTERRUPTED, publishTiming.staleMs);
    out.push(fixed ?? r);
  }
  return out;
}

export async function listPublications(deps: AppDeps, user: UserRow, projectId: string): Promise<PublicationList> {
  const { project, space } = await loadProject(deps, user, projectId);
  const shop = await repo.findShopBySpace(deps.db, space.id);
  if (!shop) return { shop: false, can_publish: false, publications: [], origin_product: null };
  const root = await originalOf(deps, project);
  const rows = await repo.listPublicationRows(deps.db, root.id, space.id);
  const origin = (await repo.productOfProject(deps.db, root.id)) ?? (await repo.productOfProject(deps.db, project.id));
  return {
    shop: true,
    can_publish: space.role === 'owner' || space.role === 'editor',
    publications: (await failInterrupted(deps, rows)).map(toJson),
    origin_product: origin ? { id: origin.product_id, title: origin.product_title } : null,
  };
}

const PRODUCTS_QUERY = `query PublishProducts($first: Int!, $query: String) {
  products(first: $first, query: $query, sortKey: TITLE) {
    nodes { id title featuredMedia { preview { image { url } } } }
  }
}`;

/** The shop's products (20 at most, searched by `q`), to choose where a dub goes. */
export async function listProducts(deps: AppDeps, user: UserRow, spaceId: string, q: string): Promise<ShopProductList> {
  const space = await spaceAccess(deps.db, user, spaceId);
  await shopEditor(deps, space);
  const query = q.trim().slice(0, 100);
  let data: { products: { nodes: Array<{ id: string; title: string; featuredMedia: { preview: { image: { url: string } | null } | null } | null }> } };
  try {
    data = await shopAdminGraphql(deps, space.id, PRODUCTS_QUERY, { first: 20, query: query || null });
  } catch (e) {
    if (e instanceof ShopAdminError) throw new DomainError('unavailable', e.message);
    throw new DomainError('upstream_failed', `The shop's products could not be read: ${e instanceof Error ? e.message : String(e)}`);
  }
  return {
    products: (data.products?.nodes ?? []).map((p) => ({ id: p.id, title: p.title, image: p.featuredMedia?.preview?.image?.url ?? null })),
  };
}

// ------------------------------------------------------------------ publish

export async function publish(deps: AppDeps, user: UserRow, body: PublishRequest): Promise<Publication> {
  const { project, space } = await loadProject(deps, user, body.project_id);
  const shop = await shopEditor(deps, space);
  const root = await originalOf(deps, project);
  const dubbed = await dubbedProjectOf(deps, root, body.language);
  if (!dubbed) throw conflict(`There is no finished dubbed video in "${body.language}" for this project yet`);
  let productId = body.product_id;
  let productTitle = '';
  if (!productId) {
    const origin = (await repo.productOfProject(deps.db, root.id)) ?? (await repo.productOfProject(deps.db, project.id));
    if (!origin) throw badRequest('Choose the product to publish to: this video did not come from a product');
    productId = origin.product_id;
    productTitle = origin.product_title;
  }
  const language = dubbed.dst_lang;
  const row = await deps.db.tx(async (t) => {
    const cur = await repo.lockPublication(t, { domain: shop.domain, spaceId: space.id, productId, language });
    const busy = (cur.state === 'uploading' || cur.state === 'processing')
      && (deps.db.state.of(RUNNING).has(cur.id) || Date.now() - new Date(cur.updated_at).getTime() <= publishTiming.staleMs);
    if (busy) throw conflict('This language is already being published to this product: wait until it is ready or failed');
    // The media of the earlier publication (ready or failed) goes once the new one is ready.
    const stale = [...new Set([...cur.stale_media_ids, ...(cur.media_id ? [cur.media_id] : [])])];
    return repo.restartPublication(t, cur.id, { spaceId: space.id, projectId: dubbed.id, rootProjectId: root.id, productTitle, staleMediaIds: stale, userId: user.id });
  });
  void deps.db.state.of(RUNNING).run(row.id, () => runPublication(deps, row, dubbed));
  return toJson(row);
}

async function update(deps: AppDeps, id: string, fields: { state?: Publication['state']; error?: string | null; media_id?: string; product_title?: string; stale_media_ids?: string[] }): Promise<void> {
  await repo.updatePublication(deps.db, id, fields);
}

interface UserErrorLike { field?: string[] | null; message: string; code?: string | null }
const messagesOf = (errs: UserErrorLike[]) => errs.map((e) => e.message).join('; ');

const STAGED_UPLOADS = `mutation PublishStage($input: [StagedUploadInput!]!) {
  stagedUploadsCreate(input: $input) {
    stagedTargets { url resourceUrl parameters { name value } }
    userErrors { field message }
  }
}`;
const PRODUCT_TITLE = `query PublishProduct($id: ID!) { product(id: $id) { id title } }`;
const CREATE_MEDIA = `mutation PublishMedia($productId: ID!, $media: [CreateMediaInput!]!) {
  productCreateMedia(productId: $productId, media: $media) {
    media { id alt mediaContentType status }
    mediaUserErrors { field message code }
  }
}`;
const MEDIA_STATUS = `query PublishedMedia($id: ID!) {
  node(id: $id) { id ... on Media { status mediaErrors { code details message } } }
}`;
const DELETE_MEDIA = `mutation UnpublishMedia($productId: ID!, $mediaIds: [ID!]!) {
  productDeleteMedia(productId: $productId, mediaIds: $mediaIds) {
    deletedMediaIds
    mediaUserErrors { field message code }
  }
}`;

interface StagedTarget { url: string; resourceUrl: string; parameters: Array<{ name: string; value: string }> }

async function runPublication(deps: AppDeps, row: PublicationRow, dubbed: projectsRepo.ProjectRow): Promise<void> {
  const heartbeat = setInterval(() => {
    void repo.touchPublication(deps.db, row.id).catch(() => {});
  }, publishTiming.heartbeatMs);
  heartbeat.unref();
  const log = deps.logger.child({ publication: row.id, product: row.product_id, lang: row.language });
  try {
    const key = dubbed.translated_video!;
    const stat = await deps.storage.stat(key);
    if (!stat) throw new PublishFailure('The dubbed video is no longer in storage: generate it again');

    const product = await shopAdminGraphql<{ product: { id: string; title: string } | null }>(deps, row.space_id, PRODUCT_TITLE, { id: row.product_id });
    if (!product.product) throw new PublishFailure('The product no longer exists in the shop');
    const title = product.product.title;
    await update(deps, row.id, { product_title: title });

    const filename = safeFileName(`${dubbed.name}_${dubbed.dst_lang}`, '.mp4');
    const staged = await shopAdminGraphql<{ stagedUploadsCreate: { stagedTargets: StagedTarget[] | null; userErrors: UserErrorLike[] } }>(
      deps, row.space_id, STAGED_UPLOADS,
      { input: [{ resource: 'VIDEO', filename, mimeType: 'video/mp4', fileSize: String(stat.size), httpMethod: 'POST' }] },
    );
    const su = staged.stagedUploadsCreate;
    if (su.userErrors.length > 0) throw new PublishFailure(messagesOf(su.userErrors));
    const target = su.stagedTargets?.[0];
    if (!target?.url || !target.resourceUrl) throw new PublishFailure('The platform did not give an upload target');
    await sendToTarget(deps, target, key, stat.size, filename);

    await update(deps, row.id, { state: 'processing' });
    const alt = `${title} (${nativeName(dubbed.dst_lang)})`.slice(0, 512);
    const created = await shopAdminGraphql<{
      productCreateMedia: { media: Array<{ id: string; status: string }> | null; mediaUserErrors: UserErrorLike[] };
    }>(deps, row.space_id, CREATE_MEDIA, {
      productId: row.product_id,
      media: [{ originalSource: target.resourceUrl, mediaContentType: 'VIDEO', alt }],
    });
    const pcm = created.productCreateMedia;
    if (pcm.mediaUserErrors.length > 0) throw new PublishFailure(messagesOf(pcm.mediaUserErrors));
    const mediaId = pcm.media?.[0]?.id;
    if (!mediaId) throw new PublishFailure('The platform did not create the media');
    await update(deps, row.id, { media_id: mediaId });

    const outcome = await waitForMedia(deps, row.space_id, mediaId, pcm.media?.[0]?.status);
    if (outcome.status === 'FAILED') throw new PublishFailure(outcome.message || 'The platform could not process the video');

    // READY: the earlier dubs of this language go.
    const staleIds = await repo.staleMediaOf(deps.db, row.id);
    const left = await deleteMedia(deps, row.space_id, row.product_id, staleIds.filter((m) => m !== mediaId), log);
    await update(deps, row.id, { state: 'ready', error: null, stale_media_ids: left });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (!(e instanceof PublishFailure)) log.warn({ err: message }, 'shop publication failed');
    await update(deps, row.id, { state: 'failed', error: message.slice(0, 2000) }).catch(() => {});
  } finally {
    clearInterval(heartbeat);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitForMedia(deps: AppDeps, spaceId: string, mediaId: string, first?: string): Promise<{ status: 'READY' | 'FAILED'; message?: string }> {
  if (first === 'READY') return { status: 'READY' };
  const deadline = Date.now() + publishTiming.processDeadlineMs;
  let wait = publishTiming.pollFirstMs;
  while (Date.now() < deadline) {
    await sleep(wait);
    wait = Math.min(wait * 2, publishTiming.pollMaxMs);
    const d = await shopAdminGraphql<{ node: { id: string; status?: string; mediaErrors?: Array<{ message: string; details?: string | null }> } | null }>(
      deps, spaceId, MEDIA_STATUS, { id: mediaId },
    );
    if (!d.node) return { status: 'FAILED', message: 'The video was removed from the product while it was processed' };
    if (d.node.status === 'READY') return { status: 'READY' };
    if (d.node.status === 'FAILED') {
      const errs = d.node.mediaErrors ?? [];
      return { status: 'FAILED', message: errs.map((m) => (m.details ? `${m.message} (${m.details})` : m.message)).join('; ') };
    }
  }
  throw new PublishFailure('The platform did not finish processing the video in time');
}

const GONE = new Set(['MEDIA_DOES_NOT_EXIST', 'MEDIA_DOES_NOT_EXIST_ON_PRODUCT']);

/** Deletes the media from the product; answers the ids that could not be deleted (tried again next time). */
async function deleteMedia(deps: AppDeps, spaceId: string, productId: string, ids: string[], log: AppDeps['logger']): Promise<string[]> {
  if (ids.length === 0) return [];
  try {
    const d = await shopAdminGraphql<{ productDeleteMedia: { deletedMediaIds: string[] | null; mediaUserErrors: UserErrorLike[] } }>(
      deps, spaceId, DELETE_MEDIA, { productId, mediaIds: ids },
    );
    const errs = d.productDeleteMedia.mediaUserErrors.filter((e) => !GONE.has(e.code ?? ''));
    if (errs.length === 0) return [];
    log.warn({ err: messagesOf(errs) }, 'earlier dub not deleted from the product');
    const deleted = new Set(d.productDeleteMedia.deletedMediaIds ?? []);
    return ids.filter((i) => !deleted.has(i));
  } catch (e) {
    log.warn({ err: e instanceof Error ? e.message : String(e) }, 'earlier dub not deleted from the product');
    return ids;
  }
}

const quoteField = (s: string) => s.replace(/["\r\n\\]/g, '_');

/** POSTs the target's parameters then the file (multipart/form-data), the file streamed from storage. */
async function sendToTarget(deps: AppDeps, target: StagedTarget, key: string, size: number, filename: string): Promise<void> {
  const url = new URL(target.url);
  // The platform's targets are HTTPS; a local stand-in (SHOP_ADMIN_URL) may be plain HTTP.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && deps.config.shop?.adminUrl)) {
    throw new PublishFailure('The platform gave an upload target that is not HTTPS');
  }
  const boundary = `----dubbing-${randomBytes(12).toString('hex')}`;
  let head = '';
  for (const p of target.parameters) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${quoteField(p.name)}"\r\n\r\n${p.value}\r\n`;
  }
  head += `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoteField(filename)}"\r\nContent-Type: video/mp4\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const length = Buffer.byteLength(head) + size + Buffer.byteLength(tail);
  const file = await deps.storage.read(key);
  const body = Readable.from((async function* () {
    yield Buffer.from(head);
    for await (const chunk of file) yield chunk as Buffer;
    yield Buffer.from(tail);
  })());
  const signal = AbortSignal.timeout(publishTiming.uploadTimeoutMs);
  await new Promise<void>((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) },
      signal,
    }, (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (c: Buffer) => {
        if (kept < 4096) chunks.push(c);
        kept += c.length;
      });
      res.on('error', reject);
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return resolve();
        const text = Buffer.concat(chunks).toString('utf8').slice(0, 500);
        const msg = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? text.trim();
        reject(new PublishFailure(`The upload to the platform was refused (HTTP ${status})${msg ? `: ${msg}` : ''}`));
      });
    });
    req.on('error', (e) => reject(signal.aborted ? new PublishFailure('The upload to the platform took too long') : e));
    pipeline(body, req, (err) => {
      if (err) reject(signal.aborted ? new PublishFailure('The upload to the platform took too long') : err);
    });
  });
}
