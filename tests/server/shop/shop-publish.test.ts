// Issue 32, part 4: dubbed videos back to the shop. POST /api/shop/publish uploads a language's dubbed MP4 through a
// staged upload (stagedUploadsCreate, multipart POST to the target), attaches it with productCreateMedia, polls it
// until READY or FAILED; publishing again replaces the earlier dub of that language; the platform's errors are shown
// as they are; only editors of the shop's Teamspace may publish.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeShopAdmin } from '../../fakes/shop-admin';
import { installShopFiles, type ShopFiles } from '../../fakes/shop-files';
import { publishIdle, publishTiming } from '../../../server/domains/shop/publish';
import { linkProjectProduct } from '../../../server/domains/shop/repository';
import { projectKey } from '../../../server/storage/index';
import { createHarness, type Harness } from '../harness';
import { signUpAndCreate } from '../helpers';
import { shopStaff } from './shop-fixtures';
import { typedClient } from '../typed-client';

const KEY = 'shop-app-key-pub1';
const SECRET = 'shop-app-secret-publish-abcdefghijk';
const A = 'alpha-shop.myshopify.com';
const B = 'beta-shop.myshopify.com';
const P1 = 'gid://shopify/Product/101';
const P2 = 'gid://shopify/Product/102';

let h: Harness;
let fake: FakeShopAdmin;
let files: ShopFiles;
const saved = { ...publishTiming };


const me = (shop: string, sub: string) => shopStaff(h, { key: KEY, secret: SECRET }, shop, sub);

const VIDEO_ES = Buffer.alloc(256 * 1024 + 17, 0x45); // not a multiple of any chunk size
const VIDEO_DE = Buffer.alloc(70_001, 0x44);

async function dubbedProject(spaceId: string, userId: string, dst: string, bytes: Buffer, copiedFrom: string | null = null): Promise<string> {
  const r = await h.deps.db.one<{ id: string }>(
    `INSERT INTO projects (space_id, user_id, name, src_lang, dst_lang, status, copied_from) VALUES ($1, $2, 'Trail shoe video', 'en', $3, 'merging_done', $4) RETURNING id`,
    [spaceId, userId, dst, copiedFrom],
  );
  const key = projectKey(r.id, `translated_${dst}.mp4`);
  await h.deps.storage.putBuffer(key, bytes);
  await h.deps.db.query(`UPDATE projects SET translated_video = $2 WHERE id = $1`, [r.id, key]);
  return r.id;
}

type PublishBody = { project_id: string; language: string; product_id?: string };
/** GET /api/shop/publish: the project's publications. */
const listPublications = (token: string, projectId: string) => typedClient(h, token).GET('/api/shop/publish', { params: { query: { project_id: projectId } } });
/** POST /api/shop/publish. */
const publish = (token: string, body: PublishBody) => typedClient(h, token).POST('/api/shop/publish', { body });
/** GET /api/shop/publish/products of a Teamspace. */
const shopProducts = (token: string, spaceId: string, q?: string) =>
  typedClient(h, token).GET('/api/shop/publish/products', { params: { query: { space_id: spaceId, ...(q === undefined ? {} : { q }) } } });
async function publications(token: string, projectId: string) {
  const r = await listPublications(token, projectId);
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  return r.data!;
}
async function publishAndSettle(token: string, body: PublishBody) {
  const r = await publish(token, body);
  expect(r.response.status, JSON.stringify(r.error)).toBe(202);
  expect(r.data!.state).toBe('uploading');
  await publishIdle(h.deps);
  const list = await publications(token, body.project_id);
  return list.publications.find((p) => p.id === r.data!.id)!;
}
const videosOf = (productId: string) => fake.product(A, productId)!.media.filter((m) => m.mediaContentType === 'VIDEO');

let owner: { token: string; id: string };
let editor: { token: string; id: string };
let spaceA: string;
let root: string;
let german: string;

beforeAll(async () => {
  Object.assign(publishTiming, { pollFirstMs: 1, pollMaxMs: 4 });
  fake = await new FakeShopAdmin(KEY, SECRET).addShop(A, 'Alpha Outfitters').addShop(B, 'Beta Bikes').start();
  files = installShopFiles(fake);
  fake.addProduct(A, { id: P1, title: 'Trail Shoe', handle: 'trail-shoe', media: [] });
  fake.addProduct(A, { id: P2, title: 'Rain Jacket', handle: 'rain-jacket', media: [] });
  h = await createHarness({
    EMBED_APP_KEY: KEY,
    EMBED_APP_SECRET: SECRET,
    EMBED_ADMIN_ORIGINS: 'https://admin.example.com',
    SHOP_ADMIN_URL: fake.url,
    SHOP_TOKEN_KEY: 'b'.repeat(64),
  });
  owner = await me(A, '501');
  editor = await me(A, '502');
  spaceA = (await h.deps.db.one<{ space_id: string }>(`SELECT space_id FROM shops WHERE domain = $1`, [A])).space_id;
  root = await dubbedProject(spaceA, owner.id, 'es', VIDEO_ES);
  german = await dubbedProject(spaceA, owner.id, 'de', VIDEO_DE, root);
  await linkProjectProduct(h.deps.db, { projectId: root, domain: A, productId: P1, productTitle: 'Trail Shoe', mediaId: null });
});
afterAll(async () => {
  await publishIdle(h.deps);
  Object.assign(publishTiming, saved);
  await h?.close();
  await fake?.close();
});
beforeEach(() => {
  expect(fake.violations()).toEqual([]);
});

describe('publish a dub to its product', () => {
  it('uploads to the staged target with its parameters, attaches the video with alt text in the language, and ends ready', async () => {
    const pub = await publishAndSettle(editor.token, { project_id: root, language: 'es' });
    expect(pub).toMatchObject({ state: 'ready', error: null, language: 'es', product_id: P1, product_title: 'Trail Shoe', project_id: root });

    const stage = fake.requestsTo('POST', /graphql\.json$/).find((r) => /stagedUploadsCreate/.test(String((r.json as { query: string }).query)))!;
    expect((stage.json as { variables: unknown }).variables).toEqual({
      input: [{ resource: 'VIDEO', filename: 'Trail_shoe_video_es.mp4', mimeType: 'video/mp4', fileSize: String(VIDEO_ES.length), httpMethod: 'POST' }],
    });
    const ups = [...files.uploads.values()];
    expect(ups).toHaveLength(1);
    const up = ups[0]!;
    // Every parameter came back as it was given, and the file arrived whole.
    for (const p of up.parameters) expect(up.fields[p.name]).toBe(p.value);
    expect(up.data?.equals(VIDEO_ES)).toBe(true);
    const target = fake.requestsTo('POST', `/staged/${up.id}`)[0]!;
    expect(target.headers['content-length']).toBe(String(target.body.length));
    expect(target.multipart!.files[0]).toMatchObject({ field: 'file', filename: 'Trail_shoe_video_es.mp4', contentType: 'video/mp4' });

    const create = fake.requestsTo('POST', /graphql\.json$/).find((r) => /productCreateMedia/.test(String((r.json as { query: string }).query)))!;
    expect((create.json as { variables: unknown }).variables).toEqual({
      productId: P1,
      media: [{ originalSource: up.resourceUrl, mediaContentType: 'VIDEO', alt: 'Trail Shoe (español)' }],
    });
    const videos = videosOf(P1);
    expect(videos).toHaveLength(1);
    expect(videos[0]).toMatchObject({ id: pub.media_id, status: 'READY', alt: 'Trail Shoe (español)' });
    // It was polled until READY.
    expect(files.polls.get(pub.media_id!)).toBe(files.readyAfterPolls);
  });

  it('publishing the same language again replaces the earlier dub: one video per language on the product', async () => {
    const before = videosOf(P1).map((m) => m.id);
    expect(before).toHaveLength(1);
    const again = await publishAndSettle(owner.token, { project_id: root, language: 'es' });
    expect(again.state).toBe('ready');
    expect(again.media_id).not.toBe(before[0]);
    expect(videosOf(P1).map((m) => m.id)).toEqual([again.media_id]);
    expect(files.deleted).toContain(before[0]);

    // Another language of the same video (a language project) goes beside it, from the language's own page too.
    const de = await publishAndSettle(editor.token, { project_id: german, language: 'de' });
    expect(de).toMatchObject({ state: 'ready', project_id: german, product_id: P1 });
    expect(videosOf(P1).map((m) => m.alt).sort()).toEqual(['Trail Shoe (Deutsch)', 'Trail Shoe (español)']);
    const list = await publications(editor.token, root);
    expect(list.origin_product).toEqual({ id: P1, title: 'Trail Shoe' });
    expect(list).toMatchObject({ shop: true, can_publish: true });
    expect(list.publications.map((p) => [p.language, p.state]).sort()).toEqual([['de', 'ready'], ['es', 'ready']]);
  });

  it('publishes to another product of the shop, chosen from the product list', async () => {
    const r = await shopProducts(editor.token, spaceA, 'rain');
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.products.map((p) => p.title)).toEqual(['Rain Jacket']);
    const pub = await publishAndSettle(editor.token, { project_id: root, language: 'es', product_id: P2 });
    expect(pub).toMatchObject({ state: 'ready', product_id: P2, product_title: 'Rain Jacket' });
    expect(videosOf(P2).map((m) => m.alt)).toEqual(['Rain Jacket (español)']);
    // The first product keeps its dub.
    expect(videosOf(P1)).toHaveLength(2);
  });

  it("shows the platform's errors as they are; the earlier dub stays while a new one fails", async () => {
    const kept = videosOf(P1).find((m) => m.alt.endsWith('(español)'))!.id;

    files.nextCreateErrors = [{ field: ['media'], message: 'Exceeded the limit of media per product', code: 'PRODUCT_MEDIA_LIMIT_EXCEEDED' }];
    let pub = await publishAndSettle(editor.token, { project_id: root, language: 'es' });
    expect(pub).toMatchObject({ state: 'failed', error: 'Exceeded the limit of media per product', media_id: null });

    files.nextStageErrors = [{ field: ['input', '0', 'fileSize'], message: 'File size exceeds the plan limit of 1 GB' }];
    pub = await publishAndSettle(editor.token, { project_id: root, language: 'es' });
    expect(pub).toMatchObject({ state: 'failed', error: 'File size exceeds the plan limit of 1 GB' });

    files.nextProcessingFailure = { code: 'VIDEO_VALIDATION_ERROR', message: 'Video is too long', details: 'at most 10 minutes' };
    pub = await publishAndSettle(editor.token, { project_id: root, language: 'es' });
    expect(pub.state).toBe('failed');
    expect(pub.error).toBe('Video is too long (at most 10 minutes)');
    expect(pub.media_id).toBeTruthy();
    // The ready dub is still on the product (with the failed media beside it until the next success).
    expect(videosOf(P1).map((m) => m.id)).toContain(kept);

    // The next success removes both the earlier dub and the failed media: one video for the language again.
    const ok = await publishAndSettle(editor.token, { project_id: root, language: 'es' });
    expect(ok.state).toBe('ready');
    const es = videosOf(P1).filter((m) => m.alt.endsWith('(español)'));
    expect(es.map((m) => m.id)).toEqual([ok.media_id]);
  });

  it('refuses a second publication of the same language while one is in flight (409)', async () => {
    const release = files.hold();
    try {
      const first = await publish(editor.token, { project_id: german, language: 'de' });
      expect(first.response.status).toBe(202);
      const second = await publish(owner.token, { project_id: german, language: 'de' });
      expect(second.response.status).toBe(409);
      const list = await publications(editor.token, root);
      expect(list.publications.find((p) => p.language === 'de')?.state).toBe('uploading');
    } finally {
      release();
    }
    await publishIdle(h.deps);
    expect((await publications(editor.token, root)).publications.find((p) => p.language === 'de')?.state).toBe('ready');
    expect(videosOf(P1).filter((m) => m.alt.endsWith('(Deutsch)'))).toHaveLength(1);
  });
});

describe('a publication interrupted by a restart', () => {
  it('shows as failed once its heartbeat is old, and can be published again', async () => {
    const row = await h.deps.db.one<{ id: string }>(
      `UPDATE shop_publications SET state = 'processing', updated_at = now() - interval '1 hour' WHERE language = 'de' AND product_id = $1 RETURNING id`,
      [P1],
    );
    const list = await publications(editor.token, root);
    expect(list.publications.find((p) => p.id === row.id)).toMatchObject({ state: 'failed', error: 'The publication was interrupted (the server restarted): publish again' });
    const again = await publishAndSettle(editor.token, { project_id: german, language: 'de' });
    expect(again.state).toBe('ready');
    expect(videosOf(P1).filter((m) => m.alt.endsWith('(Deutsch)'))).toHaveLength(1);
  });
});

describe('who may publish', () => {
  it("refuses another shop's user, and someone who may look but is not an editor of the Teamspace", async () => {
    const other = await me(B, '777');
    const r = await publish(other.token, { project_id: root, language: 'es' });
    expect(r.response.status).toBe(403);
    expect((await listPublications(other.token, root)).response.status).toBe(403);
    expect((await shopProducts(other.token, spaceA)).response.status).toBe(403);

    // A superuser may open any project (support) but is no editor of the shop's Teamspace: refused too.
    const support = await signUpAndCreate(h, 'support-publish@example.com');
    await h.deps.db.query(`UPDATE users SET is_superuser = true WHERE id = $1`, [support.user.id]);
    const seen = await listPublications(support.token, root);
    expect(seen.response.status).toBe(200);
    expect(seen.data).toMatchObject({ shop: true, can_publish: false });
    const s = await publish(support.token, { project_id: root, language: 'es' });
    expect(s.response.status).toBe(403);
    expect(JSON.stringify(s.error)).toContain('Only the editors');
    expect((await shopProducts(support.token, spaceA)).response.status).toBe(403);
  });

  it('refuses a project of a Teamspace that is not a shop', async () => {
    const u = await signUpAndCreate(h, 'plain-publish@example.com');
    const own = await h.deps.db.one<{ id: string }>(`SELECT id FROM spaces WHERE owner_id = $1 AND is_default`, [u.user.id]);
    const p = await dubbedProject(own.id, u.user.id, 'es', VIDEO_ES);
    const r = await publish(u.token, { project_id: p, language: 'es', product_id: P1 });
    expect(r.response.status).toBe(400);
    expect(JSON.stringify(r.error)).toContain('not a shop');
    expect((await shopProducts(u.token, own.id)).response.status).toBe(400);
    const list = await listPublications(u.token, p);
    expect(list.data).toEqual({ shop: false, can_publish: false, publications: [], origin_product: null });
  });

  it('answers bad input with a clear 4xx', async () => {
    const bad = await publish(editor.token, { project_id: 'nope', language: 'es' });
    expect(bad.response.status).toBe(422);
    const badProduct = await publish(editor.token, { project_id: root, language: 'es', product_id: '101' });
    expect(badProduct.response.status).toBe(422);
    const noDub = await publish(editor.token, { project_id: root, language: 'fr' });
    expect(noDub.response.status).toBe(409);
    expect(JSON.stringify(noDub.error)).toContain('no finished dubbed video');
    // A video that did not come from a product needs a product chosen.
    const loose = await dubbedProject(spaceA, owner.id, 'it', VIDEO_DE);
    const noProduct = await publish(editor.token, { project_id: loose, language: 'it' });
    expect(noProduct.response.status).toBe(400);
    expect(JSON.stringify(noProduct.error)).toContain('Choose the product');
    expect((await publications(editor.token, loose)).origin_product).toBeNull();
  });
});
