// Payments with the local provider (the default, for self-hosters): the built-in catalogue, checkout that explains
// that the administrator grants plans, or grants them at once when a superuser switched on self-service; minute
// packs granted from /admin once per request; the same ledger and entitlements as Stripe.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ledger from '../../../server/domains/billing/ledger';
import { findLifecycle } from '../../../server/domains/billing/subscriptions';
import { createHarness, type Harness } from '../harness';
import { api } from '../helpers';
import { makeUser, type TestUser } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let admin: TestUser;
const APP = 'http://localhost';
const ok = `${APP}/account?payment-successful`;

beforeAll(async () => {
  h = await createHarness();
  admin = await makeUser(h, 'root@example.com', { superuser: true });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

let n = 0;
const user = () => makeUser(h, `local-${++n}-${randomUUID().slice(0, 6)}@example.com`);
const minutes = async (u: TestUser) => (await ledger.balances(h.deps.db, u.defaultSpaceId)).minutes;
const as = (u: TestUser) => typedClient(h, u.token);
const plan = (u: TestUser, price: string) =>
  as(u).GET('/api/payments/create_checkout_session_subscription', { params: { query: { price_id: price, success_url: ok, cancel_url: `${APP}/pricing` } } });
const buyMinutes = (u: TestUser, q: number) =>
  as(u).GET('/api/payments/create_checkout_session_payment', { params: { query: { price_id: 'price_local_minutes', quantity: String(q), success_url: ok, cancel_url: APP } } });
const setMode = (mode: 'free' | 'admin', token = admin.token) => typedClient(h, token).PUT('/api/admin/payments', { body: { local_checkout: mode } });

describe('local provider', () => {
  it('lists the built-in plans without prices, sorted, and says plans are granted by the administrator', async () => {
    const u = await user();
    const r = await as(u).GET('/api/payments/products');
    expect(r.response.status).toBe(200);
    expect(r.data).toMatchObject({ provider: 'local', checkout: 'admin' });
    expect(r.data!.plans.map((p) => p.tier)).toEqual(['starter', 'creator', 'creator_pro', 'business', 'enterprise', 'custom']);
    expect(r.data!.plans[0]!.prices).toEqual([
      { id: 'price_local_starter_month', unit_amount: null, currency: 'usd', interval: 'month', is_archived: false },
      { id: 'price_local_starter_year', unit_amount: null, currency: 'usd', interval: 'year', is_archived: false },
    ]);
    expect(r.data!.credits[0]!.prices[0]!.id).toBe('price_local_minutes');
    const refused = await plan(u, 'price_local_creator_month');
    expect(refused.response.status).toBe(403);
    expect(refused.error!.detail).toMatch(/granted by its administrator/);
    // Untyped: the webhook takes a raw (signed) body, here an unsigned one.
    expect((await api(h, 'POST', '/api/payments/webhook', { body: {} })).status).toBe(404);
    expect((await as(u).GET('/api/payments/billing_portal', { params: { query: { return_url: APP } } })).response.status).toBe(409);
  });

  it('only a superuser switches self-service checkout on; then a plan is granted at once', async () => {
    const u = await user();
    expect((await setMode('free', u.token)).response.status).toBe(403);
    expect((await setMode('free')).data).toEqual({ local_checkout: 'free', provider: 'local' });
    const before = await minutes(u);
    const r = await plan(u, 'price_local_creator_pro_year');
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.checkout_url).toBe(ok);
    expect(await findLifecycle(h.deps.db, u.id)).toMatchObject({ tier: 'creator_pro', interval: 'year', provider: 'local', price_id: 'price_local_creator_pro_year' });
    expect((await minutes(u)).total).toBe(before.total + 500);
    const pay = await as(u).GET('/api/payments/latest_payment_info');
    expect(pay.data!.items).toEqual([{ item_name: 'Creator Pro Annual', quantity: 1 }]);
    // A second click: the same plan, no second grant.
    await plan(u, 'price_local_creator_pro_year');
    expect((await minutes(u)).total).toBe(before.total + 500);
    // Change plan and cancel/undo are self-service too.
    const change = await as(u).POST('/api/payments/subscription', { body: { price_id: 'price_local_business_year' } });
    expect(change.data!.plan).toMatchObject({ tier: 'business', interval: 'year' });
    expect((await as(u).POST('/api/payments/cancel_subscription')).data!.cancel_at_period_end).toBe(true);
    expect((await as(u).POST('/api/payments/cancel_subscription_cancellation')).data!.cancel_at_period_end).toBe(false);
    await setMode('admin');
  });

  it('minute packs: 0 and 10001 refused, trial refused, one purchase per click', async () => {
    await setMode('free');
    const trial = await user();
    expect((await buyMinutes(trial, 10)).response.status).toBe(403);
    const u = await user();
    await plan(u, 'price_local_creator_month');
    expect((await buyMinutes(u, 0)).response.status).toBe(422);
    expect((await buyMinutes(u, 10001)).response.status).toBe(422);
    const before = await minutes(u);
    const [a, b] = await Promise.all([buyMinutes(u, 40), buyMinutes(u, 40)]);
    expect([a.response.status, b.response.status]).toEqual([200, 200]);
    expect((await minutes(u)).available).toBe(before.available + 40);
    await setMode('admin');
    expect((await buyMinutes(u, 40)).response.status).toBe(403);
  });

  it('a superuser grants minutes once per request id; others cannot', async () => {
    const u = await user();
    const body = { minutes: 120, note: 'conference pack', request_id: randomUUID() };
    const grant = (by: TestUser, id: string, b: typeof body) => as(by).POST('/api/admin/users/{id}/minutes', { params: { path: { id } }, body: b });
    expect((await grant(u, u.id, body)).response.status).toBe(403);
    const r1 = await grant(admin, u.id, body);
    const r2 = await grant(admin, u.id, body);
    expect(r1.data).toMatchObject({ granted: true, space_id: u.defaultSpaceId, minutes: { total: 123, available: 123 } });
    expect(r2.data).toMatchObject({ granted: false, minutes: { total: 123 } });
    expect((await grant(admin, u.id, { ...body, minutes: 0 })).response.status).toBe(422);
    expect((await grant(admin, randomUUID(), { ...body, request_id: randomUUID() })).response.status).toBe(404);
    const list = await as(admin).GET('/api/admin/users', { params: { query: { email: u.email } } });
    expect(list.data![0]!.minutes).toEqual({ total: 123, used: 0 });
  });

  it('an enterprise grant is active (its product is the catalogue enterprise plan)', async () => {
    const u = await user();
    const r = await as(admin).PATCH('/api/admin/users/{id}', { params: { path: { id: u.id } }, body: { plan: 'enterprise' } });
    expect(r.response.status).toBe(200);
    expect(r.data!.subscription!.plan.product_id).toBe('prod_local_enterprise');
    const s = await as(u).GET('/api/settings');
    expect(s.data!.scope_settings.available_features.api!.enabled).toBe(true);
  });
});
