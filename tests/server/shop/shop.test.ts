// Issue 32: the shop is a Teamspace; its Admin API through token exchange (the library), the token sealed at rest;
// the platform's webhooks verified by HMAC. Two shops and a staff user in both never see each other's projects.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeShopAdmin, signWebhook } from '../../fakes/shop-admin';
import { shopAdminGraphql, ShopAdminError } from '../../../server/domains/shop/admin';
import { openToken } from '../../../server/domains/shop/crypto';
import { ConfigError, loadConfig } from '../../../server/config';
import { projectKey } from '../../../server/storage/index';
import { createHarness, type Harness } from '../harness';
import { api } from '../helpers';
import { shopSessionToken } from './shop-fixtures';
import { typedClient } from '../typed-client';

const KEY = 'shop-app-key-7f3a';
const SECRET = 'shop-app-secret-abcdefghijklmnopqrstu';
const TOKEN_KEY = 'a'.repeat(64);
const A = 'alpha-shop.myshopify.com';
const B = 'beta-shop.myshopify.com';

let h: Harness;
let fake: FakeShopAdmin;

beforeAll(async () => {
  fake = await new FakeShopAdmin(KEY, SECRET).addShop(A, 'Alpha Outfitters').addShop(B, 'Beta Bikes').start();
  h = await createHarness({
    EMBED_APP_KEY: KEY,
    EMBED_APP_SECRET: SECRET,
    EMBED_ADMIN_ORIGINS: 'https://admin.example.com',
    SHOP_ADMIN_URL: fake.url,
    SHOP_TOKEN_KEY: TOKEN_KEY,
  });
});
afterAll(async () => {
  await h?.close();
  await fake?.close();
});
beforeEach(() => {
  expect(fake.violations()).toEqual([]);
});

const sessionToken = (shop: string, sub: string, o: { exp?: number; secret?: string } = {}) =>
  shopSessionToken({ key: KEY, secret: SECRET }, shop, sub, { ttlSec: 60, ...o });

async function me(shop: string, sub: string) {
  const token = await sessionToken(shop, sub);
  const c = typedClient(h, token);
  const r = await c.GET('/api/users/current');
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  const spaces = await c.GET('/api/space/list');
  expect(spaces.response.status).toBe(200);
  return { token, id: r.data!.id, spaces: spaces.data! };
}
async function shopRow(domain: string) {
  return h.deps.db.maybeOne<{ space_id: string | null; name: string; token_box: string | null; installed: boolean; redacted_at: unknown }>(
    `SELECT space_id, name, token_box, installed, redacted_at FROM shops WHERE domain = $1`,
    [domain],
  );
}
async function insertProject(spaceId: string, userId: string, status: string): Promise<string> {
  const r = await h.deps.db.one<{ id: string }>(
    `INSERT INTO projects (space_id, user_id, name, src_lang, dst_lang, status) VALUES ($1, $2, 'Product video', 'en', 'es', $3) RETURNING id`,
    [spaceId, userId, status],
  );
  return r.id;
}
async function deliver(topic: string, domain: string, body: unknown = { shop_domain: domain }, o: { secret?: string; webhookId?: string } = {}) {
  const w = signWebhook(o.secret ?? SECRET, { topic, domain, body, webhookId: o.webhookId });
  // Untyped: a signed raw body.
  return api(h, 'POST', '/api/shop/webhooks', { raw: w.raw, headers: w.headers });
}

describe('the shop is a Teamspace', () => {
  it("creates the shop's Teamspace on its first session token, named after the shop; staff join it as editors", async () => {
    const owner = await me(A, '1001');
    const row = await shopRow(A);
    expect(row?.space_id).toBeTruthy();
    const shopSpace = owner.spaces.find((s) => s.id === row!.space_id)!;
    expect(shopSpace).toBeTruthy();
    // Named after the shop, as its Admin API tells it (token exchange, then shop { name }).
    expect(shopSpace.name).toBe('Alpha Outfitters');
    expect(shopSpace.is_default).toBe(false);
    expect(shopSpace.owner_id).toBe(owner.id);
    // The user's own default space stays theirs.
    const own = owner.spaces.find((s) => s.is_default)!;
    expect(own.owner_id).toBe(owner.id);
    // The list says which Teamspace is the shop's (the embedded app opens it first inside that shop's admin).
    expect(shopSpace.shop_domain).toBe(A);
    expect(own.shop_domain).toBeNull();

    const staff = await me(A, '1002');
    const seen = staff.spaces.find((s) => s.id === row!.space_id)!;
    expect(seen.members.find((m) => m.user_id === staff.id)?.role).toBe('editor');
    expect(seen.members.find((m) => m.user_id === owner.id)?.role).toBe('owner');
    expect(staff.spaces.find((s) => s.is_default)!.owner_id).toBe(staff.id);
    // One exchange for the shop, however many staff users open the app.
    await me(A, '1003');
    expect(fake.exchanges.get(A)).toBe(1);
  });

  it('is idempotent when staff users open the app at once', async () => {
    const tokens = await Promise.all(['2001', '2002', '2003', '2004'].map((s) => sessionToken(B, s)));
    const rs = await Promise.all(tokens.map((token) => typedClient(h, token).GET('/api/users/current')));
    for (const r of rs) expect(r.response.status).toBe(200);
    const n = await h.deps.db.one<{ spaces: number; members: number; owners: number }>(
      `SELECT (SELECT count(*)::int FROM shops WHERE domain = $1) AS spaces,
              (SELECT count(*)::int FROM space_members m JOIN shops s ON s.space_id = m.space_id WHERE s.domain = $1) AS members,
              (SELECT count(*)::int FROM space_members m JOIN shops s ON s.space_id = m.space_id WHERE s.domain = $1 AND m.role = 'owner') AS owners`,
      [B],
    );
    expect(n).toEqual({ spaces: 1, members: 4, owners: 1 });
    expect(fake.exchanges.get(B)).toBe(1);
  });

  it("two shops never see each other's projects, even for a person who is staff of both", async () => {
    // The same person (sub 3001) in both shops: one account per shop.
    const inA = await me(A, '3001');
    const inB = await me(B, '3001');
    expect(inA.id).not.toBe(inB.id);
    const spaceA = (await shopRow(A))!.space_id!;
    const spaceB = (await shopRow(B))!.space_id!;
    expect(inA.spaces.map((s) => s.id)).toContain(spaceA);
    expect(inA.spaces.map((s) => s.id)).not.toContain(spaceB);
    expect(inB.spaces.map((s) => s.id)).toContain(spaceB);
    expect(inB.spaces.map((s) => s.id)).not.toContain(spaceA);

    const pA = await insertProject(spaceA, inA.id, 'translation_done');
    // Shop A's staff see it; shop B's (the same person) do not, by id or by listing A's space.
    const project = (token: string, id: string) => typedClient(h, token).GET('/api/project/{id}', { params: { path: { id } } });
    const list = (token: string, spaceId: string) => typedClient(h, token).GET('/api/project/paginated', { params: { query: { space_id: spaceId } } });
    expect((await project(inA.token, pA)).response.status).toBe(200);
    const listA = await list(inA.token, spaceA);
    expect(listA.response.status).toBe(200);
    expect(JSON.stringify(listA.data)).toContain(pA);
    const byId = await project(inB.token, pA);
    expect([403, 404]).toContain(byId.response.status);
    const listFromB = await list(inB.token, spaceA);
    expect([403, 404]).toContain(listFromB.response.status);
    const spaceFromB = await typedClient(h, inB.token).GET('/api/space/{id}', { params: { path: { id: spaceA } } });
    expect([403, 404]).toContain(spaceFromB.response.status);
    // And B's listing of its own space does not hold A's project.
    const listB = await list(inB.token, spaceB);
    expect(listB.response.status).toBe(200);
    expect(JSON.stringify(listB.data)).not.toContain(pA);
  });
});

describe("the shop's Admin API", () => {
  it('keeps the offline token sealed (never in clear) and answers GraphQL through the library', async () => {
    const row = (await shopRow(A))!;
    expect(row.token_box).toBeTruthy();
    const [clear] = fake.tokensOf(A);
    expect(clear).toMatch(/^shpat_/);
    expect(row.token_box).not.toContain(clear);
    expect(Buffer.from(row.token_box!, 'base64').toString('latin1')).not.toContain(clear);
    expect(await openToken(Buffer.from(TOKEN_KEY, 'hex'), row.token_box!)).toBe(clear);
    expect(await openToken(Buffer.from('b'.repeat(64), 'hex'), row.token_box!)).toBeNull();

    const data = await shopAdminGraphql<{ shop: { name: string; primaryDomain: { host: string } } }>(
      h.deps, row.space_id!, 'query { shop { name primaryDomain { url host } } }',
    );
    expect(data.shop).toMatchObject({ name: 'Alpha Outfitters', primaryDomain: { host: A } });
    const call = fake.requestsTo('POST', /\/admin\/api\/2025-10\/graphql\.json$/).at(-1)!;
    expect(call.headers['x-shopify-access-token']).toBe(clear);
  });

  it('exchanges again when a call answers 401 (with the latest live session token)', async () => {
    const spaceA = (await shopRow(A))!.space_id!;
    await me(A, '1001'); // a live session token of the shop
    const before = fake.exchanges.get(A)!;
    fake.revoke(A);
    const data = await shopAdminGraphql<{ shop: { name: string } }>(h.deps, spaceA, 'query { shop { name } }');
    expect(data.shop.name).toBe('Alpha Outfitters');
    expect(fake.exchanges.get(A)).toBe(before + 1);
    expect(fake.tokensOf(A)).toHaveLength(1);
  });

  it('without a live session token, a 401 forgets the token and asks for the app to be opened again', async () => {
    const spaceA = (await shopRow(A))!.space_id!;
    // The shop's latest session token has expired (the renewal test of 401 used a live one).
    await me(A, '1001');
    const { forgetSessionTokens } = await import('../../../server/domains/shop/token');
    forgetSessionTokens(h.deps.db, A);
    const before = fake.exchanges.get(A)!;
    fake.revoke(A);
    await expect(shopAdminGraphql(h.deps, spaceA, 'query { shop { name } }')).rejects.toMatchObject({ code: 'reconnect' });
    expect((await shopRow(A))!.token_box).toBeNull();
    expect(fake.exchanges.get(A)).toBe(before);
    // The next staff user who opens the app brings a session token: exchanged again, the calls work.
    await me(A, '1002');
    expect(fake.exchanges.get(A)).toBe(before + 1);
    expect((await shopAdminGraphql<{ shop: { name: string } }>(h.deps, spaceA, 'query { shop { name } }')).shop.name).toBe('Alpha Outfitters');
  });

  it('refuses a Teamspace that is not a shop', async () => {
    const u = await me(A, '1001');
    const own = u.spaces.find((s) => s.is_default)!;
    await expect(shopAdminGraphql(h.deps, own.id, 'query { shop { name } }')).rejects.toMatchObject({ code: 'not_a_shop' });
  });
});

describe("the platform's webhooks", () => {
  it('refuses a delivery without a valid HMAC', async () => {
    expect((await deliver('app/uninstalled', A, { id: 1 }, { secret: 'someone-elses-secret' })).status).toBe(401);
    const w = signWebhook(SECRET, { topic: 'app/uninstalled', domain: A, body: { id: 1 } });
    // Untyped: signed raw bodies (one tampered, one without its signature).
    const tampered = await api(h, 'POST', '/api/shop/webhooks', { raw: w.raw.replace('1', '2'), headers: w.headers });
    expect(tampered.status).toBe(401);
    const { 'x-shopify-hmac-sha256': _drop, ...noHmac } = w.headers;
    expect((await api(h, 'POST', '/api/shop/webhooks', { raw: w.raw, headers: noHmac })).status).toBe(401);
    expect((await shopRow(A))!.installed).toBe(true);
  });

  it('answers the privacy topics with 200', async () => {
    expect((await deliver('customers/data_request', A, { shop_domain: A, customer: { id: 1 }, orders_requested: [1] })).status).toBe(200);
    expect((await deliver('customers/redact', A, { shop_domain: A, customer: { id: 1 }, orders_to_redact: [1] })).status).toBe(200);
  });

  it('app/uninstalled forgets the token, keeps the Teamspace and stops its running jobs; reopening exchanges again', async () => {
    const u = await me(A, '1001');
    const spaceA = (await shopRow(A))!.space_id!;
    const running = await insertProject(spaceA, u.id, 'transcribe_segments_started');
    const done = await insertProject(spaceA, u.id, 'translation_done');
    const id = crypto.randomUUID();
    expect((await deliver('app/uninstalled', A, { id: 1, domain: A }, { webhookId: id })).status).toBe(200);
    const row = (await shopRow(A))!;
    expect(row).toMatchObject({ token_box: null, installed: false, space_id: spaceA });
    const p = await h.deps.db.one<{ status: string; error_code: string | null }>(`SELECT status, error_code FROM projects WHERE id = $1`, [running]);
    expect(p).toEqual({ status: 'transcribe_segments_failed', error_code: 'cancelled' });
    expect((await h.deps.db.one<{ status: string }>(`SELECT status FROM projects WHERE id = $1`, [done])).status).toBe('translation_done');
    await expect(shopAdminGraphql(h.deps, spaceA, 'query { shop { name } }')).rejects.toBeInstanceOf(ShopAdminError);
    // A retried delivery is answered 200 again and changes nothing.
    expect((await deliver('app/uninstalled', A, { id: 1, domain: A }, { webhookId: id })).status).toBe(200);

    // Installed again: the next session token exchanges a new token; the Teamspace and its projects are there.
    const before = fake.exchanges.get(A)!;
    const again = await me(A, '1001');
    expect(fake.exchanges.get(A)).toBe(before + 1);
    expect((await shopRow(A))!).toMatchObject({ installed: true, space_id: spaceA });
    expect((await typedClient(h, again.token).GET('/api/project/{id}', { params: { path: { id: done } } })).response.status).toBe(200);
  });

  it("shop/redact deletes the shop's Teamspace and its data; the other shop and the users' own spaces stay", async () => {
    const u = await me(B, '2001');
    const spaceB = (await shopRow(B))!.space_id!;
    const pB = await insertProject(spaceB, u.id, 'translation_done');
    await h.deps.storage!.putBuffer(projectKey(pB, 'source.mp4'), 'video bytes');
    const pA = await insertProject((await shopRow(A))!.space_id!, (await me(A, '1001')).id, 'translation_done');
    await h.deps.storage!.putBuffer(projectKey(pA, 'source.mp4'), 'video bytes');
    const spaceA = (await shopRow(A))!.space_id!;
    expect((await deliver('shop/redact', B, { shop_id: 2, shop_domain: B })).status).toBe(200);
    expect(await h.deps.db.maybeOne(`SELECT 1 FROM spaces WHERE id = $1`, [spaceB])).toBeNull();
    expect(await h.deps.db.maybeOne(`SELECT 1 FROM projects WHERE id = $1`, [pB])).toBeNull();
    // Its files went with it; the other shop's stay.
    expect(await h.deps.storage!.exists(projectKey(pB, 'source.mp4'))).toBe(false);
    expect(await h.deps.storage!.exists(projectKey(pA, 'source.mp4'))).toBe(true);
    expect((await shopRow(B))!).toMatchObject({ space_id: null, token_box: null });
    expect(await h.deps.db.maybeOne(`SELECT 1 FROM spaces WHERE id = $1`, [spaceA])).not.toBeNull();
    // The staff user's own default space is theirs still.
    const after = await typedClient(h, await sessionToken(B, '2001')).GET('/api/space/list');
    expect(after.response.status).toBe(200);
    const list = after.data!;
    expect(list.some((s) => s.id === spaceB)).toBe(false);
    expect(list.find((s) => s.is_default)!.owner_id).toBe(u.id);
  });
});

describe('configuration', () => {
  const base = { EMBED_APP_KEY: KEY, EMBED_APP_SECRET: SECRET, EMBED_ADMIN_ORIGINS: 'https://admin.example.com', JWT_SECRET: 'x'.repeat(40) };
  it('asks the documented scopes by default and reads them from SHOP_API_SCOPES', () => {
    expect(loadConfig(base).shop?.scopes).toEqual(['read_products', 'write_products', 'write_files']);
    expect(loadConfig({ ...base, SHOP_API_SCOPES: 'read_products, write_files' }).shop?.scopes).toEqual(['read_products', 'write_files']);
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(40) }).shop).toBeNull();
  });
  it('refuses a token key that is not 32 bytes, and a local stand-in in production', () => {
    expect(() => loadConfig({ ...base, SHOP_TOKEN_KEY: 'abcd' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', SHOP_ADMIN_URL: 'http://127.0.0.1:9' })).toThrow(/SHOP_ADMIN_URL/);
    // Without SHOP_TOKEN_KEY the key is derived from the app secret: stable across restarts.
    expect(loadConfig(base).shop!.tokenKey.equals(loadConfig(base).shop!.tokenKey)).toBe(true);
  });
});
