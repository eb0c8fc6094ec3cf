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
const planUrl = (price: string) =>
  `/api/payments/create_checkout_session_subscription?price_id=${price}&success_url=${encodeURIComponent(ok)}&cancel_url=${encodeURIComponent(`${APP}/pricing`)}`;
const minutesUrl = (q: number) =>
  `/api/payments/create_checkout_session_payment?price_id=price_local_minutes&quantity=${q}&success_url=${encodeURIComponent(ok)}&cancel_url=${encodeURIComponent(APP)}`;
const setMode = (mode: 'free' | 'admin', token = admin.token) => api(h, 'PUT', '/api/admin/payments', { token, body: { local_checkout: mode } });

describe('local provider', () => {
  it('lists the built-in plans without prices, sorted, and says plans are granted by the administrator', async () => {
    const u = await user();
    const r = await api(h, 'GET', '/api/payments/products', { token: u.token });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ provider: 'local', checkout: 'admin' });
    expect(r.json.plans.map((p: { tier: string }) => p.tier)).toEqual(['starter', 'creator', 'creator_pro', 'business', 'enterprise', 'custom']);
    expect(r.json.plans[0].prices).toEqual([
      { id: 'price_local_starter_month', unit_amount: null, currency: 'usd', interval: 'month', is_archived: false },
      { id: 'price_local_starter_year', unit_amount: null, currency: 'usd', interval: 'year', is_archived: false },
    ]);
    expect(r.json.credits[0].prices[0].id).toBe('price_local_minutes');
    const refused = await api(h, 'GET', planUrl('price_local_creator_month'), { token: u.token });
    expect(refused.status).toBe(403);
    expect(refused.json.detail).toMatch(/granted by its administrator/);
    expect((await api(h, 'POST', '/api/payments/webhook', { body: {} })).status).toBe(404);
    expect((await api(h, 'GET', `/api/payments/billing_portal?return_url=${encodeURIComponent(APP)}`, { token: u.token })).status).toBe(409);
  });

  it('only a superuser switches self-service checkout on; then a plan is granted at once', async () => {
    const u = await user();
    expect((await setMode('free', u.token)).status).toBe(403);
    expect((await setMode('free')).json).toEqual({ local_checkout: 'free', provider: 'local' });
    const before = await minutes(u);
    const r = await api(h, 'GET', planUrl('price_local_creator_pro_year'), { token: u.token });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.checkout_url).toBe(ok);
    expect(await findLifecycle(h.deps.db, u.id)).toMatchObject({ tier: 'creator_pro', interval: 'year', provider: 'local', price_id: 'price_local_creator_pro_year' });
    expect((await minutes(u)).total).toBe(before.total + 500);
    const pay = await api(h, 'GET', '/api/payments/latest_payment_info', { token: u.token });
    expect(pay.json.items).toEqual([{ item_name: 'Creator Pro Annual', quantity: 1 }]);
    // A second click: the same plan, no second grant.
    await api(h, 'GET', planUrl('price_local_creator_pro_year'), { token: u.token });
    expect((await minutes(u)).total).toBe(before.total + 500);
    // Change plan and cancel/undo are self-service too.
    const change = await api(h, 'POST', '/api/payments/subscription', { token: u.token, body: { price_id: 'price_local_business_year' } });
    expect(change.json.plan).toMatchObject({ tier: 'business', interval: 'year' });
    expect((await api(h, 'POST', '/api/payments/cancel_subscription', { token: u.token })).json.cancel_at_period_end).toBe(true);
    expect((await api(h, 'POST', '/api/payments/cancel_subscription_cancellation', { token: u.token })).json.cancel_at_period_end).toBe(false);
    await setMode('admin');
  });

  it('minute packs: 0 and 10001 refused, trial refused, one purchase per click', async () => {
    await setMode('free');
    const trial = await user();
    expect((await api(h, 'GET', minutesUrl(10), { token: trial.token })).status).toBe(403);
    const u = await user();
    await api(h, 'GET', planUrl('price_local_creator_month'), { token: u.token });
    expect((await api(h, 'GET', minutesUrl(0), { token: u.token })).status).toBe(422);
    expect((await api(h, 'GET', minutesUrl(10001), { token: u.token })).status).toBe(422);
    const before = await minutes(u);
    const [a, b] = await Promise.all([api(h, 'GET', minutesUrl(40), { token: u.token }), api(h, 'GET', minutesUrl(40), { token: u.token })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await minutes(u)).available).toBe(before.available + 40);
    await setMode('admin');
    expect((await api(h, 'GET', minutesUrl(40), { token: u.token })).status).toBe(403);
  });

  it('a superuser grants minutes once per request id; others cannot', async () => {
    const u = await user();
    const body = { minutes: 120, note: 'conference pack', request_id: randomUUID() };
    expect((await api(h, 'POST', `/api/admin/users/${u.id}/minutes`, { token: u.token, body })).status).toBe(403);
    const r1 = await api(h, 'POST', `/api/admin/users/${u.id}/minutes`, { token: admin.token, body });
    const r2 = await api(h, 'POST', `/api/admin/users/${u.id}/minutes`, { token: admin.token, body });
    expect(r1.json).toMatchObject({ granted: true, space_id: u.defaultSpaceId, minutes: { total: 123, available: 123 } });
    expect(r2.json).toMatchObject({ granted: false, minutes: { total: 123 } });
    expect((await api(h, 'POST', `/api/admin/users/${u.id}/minutes`, { token: admin.token, body: { ...body, minutes: 0 } })).status).toBe(422);
    expect((await api(h, 'POST', `/api/admin/users/${randomUUID()}/minutes`, { token: admin.token, body: { ...body, request_id: randomUUID() } })).status).toBe(404);
    const list = await api(h, 'GET', `/api/admin/users?email=${encodeURIComponent(u.email)}`, { token: admin.token });
    expect(list.json[0].minutes).toEqual({ total: 123, used: 0 });
  });

  it('an enterprise grant is active (its product is the catalogue enterprise plan)', async () => {
    const u = await user();
    const r = await api(h, 'PATCH', `/api/admin/users/${u.id}`, { token: admin.token, body: { plan: 'enterprise' } });
    expect(r.status).toBe(200);
    expect(r.json.subscription.plan.product_id).toBe('prod_local_enterprise');
    const s = await api(h, 'GET', '/api/settings', { token: u.token });
    expect(s.json.scope_settings.available_features.api.enabled).toBe(true);
  });
});
