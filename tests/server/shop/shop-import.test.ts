// Issue 32 part 3, product videos in: the shop Teamspace lists its products with videos (search, pages, the shop's
// locales) through the Admin API stand-in, and imports picked videos: downloaded from the CDN through the link
// downloader's egress guard (only SHOP_CDN_HOSTS), made dub projects (several: a batch), linked to their product.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeShopAdmin, type FakeMedia } from '../../fakes/shop-admin';
import { installShopProducts, type ShopProductsFake } from '../../fakes/shop-products';
import { loadConfig } from '../../../server/config';
import * as ledger from '../../../server/domains/billing/ledger';
import { languageOfLocale, shopCdnEgress, titleQuery } from '../../../server/domains/shop/products';
import { productOfProject } from '../../../server/domains/shop/repository';
import { createHarness, type Harness } from '../harness';
import { api, signUpAndCreate } from '../helpers';
import { shopStaff } from './shop-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

const KEY = 'shop-app-key-import';
const SECRET = 'shop-app-secret-import-abcdefghijklmnop';
const A = 'alpha-import.myshopify.com';
const B = 'beta-import.myshopify.com';

let h: Harness;
let fake: FakeShopAdmin;
let ext: ShopProductsFake;
let videoDir: string;
let videoSha: string;
let spaceA: string;
let owner: { token: string; id: string };

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function video(id: number, o: { url?: string; status?: FakeMedia['status'] } = {}): FakeMedia {
  return {
    id: `gid://shopify/Video/${id}`,
    mediaContentType: 'VIDEO',
    status: o.status ?? 'READY',
    alt: `Video ${id}`,
    sources: [
      { url: o.url ?? ext.cdnUrl('clip.mp4'), mimeType: 'video/mp4', format: 'mp4', width: 160, height: 120 },
      { url: `${fake.url}/cdn/clip.m3u8`, mimeType: 'application/x-mpegURL', format: 'm3u8', width: 160, height: 120 },
    ],
    preview: `${fake.url}/cdn/preview-${id}.jpg`,
  };
}
const image = (id: number): FakeMedia => ({ id: `gid://shopify/MediaImage/${id}`, mediaContentType: 'IMAGE', status: 'READY', alt: '', sources: [], preview: `${fake.url}/cdn/img-${id}.jpg` });

const staff = (shop: string, sub: string) => shopStaff(h, { key: KEY, secret: SECRET }, shop, sub);
const spaceOf = async (domain: string) => (await h.deps.db.one<{ space_id: string }>(`SELECT space_id FROM shops WHERE domain = $1`, [domain])).space_id;

/** GET /api/shop/products of shop A's Teamspace (by `token`, default the owner). */
const products = (query: { q?: string; after?: string } = {}, token = owner.token, spaceId = spaceA) =>
  typedClient(h, token).GET('/api/shop/products', { params: { query: { space_id: spaceId, ...query } } });
type ImportBody = { items: Array<{ product_id: string; media_id: string }>; src_lang: string; dst_langs: string[] };
/** POST /api/shop/import into shop A's Teamspace (by `token`, default the owner). */
const importVideos = (body: ImportBody, token = owner.token) =>
  typedClient(h, token).POST('/api/shop/import', { params: { query: { space_id: spaceA } }, body });

beforeAll(async () => {
  videoDir = mkdtempSync(join(tmpdir(), 'shop-cdn-'));
  // A real small MP4 (picture and sound), made now: no media is committed.
  execFileSync('ffmpeg', [
    '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=160x120:rate=10', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=16000',
    '-t', '2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', join(videoDir, 'clip.mp4'),
  ]);
  videoSha = sha(readFileSync(join(videoDir, 'clip.mp4')));
  fake = await new FakeShopAdmin(KEY, SECRET).addShop(A, 'Alpha Import').addShop(B, 'Beta Import').start();
  ext = installShopProducts(fake, { videoDir });
  ext.locales.set(A, [
    { locale: 'fr', primary: true, published: true },
    { locale: 'en', primary: false, published: true },
    { locale: 'pt-BR', primary: false, published: true },
    { locale: 'it', primary: false, published: false },
  ]);
  fake.addProduct(A, { id: 'gid://shopify/Product/1', title: 'Rain Jacket', handle: 'rain-jacket', media: [image(1), video(11)] });
  fake.addProduct(A, { id: 'gid://shopify/Product/2', title: 'Wool Hat', handle: 'wool-hat', media: [image(2)] });
  fake.addProduct(A, { id: 'gid://shopify/Product/3', title: 'Trail Shoes', handle: 'trail-shoes', media: [video(31)] });
  for (let i = 0; i < 22; i++) {
    const n = 100 + i;
    fake.addProduct(A, { id: `gid://shopify/Product/${n}`, title: `Zz Sock ${String(i).padStart(2, '0')}`, handle: `sock-${i}`, media: [video(n * 10)] });
  }
  h = await createHarness({
    EMBED_APP_KEY: KEY,
    EMBED_APP_SECRET: SECRET,
    EMBED_ADMIN_ORIGINS: 'https://admin.example.com',
    SHOP_ADMIN_URL: fake.url,
    SHOP_TOKEN_KEY: 'b'.repeat(64),
    // The stand-in's CDN is on 127.0.0.1: allowed by the configuration, the guard stays on.
    SHOP_CDN_HOSTS: '127.0.0.1',
  });
  owner = await staff(A, '9001');
  spaceA = await spaceOf(A);
  await grantPlan(h, owner.id, 'business');
});
afterAll(async () => {
  await h?.close();
  await fake?.close();
  if (videoDir) rmSync(videoDir, { recursive: true, force: true });
});
beforeEach(() => {
  expect(fake.violations()).toEqual([]);
});

describe('listing the store videos', () => {
  it("lists the shop's products with videos, with thumbnails and the shop's locales as our languages", async () => {
    const r = await products();
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const page = r.data!;
    const titles = page.products.map((p) => p.title);
    expect(titles.slice(0, 2)).toEqual(['Rain Jacket', 'Trail Shoes']);
    expect(titles).not.toContain('Wool Hat'); // no video
    const jacket = page.products[0]!;
    expect(jacket.videos.map((v) => v.id)).toEqual(['gid://shopify/Video/11']); // the image is not offered
    expect(jacket.thumbnail).toBe(`${fake.url}/cdn/img-1.jpg`);
    expect(jacket.videos[0]!.thumbnail).toBe(`${fake.url}/cdn/preview-11.jpg`);
    expect(page.locales).toEqual({ primary: 'fr', published: ['en', 'pt-BR'] });
  });

  it('searches by title', async () => {
    const r = await products({ q: 'jack' });
    expect(r.response.status).toBe(200);
    expect(r.data!.products.map((p) => p.title)).toEqual(['Rain Jacket']);
    const none = await products({ q: 'nothing-like-this' });
    expect(none.data!.products).toEqual([]);
    expect(none.data!.next).toBeNull();
  });

  it('pages through the catalogue', async () => {
    const seen: string[] = [];
    let after: string | null = null;
    let pages = 0;
    do {
      const r = await products(after ? { after } : {});
      expect(r.response.status).toBe(200);
      const page = r.data!;
      seen.push(...page.products.map((p) => p.title));
      after = page.next;
      pages++;
    } while (after && pages < 5);
    expect(pages).toBe(2);
    expect(seen.length).toBe(24); // every product with a video, once
    expect(new Set(seen).size).toBe(24);
    const bad = await products({ after: 'bogus' });
    expect(bad.response.status).toBe(502);
    expect(JSON.stringify(bad.error)).toContain('Invalid cursor');
  });

  it("refuses another shop's staff, and a Teamspace that is not a shop", async () => {
    const other = await staff(B, '9101');
    const r = await products({}, other.token);
    expect([403, 404]).toContain(r.response.status);
    const imp = await importVideos({ items: [{ product_id: 'gid://shopify/Product/1', media_id: 'gid://shopify/Video/11' }], src_lang: 'fr', dst_langs: ['en'] }, other.token);
    expect([403, 404]).toContain(imp.response.status);

    const plain = await signUpAndCreate(h, 'plain-import@example.com');
    const own = await typedClient(h, plain.token).GET('/api/space/list');
    const ownId = own.data![0]!.id;
    const notShop = await products({}, plain.token, ownId);
    expect(notShop.response.status).toBe(404);
    expect(JSON.stringify(notShop.error)).toContain('not a shop');
    // Untyped: without the space_id the types require.
    const noSpace = await api(h, 'GET', `/api/shop/products`, { token: owner.token });
    expect(noSpace.status).toBe(422);
  });
});

describe('importing store videos', () => {
  it("imports a picked video: the project's video is the product's, and the product is linked", async () => {
    const r = await importVideos({ items: [{ product_id: 'gid://shopify/Product/1', media_id: 'gid://shopify/Video/11' }], src_lang: 'en', dst_langs: ['es'] });
    expect(r.response.status, JSON.stringify(r.error)).toBe(201);
    const made = r.data!;
    expect(made.batch_id).toBeNull();
    expect(made.projects).toHaveLength(1);
    const pid = made.projects[0]!.project_id;
    const p = await typedClient(h, owner.token).GET('/api/project/{id}', { params: { path: { id: pid } } });
    expect(p.response.status).toBe(200);
    expect(p.data).toMatchObject({ src_lang: 'en', dst_lang: 'es', name: 'Video 11' });
    // The project's upload is the very file the CDN served.
    const row = await h.deps.db.one<{ storage_key: string; space_id: string; status: string }>(
      `SELECT m.storage_key, m.space_id, m.status FROM projects p JOIN media_uploads m ON m.id = p.media_id WHERE p.id = $1`,
      [pid],
    );
    expect(row.space_id).toBe(spaceA);
    expect(row.status).toBe('uploaded');
    expect(sha(await h.deps.storage.getBuffer(row.storage_key))).toBe(videoSha);
    expect(await productOfProject(h.deps.db, pid)).toMatchObject({
      domain: A, product_id: 'gid://shopify/Product/1', product_title: 'Rain Jacket', media_id: 'gid://shopify/Video/11',
    });
    // The CDN was reached (through the guard's proxy), the mp4 rendition only.
    expect(fake.requestsTo('GET', '/cdn/clip.mp4').length).toBeGreaterThan(0);
    expect(fake.requestsTo('GET', '/cdn/clip.m3u8')).toHaveLength(0);
  });

  it('imports several picked videos as one batch (its minutes checked first), each project linked to its product', async () => {
    const body = {
      items: [
        { product_id: 'gid://shopify/Product/3', media_id: 'gid://shopify/Video/31' },
        { product_id: 'gid://shopify/Product/100', media_id: 'gid://shopify/Video/1000' },
      ],
      src_lang: 'en', dst_langs: ['es', 'ca'],
    };
    const uploads = async () => (await h.deps.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM media_uploads WHERE space_id = $1`, [spaceA])).n;
    const before = await uploads();
    // The trial's minutes do not cover 2 videos x 2 languages: refused, and nothing downloaded is kept.
    const short = await importVideos(body);
    expect(short.response.status).toBe(402);
    expect(JSON.stringify(short.error)).toContain('Not enough minutes');
    expect(await uploads()).toBe(before);
    await ledger.post(h.deps.db, { spaceId: spaceA, kind: 'grant', minutes: 10, ref: 'test-import-grant', userId: owner.id, note: 'test' });
    const r = await importVideos(body);
    expect(r.response.status, JSON.stringify(r.error)).toBe(201);
    const made = r.data!;
    expect(made.batch_id).toBeTruthy();
    expect(made.projects.map((p) => p.product_id)).toEqual(['gid://shopify/Product/3', 'gid://shopify/Product/100']);
    const b = await typedClient(h, owner.token).GET('/api/batch/{id}', { params: { path: { id: made.batch_id! } } });
    expect(b.response.status).toBe(200);
    expect(b.data!.items.map((i) => i.project_id)).toEqual(made.projects.map((p) => p.project_id));
    for (const m of made.projects) expect((await productOfProject(h.deps.db, m.project_id))?.product_id).toBe(m.product_id);
  });

  it('refuses a video the product does not hold, or a product of another shop', async () => {
    const wrong = await importVideos({ items: [{ product_id: 'gid://shopify/Product/1', media_id: 'gid://shopify/Video/31' }], src_lang: 'en', dst_langs: ['es'] });
    expect(wrong.response.status).toBe(404);
    expect(JSON.stringify(wrong.error)).toContain('has no video');
    fake.addProduct(B, { id: 'gid://shopify/Product/900', title: 'Beta Bike', handle: 'bike', media: [video(9001)] });
    const foreign = await importVideos({ items: [{ product_id: 'gid://shopify/Product/900', media_id: 'gid://shopify/Video/9001' }], src_lang: 'en', dst_langs: ['es'] });
    expect(foreign.response.status).toBe(404);
    const bad = await importVideos({ items: [], src_lang: 'en', dst_langs: ['es'] });
    expect(bad.response.status).toBe(422);
    // An unsupported pair: refused before any download.
    const cdnCalls = fake.requestsTo('GET', '/cdn/clip.mp4').length;
    const pair = await importVideos({ items: [{ product_id: 'gid://shopify/Product/1', media_id: 'gid://shopify/Video/11' }], src_lang: 'fr', dst_langs: ['en'] });
    expect(pair.response.status).toBe(400);
    expect(JSON.stringify(pair.error)).toContain('Unsupported language pair');
    expect(fake.requestsTo('GET', '/cdn/clip.mp4').length).toBe(cdnCalls);
  });

  it('refuses a source on a host the configuration does not allow, before or after a redirect (the egress guard)', async () => {
    const port = new URL(fake.url).port;
    fake.addProduct(A, { id: 'gid://shopify/Product/50', title: 'Off CDN', handle: 'off', media: [video(50, { url: `http://localhost:${port}/cdn/clip.mp4` })] });
    const before = fake.requestsTo('GET', '/cdn/clip.mp4').length;
    const off = await importVideos({ items: [{ product_id: 'gid://shopify/Product/50', media_id: 'gid://shopify/Video/50' }], src_lang: 'en', dst_langs: ['es'] });
    expect(off.response.status).toBe(400);
    expect(JSON.stringify(off.error)).toContain("not on the store's CDN");

    // On the CDN, but redirected to a host that is not: the guard refuses the second hop.
    ext.redirects.set('clip.mp4', `http://localhost:${port}/cdn/clip.mp4`);
    fake.addProduct(A, { id: 'gid://shopify/Product/51', title: 'Redirected', handle: 'redir', media: [video(51, { url: `${fake.url}/cdn-redirect/clip.mp4` })] });
    const redir = await importVideos({ items: [{ product_id: 'gid://shopify/Product/51', media_id: 'gid://shopify/Video/51' }], src_lang: 'en', dst_langs: ['es'] });
    expect(redir.response.status, JSON.stringify(redir.error)).toBe(400);
    expect(JSON.stringify(redir.error)).toContain(`localhost:${port}`);
    expect(fake.requestsTo('GET', '/cdn-redirect/clip.mp4').length).toBeGreaterThan(0);
    expect(fake.requestsTo('GET', '/cdn/clip.mp4').length).toBe(before); // never fetched from the refused host
    expect(await h.deps.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM shop_project_products WHERE product_id IN ('gid://shopify/Product/50', 'gid://shopify/Product/51')`)).toEqual({ n: 0 });
  });
});

describe('the pieces', () => {
  it('defaults SHOP_CDN_HOSTS to the platform CDN, and the egress rule allows only resolved CDN addresses', async () => {
    const c = loadConfig({ JWT_SECRET: 'x'.repeat(40), DATA_DIR: tmpdir(), EMBED_APP_KEY: KEY, EMBED_APP_SECRET: SECRET, EMBED_ADMIN_ORIGINS: 'https://admin.example.com' });
    expect(c.shop?.cdnHosts).toEqual(['cdn.shopify.com']);
    const e = shopCdnEgress(['cdn.shopify.com'], async (host) => (host === 'cdn.shopify.com' ? ['23.227.38.1'] : ['10.0.0.1']));
    expect(e.allowAddress!('23.227.38.1', 443)).toBe(false); // not resolved through a CDN host yet
    expect(await e.lookup!('cdn.shopify.com')).toEqual(['23.227.38.1']);
    expect(e.allowAddress!('23.227.38.1', 443)).toBe(true);
    await expect(e.lookup!('evil.example')).rejects.toThrow(/not a CDN host/);
    expect(e.allowAddress!('127.0.0.1', 80)).toBe(false);
    expect(languageOfLocale('pt-BR')).toBe('pt-BR');
    expect(languageOfLocale('en')).toBe('en');
    expect(languageOfLocale('xx-YY')).toBeNull();
    expect(titleQuery('rain "jacket"*')).toBe('title:*rain* AND title:*jacket*');
  });
});
