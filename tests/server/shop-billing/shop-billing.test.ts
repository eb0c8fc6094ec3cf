// Issue 32 part 5: a shop Teamspace buys its plan through the platform's billing (appSubscriptionCreate, approved on
// the confirmation page, app_subscriptions/update webhooks) and pays extra minutes as usage charges within the cap.
// The plan is the same subscription state Stripe's becomes; every grant is a ledger row, idempotent.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spaceEntitlements } from '../../../server/domains/billing/entitlements';
import { runBillingClock } from '../../../server/domains/billing/subscriptions';
import { FakeShopAdmin, signWebhook } from '../../fakes/shop-admin';
import { installShopBilling, type FakeShopBilling } from '../../fakes/shop-billing';
import { createHarness, type Harness } from '../harness';
import { api } from '../helpers';
import { shopSessionToken } from '../shop/shop-fixtures';
import { typedClient } from '../typed-client';

const KEY = 'shop-app-key-bill';
const SECRET = 'shop-app-secret-billing-abcdefghijkl';
const A = 'gamma-shop.myshopify.com';
const B = 'delta-shop.myshopify.com';

let h: Harness;
let fake: FakeShopAdmin;
let billing: FakeShopBilling;

beforeAll(async () => {
  fake = new FakeShopAdmin(KEY, SECRET).addShop(A, 'Gamma Goods').addShop(B, 'Delta Decor');
  billing = installShopBilling(fake);
  await fake.start();
  h = await createHarness({
    EMBED_APP_KEY: KEY,
    EMBED_APP_SECRET: SECRET,
    EMBED_ADMIN_ORIGINS: 'https://admin.example.com',
    SHOP_ADMIN_URL: fake.url,
    SHOP_TOKEN_KEY: 'c'.repeat(64),
    SHOP_BILLING_PRICES: 'starter:19,creator:49,creator_pro:99,business:299',
    SHOP_BILLING_MINUTE_PRICE: '1.5',
    SHOP_BILLING_CAP: '30',
  });
});
afterAll(async () => {
  await h?.close();
  await fake?.close();
});
beforeEach(() => {
  expect(fake.violations()).toEqual([]);
});

const sessionToken = (shop: string, sub: string) => shopSessionToken({ key: KEY, secret: SECRET }, shop, sub, { ttlSec: 300 });

interface Staff { token: string; id: string; spaceId: string; defaultSpaceId: string }
async function staff(shop: string, sub: string): Promise<Staff> {
  const token = await sessionToken(shop, sub);
  const r = await typedClient(h, token).GET('/api/users/current');
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  const id = r.data!.id;
  const row = await h.deps.db.one<{ space_id: string }>(`SELECT space_id FROM shops WHERE domain = $1`, [shop]);
  const def = await h.deps.db.one<{ id: string }>(`SELECT id FROM spaces WHERE owner_id = $1 AND is_default`, [id]);
  return { token, id, spaceId: row.space_id, defaultSpaceId: def.id };
}

async function ledgerRows(spaceId: string) {
  return h.deps.db.query<{ kind: string; bucket: string; minutes: number; ref: string }>(
    `SELECT kind, bucket, minutes::float8 AS minutes, ref FROM minutes_ledger WHERE space_id = $1 ORDER BY id`,
    [spaceId],
  );
}
async function available(spaceId: string): Promise<number> {
  const r = await h.deps.db.one<{ m: number }>(`SELECT COALESCE(SUM(minutes), 0)::float8 AS m FROM minutes_ledger WHERE space_id = $1 AND bucket = 'minutes'`, [spaceId]);
  return Number(r.m);
}
async function deliver(w: { headers: Record<string, string>; raw: string }) {
  // Untyped: a signed raw body.
  const r = await api(h, 'POST', '/api/shop/webhooks', { raw: w.raw, headers: w.headers });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
}
/** The merchant approves on the confirmation page: the browser is sent back to the returnUrl. */
async function approve(confirmationUrl: string): Promise<string> {
  const page = await fetch(confirmationUrl);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain('Approve');
  const r = await fetch(`${confirmationUrl}&approve=1`, { redirect: 'manual' });
  expect(r.status).toBe(302);
  return r.headers.get('location')!;
}
type SoldTier = 'starter' | 'creator' | 'creator_pro' | 'business';
/** POST /api/shop/billing/subscribe for the shop Teamspace of `s` (or `spaceId`), by `s` (or without credentials: null token). */
async function subscribe(s: Staff, tier: SoldTier, o: { spaceId?: string; token?: string | null } = {}) {
  const token = o.token === undefined ? s.token : o.token;
  return typedClient(h, token).POST('/api/shop/billing/subscribe', { params: { query: { space_id: o.spaceId ?? s.spaceId } }, body: { tier } });
}
const billingStatus = (token: string, spaceId: string) => typedClient(h, token).GET('/api/shop/billing/status', { params: { query: { space_id: spaceId } } });
const buyMinutes = (token: string, spaceId: string, body: { quantity: number; request_id: string }) =>
  typedClient(h, token).POST('/api/shop/billing/minutes', { params: { query: { space_id: spaceId } }, body });

let owner: Staff;
let editor: Staff;
let subId: string;
let confirmationUrl: string;

describe('a plan through the platform', () => {
  it('answers the confirmation page of an appSubscriptionCreate with the plan and a capped usage line', async () => {
    owner = await staff(A, '501');
    editor = await staff(A, '502');
    const status = await billingStatus(owner.token, owner.spaceId);
    expect(status.response.status).toBe(200);
    expect(status.data).toMatchObject({ shop: true, currency: 'USD', minute_price: 1.5, capped_amount: 30, subscription: null });

    const r = await subscribe(owner, 'creator');
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.confirmation_url).toMatch(new RegExp(`^${fake.url}/admin/charges/\\d+/confirm`));
    subId = r.data!.subscription_id;
    confirmationUrl = r.data!.confirmation_url;
    const sub = billing.subscriptions.get(subId)!;
    expect(sub.status).toBe('PENDING');
    expect(sub.test).toBe(true);
    expect(new URL(sub.returnUrl).pathname).toBe('/api/shop/billing/return');
    expect(new URL(sub.returnUrl).searchParams.get('shop')).toBe(A);
    expect(sub.lineItems).toMatchObject([
      { kind: 'recurring', price: { amount: 49, currencyCode: 'USD' }, interval: 'EVERY_30_DAYS' },
      { kind: 'usage', cappedAmount: { amount: 30, currencyCode: 'USD' } },
    ]);
    expect(sub.lineItems[1]!.terms).toContain('1.50 USD a minute');
    // Not on the plan before the merchant approves.
    expect((await spaceEntitlements(h.deps.db, owner.spaceId)).state).toBe('trial');
  });

  it('refuses a member who is not the owner, another shop, and bad input', async () => {
    const byEditor = await subscribe(editor, 'creator');
    expect(byEditor.response.status).toBe(403);
    expect(byEditor.error!.detail).toBe('Only the Teamspace owner can buy a plan or minutes for it');
    const other = await staff(B, '601');
    const cross = await subscribe(other, 'creator', { spaceId: owner.spaceId });
    expect(cross.response.status).toBe(403);
    const crossStatus = await billingStatus(other.token, owner.spaceId);
    expect(crossStatus.response.status).toBe(403);
    // Untyped: a tier the platform does not sell (the types forbid it).
    const bad = await api(h, 'POST', `/api/shop/billing/subscribe?space_id=${owner.spaceId}`, { token: owner.token, body: { tier: 'enterprise' } });
    expect(bad.status).toBe(422);
    const noAuth = await subscribe(owner, 'creator', { token: null });
    expect(noAuth.response.status).toBe(401);
  });

  it('approved: the return re-checks with the platform, the space is on the plan with its minutes as ledger rows', async () => {
    const before = await available(owner.spaceId);
    const back = await approve(confirmationUrl);
    const u = new URL(back);
    expect(u.searchParams.get('charge_id')).toBeTruthy();
    // Untyped: the platform's return address as it gave it (its own query), a redirect.
    const ret = await api(h, 'GET', `${u.pathname}${u.search}`);
    expect(ret.status).toBe(302);
    expect(ret.headers.get('location')).toBe(`https://${A}/admin/apps/${KEY}/pricing`);
    const e = await spaceEntitlements(h.deps.db, owner.spaceId);
    expect(e).toMatchObject({ tier: 'creator', state: 'active', effectiveTier: 'creator' });
    const refills = (await ledgerRows(owner.spaceId)).filter((r) => r.kind === 'refill' && r.bucket === 'minutes');
    expect(refills).toHaveLength(1);
    expect(refills[0]!.minutes).toBe(100);
    expect(await available(owner.spaceId)).toBe(before + 100);
    // The plan's minutes go to the shop's Teamspace, not the owner's own space.
    expect((await ledgerRows(owner.defaultSpaceId)).filter((r) => r.kind === 'refill')).toHaveLength(0);
    const sub = await h.deps.db.one<{ id: string; provider: string; status: string; space_id: string }>(
      `SELECT id, provider, status, space_id FROM subscriptions WHERE user_id = $1`, [owner.id],
    );
    expect(sub).toEqual({ id: subId, provider: 'shop', status: 'active', space_id: owner.spaceId });
    const pay = await h.deps.db.query<{ amount: string; kind: string }>(`SELECT amount, kind FROM payments WHERE provider = 'shop' AND user_id = $1`, [owner.id]);
    expect(pay).toHaveLength(1);
    expect(Number(pay[0]!.amount)).toBe(4900);
    // Members see the plan too.
    const st = await billingStatus(editor.token, owner.spaceId);
    expect(st.data!.subscription).toMatchObject({ id: subId, tier: 'creator', status: 'ACTIVE' });
  });

  it('the webhook delivered after the return, and twice, grants nothing more', async () => {
    const rows = (await ledgerRows(owner.spaceId)).length;
    await deliver(billing.webhook(subId));
    await deliver(billing.webhook(subId));
    const again = billing.webhook(subId, 'same-delivery-id');
    await deliver(again);
    await deliver(again);
    expect((await ledgerRows(owner.spaceId)).length).toBe(rows);
    expect((await spaceEntitlements(h.deps.db, owner.spaceId)).state).toBe('active');
    // A late PENDING delivery (deliveries come in any order) changes nothing.
    billing.setStatus(subId, 'PENDING');
    const late = billing.webhook(subId);
    billing.setStatus(subId, 'ACTIVE');
    await deliver(late);
    const st = await billingStatus(owner.token, owner.spaceId);
    expect(st.data!.subscription).toMatchObject({ id: subId, status: 'ACTIVE' });
  });
});

describe('extra minutes as usage charges', () => {
  it('charges within the cap: one usage record and one minutes ledger row, once per request id', async () => {
    const before = await available(owner.spaceId);
    const request_id = randomUUID();
    const r = await buyMinutes(owner.token, owner.spaceId, { quantity: 10, request_id });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data).toMatchObject({ minutes: 10, amount: 15, currency: 'USD', fresh: true });
    expect(billing.usageRecords).toHaveLength(1);
    expect(billing.usageRecords[0]).toMatchObject({ price: { amount: 15, currencyCode: 'USD' }, lineItemId: billing.usageLine(subId).id });
    expect(billing.usageRecords[0]!.idempotencyKey).toContain(request_id);
    expect(billing.usageLine(subId).balanceUsed).toBe(15);
    expect(await available(owner.spaceId)).toBe(before + 10);
    const again = await buyMinutes(owner.token, owner.spaceId, { quantity: 10, request_id });
    expect(again.response.status).toBe(200);
    expect(again.data).toMatchObject({ fresh: false, usage_record_id: r.data!.usage_record_id });
    expect(billing.usageRecords).toHaveLength(1);
    expect(await available(owner.spaceId)).toBe(before + 10);
    const purchases = (await ledgerRows(owner.spaceId)).filter((x) => x.kind === 'purchase');
    expect(purchases).toHaveLength(1);
    expect(purchases[0]!.ref).toContain(request_id);
  });

  it('over the cap: a clear 402 with the page to raise it, and no minutes', async () => {
    const before = await available(owner.spaceId);
    const r = await buyMinutes(owner.token, owner.spaceId, { quantity: 11, request_id: randomUUID() });
    expect(r.response.status).toBe(402);
    expect(r.error!.detail).toBe(
      'The spending limit for extra minutes is reached: 15.00 USD of 30.00 USD used this billing period, and these minutes cost 16.50 USD. Raise the limit to buy them.',
    );
    expect(r.error!.code).toBe('usage_cap_reached');
    expect(r.error!.raise_cap_url).toMatch(/\/confirm_update\?/);
    expect(r.error!.new_capped_amount).toBe(60);
    expect(billing.usageRecords).toHaveLength(1);
    expect(await available(owner.spaceId)).toBe(before);
    // The merchant raises the cap on the platform: the same purchase goes through.
    const raised = await fetch(`${r.error!.raise_cap_url}&approve=1`, { redirect: 'manual' });
    expect(raised.status).toBe(302);
    expect(billing.usageLine(subId).cappedAmount!.amount).toBe(60);
    const ok = await buyMinutes(owner.token, owner.spaceId, { quantity: 11, request_id: randomUUID() });
    expect(ok.response.status, JSON.stringify(ok.error)).toBe(200);
    expect(await available(owner.spaceId)).toBe(before + 11);
  });

  it('refuses a member who is not the owner, another shop, and bad quantities', async () => {
    const byEditor = await buyMinutes(editor.token, owner.spaceId, { quantity: 1, request_id: randomUUID() });
    expect(byEditor.response.status).toBe(403);
    const other = await staff(B, '601');
    const cross = await buyMinutes(other.token, owner.spaceId, { quantity: 1, request_id: randomUUID() });
    expect(cross.response.status).toBe(403);
    // Shop B has no plan: buying minutes needs one.
    const noPlan = await buyMinutes(other.token, other.spaceId, { quantity: 1, request_id: randomUUID() });
    expect(noPlan.response.status).toBe(402);
    expect(noPlan.error!.detail).toBe('Buying minutes needs an active plan: choose a plan first');
    for (const quantity of [0, -1, 1.5, 10001]) {
      const bad = await buyMinutes(owner.token, owner.spaceId, { quantity, request_id: randomUUID() });
      expect(bad.response.status).toBe(422);
    }
    expect(billing.usageRecords.length).toBe(2);
  });
});

describe('the end of a plan', () => {
  it('a declined subscription never starts', async () => {
    const other = await staff(B, '601');
    const r = await subscribe(other, 'starter');
    expect(r.response.status).toBe(200);
    const dec = await fetch(`${r.data!.confirmation_url}&decline=1`, { redirect: 'manual' });
    expect(dec.status).toBe(302);
    await deliver(billing.webhook(r.data!.subscription_id));
    expect((await spaceEntitlements(h.deps.db, other.spaceId)).state).toBe('trial');
    expect((await ledgerRows(other.spaceId)).filter((x) => x.kind === 'refill')).toHaveLength(0);
  });

  it('approved then the webhook alone (no return): the space is on the plan, one grant however often it comes', async () => {
    const other = await staff(B, '601');
    const r = await subscribe(other, 'starter');
    expect(r.response.status).toBe(200);
    const created = r.data!;
    await approve(created.confirmation_url);
    const w = billing.webhook(created.subscription_id);
    await deliver(w);
    await deliver(w);
    await deliver(billing.webhook(created.subscription_id));
    expect(await spaceEntitlements(h.deps.db, other.spaceId)).toMatchObject({ tier: 'starter', state: 'active' });
    const refills = (await ledgerRows(other.spaceId)).filter((x) => x.kind === 'refill' && x.bucket === 'minutes');
    expect(refills.map((x) => x.minutes)).toEqual([25]);
    // A webhook naming this subscription from another shop changes nothing.
    const forged = billing.webhook(created.subscription_id);
    const body = JSON.parse(forged.raw) as { app_subscription: { status: string } };
    body.app_subscription.status = 'CANCELLED';
    await deliver(signWebhook(SECRET, { topic: 'APP_SUBSCRIPTIONS_UPDATE', domain: A, body }));
    expect((await spaceEntitlements(h.deps.db, other.spaceId)).state).toBe('active');
  });

  it('the cancel webhook ends the plan: features stop, its unused minutes lapse, bought minutes stay', async () => {
    const purchased = (await ledgerRows(owner.spaceId)).filter((x) => x.kind === 'purchase').reduce((s, x) => s + x.minutes, 0);
    billing.setStatus(subId, 'CANCELLED');
    await deliver(billing.webhook(subId));
    const e = await spaceEntitlements(h.deps.db, owner.spaceId);
    expect(e.state).not.toBe('active');
    expect(e.effectiveTier).toBe('free');
    const rows = await ledgerRows(owner.spaceId);
    expect(rows.filter((x) => x.kind === 'expire' && x.bucket === 'minutes').reduce((s, x) => s + x.minutes, 0)).toBe(-100);
    expect(await available(owner.spaceId)).toBe(3 + purchased);
    // A late ACTIVE for the ended subscription does not bring it back; extra minutes need a plan again.
    billing.setStatus(subId, 'ACTIVE');
    await deliver(billing.webhook(subId));
    expect((await spaceEntitlements(h.deps.db, owner.spaceId)).state).not.toBe('active');
    const r = await buyMinutes(owner.token, owner.spaceId, { quantity: 1, request_id: randomUUID() });
    expect(r.response.status).toBe(402);
  });
});

describe('renewals', () => {
  it('the platform bills every period while the app is installed: the clock credits the next month, not after an uninstall', async () => {
    const other = await staff(B, '601');
    const day = 86400_000;
    const refills = async () => (await ledgerRows(other.spaceId)).filter((x) => x.kind === 'refill' && x.bucket === 'minutes').length;
    expect(await refills()).toBe(1);
    await runBillingClock(h.deps.db, new Date(Date.now() + 32 * day));
    expect(await refills()).toBe(2);
    await runBillingClock(h.deps.db, new Date(Date.now() + 32 * day));
    expect(await refills()).toBe(2);
    const w = signWebhook(SECRET, { topic: 'APP_UNINSTALLED', domain: B, body: { domain: B } });
    await deliver(w);
    await runBillingClock(h.deps.db, new Date(Date.now() + 64 * day));
    expect(await refills()).toBe(2);
    const e = await spaceEntitlements(h.deps.db, other.spaceId, { now: new Date(Date.now() + 64 * day) });
    expect(e.state).not.toBe('active');
    // The owner's own space never gets the shop plan's minutes.
    expect((await ledgerRows(other.defaultSpaceId)).filter((x) => x.kind === 'refill')).toHaveLength(0);
  });
});

describe("the checkout in a shop's Teamspace", () => {
  it('is refused: the store pays through the platform', async () => {
    const app = 'http://localhost:5173';
    const r = await typedClient(h, owner.token).GET('/api/payments/create_checkout_session_payment', {
      params: { query: { space_id: owner.spaceId, price_id: 'price_local_minutes', quantity: '10', success_url: `${app}/ok`, cancel_url: app } },
    });
    expect(r.response.status, JSON.stringify(r.error)).toBe(409);
    expect(r.error!.detail).toBe("This Teamspace is your store's: its plan and minutes are bought through the store's billing, not the checkout");
  });
});

describe('a space that is not a shop', () => {
  it('keeps the checkout: the platform billing refuses it', async () => {
    const status = await billingStatus(owner.token, owner.defaultSpaceId);
    expect(status.response.status).toBe(200);
    expect(status.data).toMatchObject({ shop: false, subscription: null });
    const r = await subscribe(owner, 'creator', { spaceId: owner.defaultSpaceId });
    expect(r.response.status).toBe(409);
    expect(r.error!.detail).toBe('This Teamspace is not a shop: its plan is bought with the checkout');
    const products = await typedClient(h, owner.token).GET('/api/payments/products');
    expect(products.response.status).toBe(200);
    expect(products.data!.provider).toBe('local');
  });
});
