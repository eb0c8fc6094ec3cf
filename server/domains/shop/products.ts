// Product videos in (issue 32 part 3): the shop Teamspace's products with Video media, through the GraphQL Admin
// API (products, Product.media filtered to videos, shopLocales), and the import of picked videos: each video's
// source is read again from the Admin API (never from the client), downloaded through the link downloader's
// egress guard with only the platform's CDN hosts allowed (SHOP_CDN_HOSTS), stored as an upload of the space,
// and dubbed through the create dialog's service (one video: createTranscript; several: a batch). The product
// each project came from is recorded (shop_project_products).
import { randomUUID } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns/promises';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { ShopImportAnswer, ShopImportRequest, ShopProduct, ShopProductsAnswer } from '../../../contract/schemas/shop';
import type { AppDeps } from '../../deps';
import { languageMeta, baseLanguage, canonicalLanguage } from '../../engines/languages';
import { checkLinkUrl, fetchLink, type EgressOptions } from '../../media/link';
import { MediaError } from '../../media/errors';
import { isPublicAddress } from '../../net/addresses';
import { uploadKey } from '../../storage/index';
import * as batches from '../batches/service';
import { badRequest, conflict, DomainError, notFound } from '../../errors';
import { checkUpload } from '../library/service';
import { deleteMedia, insertMedia } from '../library/repository';
import * as projects from '../projects/service';
import { spaceAccess } from '../spaces/guard';
import type { UserRow } from '../../caller';
import { shopAdminGraphql, ShopAdminError } from './admin';
import * as repo from './repository';

export const PRODUCTS_PAGE = 20;
const MEDIA_PER_PRODUCT = 10;

const VIDEO_FIELDS = `id alt status preview { image { url } } sources { url mimeType format width height }`;

const PRODUCTS_QUERY = `query ShopVideos($first: Int!, $after: String, $query: String) {
  products(first: $first, after: $after, query: $query, sortKey: TITLE) {
    nodes {
      id
      title
      featuredMedia { preview { image { url } } }
      media(first: ${MEDIA_PER_PRODUCT}, query: "media_type:VIDEO") { nodes { mediaContentType ... on Video { ${VIDEO_FIELDS} } } }
    }
    pageInfo { hasNextPage endCursor }
  }
  shopLocales { locale primary published }
}`;

const PRODUCT_QUERY = `query ShopVideo($id: ID!) {
  product(id: $id) {
    id
    title
    media(first: 50, query: "media_type:VIDEO") { nodes { mediaContentType ... on Video { ${VIDEO_FIELDS} } } }
  }
}`;

interface VideoSource { url: string; mimeType: string | null; format: string | null; width: number | null; height: number | null }
interface VideoNode {
  mediaContentType: string;
  id?: string;
  alt?: string | null;
  status?: string;
  preview?: { image?: { url?: string } | null } | null;
  sources?: VideoSource[];
}
interface ProductNode {
  id: string;
  title: string;
  featuredMedia?: { preview?: { image?: { url?: string } | null } | null } | null;
  media: { nodes: VideoNode[] };
}

/** The shop Teamspace the caller may work in (its members only); 404 when the Teamspace is not a shop. */
async function shopSpace(deps: AppDeps, user: UserRow, spaceId: string): Promise<{ spaceId: string; shop: repo.ShopRow }> {
  const space = await spaceAccess(deps.db, user, spaceId);
  if (!deps.config.shop) throw notFound('The embedded app is not configured on this server');
  const shop = await repo.findShopBySpace(deps.db, space.id);
  if (!shop) throw notFound('This Teamspace is not a shop: its products cannot be listed');
  return { spaceId: space.id, shop };
}

/** A ShopAdminError (or a failed Admin API call) as an answer a person can read. */
function adminFailure(e: unknown): never {
  if (e instanceof DomainError) throw e;
  if (e instanceof ShopAdminError) {
    if (e.code === 'not_a_shop') throw notFound(e.message);
    if (e.code === 'not_configured') throw notFound(e.message);
    throw conflict(`The store could not be reached: ${e.message}`);
  }
  const msg = e instanceof Error ? e.message : String(e);
  throw new DomainError('upstream_failed', `The store's Admin API failed: ${msg.slice(0, 300)}`);
}

/** A platform locale ('en', 'pt-BR', 'zh-CN') as our language id, or null when we have no such language. */
export function languageOfLocale(locale: string): string | null {
  const c = canonicalLanguage(locale);
  if (c.ok && languageMeta(c.value)) return c.value;
  const base = baseLanguage(locale.replace('_', '-')).toLowerCase();
  return languageMeta(base) ? base : null;
}

const thumbOf = (n: { preview?: { image?: { url?: string } | null } | null } | null | undefined) => n?.preview?.image?.url ?? null;
const isVideo = (n: VideoNode): n is VideoNode & { id: string } => n.mediaContentType === 'VIDEO' && typeof n.id === 'string';

/** A search box's words as the products query's title filter (quotes and wildcards of the search syntax taken out). */
export function titleQuery(q: string): string | null {
  const words = q.replace(/[^\p{L}\p{N}\s'-]/gu, ' ').split(/\s+/).filter(Boolean).slice(0, 5);
  if (words.length === 0) return null;
  return words.map((w) => `title:*${w.replace(/'/g, '')}*`).join(' AND ');
}

export async function listProducts(
  deps: AppDeps,
  user: UserRow,
  spaceId: string,
  o: { q?: string; after?: string },
): Promise<ShopProductsAnswer> {
  const s = await shopSpace(deps, user, spaceId);
  let data: {
    products: { nodes: ProductNode[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
    shopLocales: Array<{ locale: string; primary: boolean; published: boolean }>;
  };
  try {
    data = await shopAdminGraphql(deps, s.spaceId, PRODUCTS_QUERY, {
      first: PRODUCTS_PAGE,
      after: o.after || null,
      query: o.q ? titleQuery(o.q) : null,
    });
  } catch (e) {
    adminFailure(e);
  }
  const products: ShopProduct[] = [];
  for (const p of data.products.nodes) {
    const videos = p.media.nodes.filter(isVideo).map((m) => {
      const best = bestSource(m.sources ?? []);
      return { id: m.id, alt: m.alt ?? null, status: m.status ?? 'READY', thumbnail: thumbOf(m), width: best?.width ?? null, height: best?.height ?? null };
    });
    if (videos.length === 0) continue;
    products.push({ id: p.id, title: p.title, thumbnail: thumbOf(p.featuredMedia) ?? videos[0]!.thumbnail, videos });
  }
  const locales = data.shopLocales ?? [];
  const primaryLocale = locales.find((l) => l.primary);
  const primary = primaryLocale ? languageOfLocale(primaryLocale.locale) : null;
  const published = [
    ...new Set(locales.filter((l) => l.published && !l.primary).map((l) => languageOfLocale(l.locale)).filter((l): l is string => !!l && l !== primary)),
  ];
  return {
    products,
    next: data.products.pageInfo.hasNextPage ? data.products.pageInfo.endCursor : null,
    locales: { primary, published },
  };
}

/** The rendition to download: an MP4 up to 1080 lines high, the largest such; else the smallest of the others. */
function bestSource(sources: VideoSource[]): VideoSource | null {
  const mp4 = sources.filter((s) => (s.format ?? '').toLowerCase() === 'mp4' || (s.mimeType ?? '').toLowerCase() === 'video/mp4');
  const fit = mp4.filter((s) => (s.height ?? 0) <= 1080).sort((a, b) => (b.height ?? 0) - (a.height ?? 0));
  if (fit[0]) return fit[0];
  const rest = [...(mp4.length ? mp4 : sources)].filter((s) => !/m3u8|mpegurl/i.test(`${s.format} ${s.mimeType}`));
  return rest.sort((a, b) => (a.height ?? 0) - (b.height ?? 0))[0] ?? null;
}

/**
 * The egress rule of a product video download: every host the download reaches (the first and each redirect) must
 * be one of SHOP_CDN_HOSTS and resolve to public addresses; a host given as an IP address in SHOP_CDN_HOSTS (a
 * local stand-in in tests) is reached as it is.
 */
export function shopCdnEgress(hosts: readonly string[], lookup?: (host: string) => Promise<string[]>): EgressOptions {
  const literal = new Set(hosts.filter((h) => isIP(h.replace(/^\[|\]$/g, ''))).map((h) => h.replace(/^\[|\]$/g, '')));
  const names = new Set(hosts.filter((h) => !isIP(h.replace(/^\[|\]$/g, ''))));
  const resolved = new Set<string>();
  const resolve = lookup ?? (async (host: string) => (await dnsLookup(host, { all: true })).map((a) => a.address));
  return {
    lookup: async (host) => {
      if (!names.has(host.toLowerCase())) throw new Error(`${host} is not a CDN host of the store`);
      const addrs = await resolve(host);
      for (const a of addrs) if (isPublicAddress(a)) resolved.add(a);
      return addrs;
    },
    allowAddress: (ip) => literal.has(ip) || (resolved.has(ip) && isPublicAddress(ip)),
  };
}

/** Refuses a source URL whose host is not one of the CDN hosts (before any download). */
function checkCdnUrl(url: string, hosts: readonly string[]): void {
  const u = checkLinkUrl(url);
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!hosts.includes(host)) {
    throw new MediaError('forbidden_link', `The video is not on the store's CDN (${u.hostname} is not in SHOP_CDN_HOSTS)`);
  }
}

interface Picked { productId: string; productTitle: string; mediaId: string; alt: string | null; url: string }

/** Reads the picked video from the Admin API: the product must hold it, and it must be READY with a source. */
async function pickedVideo(deps: AppDeps, spaceId: string, productId: string, mediaId: string): Promise<Picked> {
  let data: { product: (ProductNode & { featuredMedia?: undefined }) | null };
  try {
    data = await shopAdminGraphql(deps, spaceId, PRODUCT_QUERY, { id: productId });
  } catch (e) {
    adminFailure(e);
  }
  if (!data.product) throw notFound(`Product ${productId} not found in the store`);
  const video = data.product.media.nodes.filter(isVideo).find((m) => m.id === mediaId);
  if (!video) throw notFound(`The product "${data.product.title}" has no video ${mediaId}`);
  if (video.status && video.status !== 'READY') {
    throw badRequest(`The video of "${data.product.title}" is not ready in the store yet (${video.status.toLowerCase()})`);
  }
  const src = bestSource(video.sources ?? []);
  if (!src) throw badRequest(`The video of "${data.product.title}" has no downloadable MP4`);
  return { productId: data.product.id, productTitle: data.product.title, mediaId: video.id, alt: video.alt ?? null, url: src.url };
}

/** Downloads one picked video into the space's uploads; returns the upload's id (checked like an upload). */
async function downloadToUpload(deps: AppDeps, user: UserRow, spaceId: string, v: Picked): Promise<string> {
  const cfg = deps.config.shop!;
  const limits = deps.config.limits;
  const dir = await mkdtemp(join(tmpdir(), 'shop-video-'));
  try {
    let path: string;
    try {
      checkCdnUrl(v.url, cfg.cdnHosts);
      path = await fetchLink(v.url, dir, {
        ...shopCdnEgress(cfg.cdnHosts),
        maxDurationSec: limits.maxVideoDuration,
        maxFilesizeBytes: limits.maxVideoSize,
        baseName: 'source',
        timeoutMs: 10 * 60_000,
      });
    } catch (e) {
      if (e instanceof MediaError) throw badRequest(`"${v.productTitle}": ${e.message}`);
      throw e;
    }
    const id = randomUUID();
    const ext = (basename(path).split('.').pop() ?? 'mp4').replace(/[^a-z0-9]/gi, '') || 'mp4';
    const filename = `${v.productTitle}`.replace(/[\\/:*?"<>|]+/g, ' ').trim().slice(0, 200) + `.${ext}`;
    const key = uploadKey(id, filename);
    const size = (await stat(path)).size;
    await insertMedia(deps.db, {
      id, spaceId, userId: user.id, kind: 'video', filename, contentType: 'video/mp4', sizeBytes: size, storageKey: key, via: 'multipart',
    });
    try {
      await deps.storage.putFile(key, path, { move: true });
    } catch (e) {
      await deps.storage.deletePrefix(`uploads/${id}/`).catch(() => {});
      await deleteMedia(deps.db, id);
      throw e;
    }
    const row = await checkUpload(deps, id);
    if (!row || row.status !== 'uploaded') throw badRequest(`"${v.productTitle}": ${row?.error ?? 'the video could not be read'}`);
    return id;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Imports the picked videos: all are checked against the store first (a wrong pick refuses the whole request,
 * nothing downloaded), then downloaded one at a time, then dubbed: one video as one project (the create dialog's
 * createTranscript), several as a batch (its minutes checked for the whole batch).
 */
export async function importProducts(deps: AppDeps, user: UserRow, spaceId: string, body: ShopImportRequest): Promise<ShopImportAnswer> {
  const s = await shopSpace(deps, user, spaceId);
  const seen = new Set<string>();
  const picked: Picked[] = [];
  for (const it of body.items) {
    if (seen.has(it.media_id)) continue;
    seen.add(it.media_id);
    picked.push(await pickedVideo(deps, s.spaceId, it.product_id, it.media_id));
  }
  const src = projects.languageTag(body.src_lang);
  const dst = [...new Set(body.dst_langs.map(projects.languageTag))];
  if (dst.includes(src)) throw badRequest('The source and target languages must be different');
  // An unsupported pair is refused before anything is downloaded.
  for (const d of dst) await projects.checkLanguages(deps.engines, { src, dst: d, srcSrt: false, dstSrt: false });
  const uploads: string[] = [];
  try {
    for (const v of picked) uploads.push(await downloadToUpload(deps, user, s.spaceId, v));
    return await createAndLink(deps, user, s, picked, uploads, src, dst);
  } catch (e) {
    // Refused (minutes, languages, a later video): none of the downloaded uploads is kept.
    for (const id of uploads) await dropUpload(deps, id);
    throw e;
  }
}

async function dropUpload(deps: AppDeps, id: string): Promise<void> {
  if (await repo.mediaUsedByProject(deps.db, id)) return;
  await deps.storage.deletePrefix(`uploads/${id}/`).catch(() => {});
  await deleteMedia(deps.db, id);
}

async function createAndLink(
  deps: AppDeps,
  user: UserRow,
  s: { spaceId: string; shop: repo.ShopRow },
  picked: Picked[],
  uploads: string[],
  src: string,
  dst: string[],
): Promise<ShopImportAnswer> {
  const name = (v: Picked) => (v.alt && v.alt.trim() ? v.alt.trim() : v.productTitle).slice(0, 255);

  const made: Array<{ v: Picked; projectId: string }> = [];
  let batchId: string | null = null;
  if (picked.length === 1) {
    const v = picked[0]!;
    const p = await projects.createTranscript(deps, user, s.spaceId, { name: name(v), src_lang: src, dst_langs: dst, media_id: uploads[0]! });
    made.push({ v, projectId: p.id });
  } else {
    const b = await batches.createBatch(deps, user, s.spaceId, {
      name: `From the store: ${picked.length} videos`,
      src_lang: src,
      dst_langs: dst,
      items: picked.map((v, i) => ({ name: name(v), media_id: uploads[i]! })),
    });
    batchId = b.id;
    for (const [i, item] of b.items.entries()) if (item.project_id) made.push({ v: picked[i]!, projectId: item.project_id });
    if (made.length === 0) throw badRequest(b.items.map((i) => `${i.name}: ${i.error ?? 'not created'}`).join('; '));
  }
  for (const m of made) {
    await repo.linkProjectProduct(deps.db, {
      projectId: m.projectId, domain: s.shop.domain, productId: m.v.productId, productTitle: m.v.productTitle, mediaId: m.v.mediaId,
    });
  }
  return { projects: made.map((m) => ({ product_id: m.v.productId, media_id: m.v.mediaId, project_id: m.projectId })), batch_id: batchId };
}
