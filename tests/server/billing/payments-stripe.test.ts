// Payments with Stripe: the real `stripe` SDK pointed at a local stand-in (tests/fakes/stripe.ts) that speaks the
// documented API, and webhook payloads signed with the SDK's own generateTestHeaderString. Bad input of issue 10:
// forged and stale signatures, the same event twice, events out of order, an unknown customer, two checkout
// clicks, 0 and 10001 minutes, cancel at period end, a paused subscription, an expired card.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ledger from '../../../server/domains/billing/ledger';
import { findLifecycle, runBillingClock } from '../../../server/domains/billing/subscriptions';
import { startStripeStandIn, type StripeStandIn } from '../../fakes/stripe';
import { createHarness, type Harness } from '../harness';
import { api } from '../helpers';
import { makeUser, type TestUser } from '../spaces/spaces-fixtures';
import { issuesOf, typedClient } from '../typed-client';

let h: Harness;
let stripe: StripeStandIn;
const APP = 'http://localhost';
const ok = `${APP}/account?payment-successful`;
const cancel = `${APP}/pricing?payment-subscription-canceled`;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  h = await createHarness(stripe.env());
  // Webhooks reach the app in-process, as Stripe's POST would.
  stripe.deliver = async (payload, signature) =>
    (await h.request('POST', '/api/payments/webhook', { raw: payload, headers: { 'stripe-signature': signature, 'content-type': 'application/json' } })).status;
}, 120_000);
afterAll(async () => {
  await h?.close();
  await stripe?.close();
});

let n = 0;
const user = () => makeUser(h, `pay-${++n}-${randomUUID().slice(0, 6)}@example.com`);
const minutes = async (u: TestUser) => (await ledger.balances(h.deps.db, u.defaultSpaceId)).minutes;
const ledgerRows = (u: TestUser) =>
  h.deps.db.query<{ kind: string; minutes: number; ref: string }>(`SELECT kind, minutes::float8 AS minutes, ref FROM minutes_ledger WHERE space_id = $1 ORDER BY id`, [u.defaultSpaceId]);
const sub = (u: TestUser) => findLifecycle(h.deps.db, u.id);
const as = (u: TestUser | null) => typedClient(h, u?.token);
const features = async (u: TestUser) => (await as(u).GET('/api/settings')).data!.scope_settings.available_features;
/** GET create_checkout_session_subscription for a plan's price (by `u`, or without credentials). */
const checkout = (u: TestUser | null, priceId: string, o: { success_url?: string; promotion_code?: string } = {}) =>
  as(u).GET('/api/payments/create_checkout_session_subscription', { params: { query: { price_id: priceId, success_url: ok, cancel_url: cancel, ...o } } });
/** GET create_checkout_session_payment: `q` minutes of the minute pack (for `spaceId`, else the caller's own space). */
const buyMinutes = (u: TestUser, q: number | string, spaceId?: string) =>
  as(u).GET('/api/payments/create_checkout_session_payment', {
    params: { query: { price_id: 'price_minutes', quantity: String(q), success_url: ok, cancel_url: `${APP}/?payment-credits-canceled`, ...(spaceId ? { space_id: spaceId } : {}) } },
  });
const sessionOf = (url: string) => stripe.sessions.get(url.split('/pay/')[1])!;

/** Subscribes a user to a plan through checkout and the hosted page (webhooks delivered). */
async function subscribe(u: TestUser, priceId = 'price_creator_month') {
  const r = await checkout(u, priceId);
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  const s = sessionOf(r.data!.checkout_url);
  await stripe.completeCheckout(String(s.id));
  return { session: s, subscription: stripe.subscriptions.get(String(s.subscription))! };
}

describe('catalogue and checkout', () => {
  it('lists the configured plans by metadata.position and the minute pack in cents', async () => {
    const u = await user();
    const r = await as(u).GET('/api/payments/products');
    expect(r.response.status).toBe(200);
    const catalogue = r.data!;
    expect(catalogue.provider).toBe('stripe');
    expect(catalogue.checkout).toBe('stripe');
    expect(catalogue.plans.map((p) => p.tier)).toEqual(['starter', 'creator', 'creator_pro', 'business', 'enterprise']);
    const creator = catalogue.plans[1]!;
    expect(creator).toMatchObject({ id: 'prod_creator', name: 'Creator', category: 'creator', is_archived: false, metadata: { position: 2, monthly_minutes: 100 } });
    expect(creator.prices).toEqual(
      expect.arrayContaining([
        { id: 'price_creator_month', unit_amount: 4900, currency: 'usd', interval: 'month', is_archived: false },
        { id: 'price_creator_year', unit_amount: 46800, currency: 'usd', interval: 'year', is_archived: false },
      ]),
    );
    expect(catalogue.plans[4]).toMatchObject({ category: 'enterprise', prices: [] });
    expect(catalogue.credits).toEqual([{ id: 'prod_minutes', name: 'Extra minutes', prices: [{ id: 'price_minutes', unit_amount: 200, currency: 'usd', interval: null, is_archived: false }] }]);
    expect(stripe.violations).toEqual([]);
  });

  it('opens a Checkout Session for a plan with the customer, the user and the return URLs', async () => {
    const u = await user();
    const r = await checkout(u, 'price_creator_pro_year');
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.checkout_url).toMatch(new RegExp(`^${stripe.url}/pay/cs_test_`));
    const s = sessionOf(r.data!.checkout_url);
    expect(s).toMatchObject({ mode: 'subscription', client_reference_id: u.id, success_url: ok, cancel_url: cancel, allow_promotion_codes: true });
    expect(s.line_items).toEqual([{ price: 'price_creator_pro_year', quantity: 1 }]);
    const cust = stripe.customers.get(String(s.customer))!;
    expect(cust).toMatchObject({ email: u.email, metadata: { user_id: u.id } });
    const row = await h.deps.db.one<{ customer_id: string }>(`SELECT customer_id FROM users WHERE id = $1`, [u.id]);
    expect(row.customer_id).toBe(cust.id);
  });

  it('refuses unknown prices, the minute pack as a plan, and return URLs of other sites', async () => {
    const u = await user();
    expect((await checkout(u, 'price_nope')).response.status).toBe(404);
    expect((await checkout(u, 'price_minutes')).response.status).toBe(422);
    const r = await checkout(u, 'price_creator_month', { success_url: 'https://evil.example/x' });
    expect(r.response.status).toBe(422);
    expect(issuesOf(r.error)[0]!.msg).toBe('The return address must be a page of this app');
    expect((await checkout(null, 'price_creator_month')).response.status).toBe(401);
  });

  it('two checkout clicks at once open one session and one customer', async () => {
    const u = await user();
    const before = stripe.sessions.size;
    const customersBefore = stripe.customers.size;
    const [a, b] = await Promise.all([checkout(u, 'price_business_month'), checkout(u, 'price_business_month')]);
    expect([a.response.status, b.response.status]).toEqual([200, 200]);
    expect(a.data!.checkout_url).toBe(b.data!.checkout_url);
    expect(stripe.sessions.size).toBe(before + 1);
    expect(stripe.customers.size).toBe(customersBefore + 1);
    const c = await checkout(u, 'price_business_month');
    expect(c.data!.checkout_url).toBe(a.data!.checkout_url);
  });
});

describe('webhooks', () => {
  it('a completed checkout makes the plan active with its minutes, and names the latest payment', async () => {
    const u = await user();
    const before = await minutes(u);
    await subscribe(u, 'price_creator_month');
    expect(stripe.deliveries.slice(-3).map((d) => d.status)).toEqual([200, 200, 200]);
    const s = await sub(u);
    expect(s).toMatchObject({ provider: 'stripe', tier: 'creator', status: 'active', price_id: 'price_creator_month', product_id: 'prod_creator', interval: 'month' });
    expect((await minutes(u)).total).toBe(before.total + 100);
    const me = await as(u).GET('/api/users/current');
    expect(me.data!.subscription).toMatchObject({ status: 'active', plan: { tier: 'creator', name: 'Creator', id: 'price_creator_month' }, provider: 'stripe' });
    const pay = await as(u).GET('/api/payments/latest_payment_info');
    expect(pay.data).toMatchObject({ items: [{ item_name: 'Creator Monthly', quantity: 1 }], amount: 4900, currency: 'usd' });
    // A second checkout for a plan while subscribed: change it from Manage subscription instead.
    expect((await checkout(u, 'price_business_month')).response.status).toBe(409);
  });

  it('a forged or stale signature is refused with 400 and changes nothing', async () => {
    const u = await user();
    const { subscription } = await subscribe(u, 'price_starter_month');
    const rows = await ledgerRows(u);
    stripe.updateSubscription(String(subscription.id), { status: 'canceled' });
    const event = stripe.event('customer.subscription.deleted', stripe.subscriptions.get(String(subscription.id))!);
    const payload = JSON.stringify(event);
    const send = (sig: string) => h.request('POST', '/api/payments/webhook', { raw: payload, headers: { 'stripe-signature': sig } });
    const forged = await send(stripe.sign(payload, { secret: 'whsec_not_the_secret' }));
    expect(forged.status).toBe(400);
    expect(await forged.json()).toEqual({ detail: 'Invalid webhook signature' });
    expect((await send(stripe.sign(payload, { timestamp: Math.floor(Date.now() / 1000) - 3600 }))).status).toBe(400);
    expect((await send('t=1,v1=deadbeef')).status).toBe(400);
    expect((await h.request('POST', '/api/payments/webhook', { raw: payload })).status).toBe(400);
    // The tampered body under a valid signature of the original.
    const sig = stripe.sign(payload);
    expect((await h.request('POST', '/api/payments/webhook', { raw: payload.replace('canceled', 'active'), headers: { 'stripe-signature': sig } })).status).toBe(400);
    expect((await sub(u))!.status).toBe('active');
    expect(await ledgerRows(u)).toEqual(rows);
    expect(await h.deps.db.maybeOne(`SELECT 1 FROM payment_events WHERE id = $1`, [String(event.id)])).toBeNull();
  });

  it('the same event twice changes nothing the second time', async () => {
    const u = await user();
    await subscribe(u);
    const r = await buyMinutes(u, 250);
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const events = await stripe.completeCheckout(String(sessionOf(r.data!.checkout_url).id));
    const after = await minutes(u);
    const payload = JSON.stringify(events[0]);
    const again = await h.request('POST', '/api/payments/webhook', { raw: payload, headers: { 'stripe-signature': stripe.sign(payload) } });
    expect(again.status).toBe(200);
    expect((await again.json()).outcome).toBe('duplicate');
    // Another event about the same checkout session (Stripe sends async_payment_succeeded too) credits nothing.
    await stripe.send(stripe.event('checkout.session.async_payment_succeeded', sessionOf(r.data!.checkout_url)));
    expect(await minutes(u)).toEqual(after);
    expect((await ledgerRows(u)).filter((x) => x.kind === 'purchase')).toEqual([{ kind: 'purchase', minutes: 250, ref: `payment:${String(events[0].data && (events[0].data as { object: { id: string } }).object.id)}` }]);
  });

  it('events out of order converge on the subscription as Stripe has it', async () => {
    const u = await user();
    const { subscription } = await subscribe(u, 'price_creator_pro_month');
    const id = String(subscription.id);
    stripe.updateSubscription(id, { cancel_at_period_end: true });
    const cancelEvent = stripe.event('customer.subscription.updated', stripe.subscriptions.get(id)!);
    stripe.updateSubscription(id, { cancel_at_period_end: false });
    const undoEvent = stripe.event('customer.subscription.updated', stripe.subscriptions.get(id)!, Number(cancelEvent.created) + 1);
    // Delivered newest first: the late, older one must not bring the cancellation back.
    expect(await stripe.send(undoEvent, cancelEvent)).toEqual([200, 200]);
    expect((await sub(u))!.cancel_at_period_end).toBe(false);

    // A new subscriber whose invoice.paid arrives before checkout.session.completed: minutes credited once.
    const v = await user();
    const r = await checkout(v, 'price_starter_month');
    const s = sessionOf(r.data!.checkout_url);
    const subB = stripe.createSubscription({ customer: String(s.customer), price: 'price_starter_month', metadata: { user_id: v.id } });
    Object.assign(s, { status: 'complete', payment_status: 'paid', subscription: subB.id });
    const before = await minutes(v);
    await stripe.send(stripe.event('invoice.paid', stripe.invoiceFor(String(subB.id))), stripe.event('customer.subscription.created', subB), stripe.event('checkout.session.completed', s));
    expect(await sub(v)).toMatchObject({ tier: 'starter', status: 'active' });
    expect((await minutes(v)).total).toBe(before.total + 25);
  });

  it('a webhook for an unknown customer is acknowledged and changes nothing', async () => {
    const stranger = stripe.addProduct({ name: 'x' });
    void stranger;
    const s = stripe.createSubscription({ customer: 'cus_unknown_to_the_app', price: 'price_business_month' });
    const count = await h.deps.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM subscriptions`);
    const ledgerCount = await h.deps.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM minutes_ledger`);
    const e = stripe.event('customer.subscription.created', s);
    expect(await stripe.send(e, stripe.event('invoice.paid', stripe.invoiceFor(String(s.id))))).toEqual([200, 200]);
    expect((await h.deps.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM subscriptions`)).n).toBe(count.n);
    expect((await h.deps.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM minutes_ledger`)).n).toBe(ledgerCount.n);
    expect(await h.deps.db.one(`SELECT outcome FROM payment_events WHERE id = $1`, [String(e.id)])).toEqual({ outcome: 'unknown_customer' });
  });

  it('cancel at period end keeps the plan until then, then it ends and its minutes lapse', async () => {
    const u = await user();
    const { subscription } = await subscribe(u, 'price_creator_pro_month');
    const id = String(subscription.id);
    stripe.updateSubscription(id, { cancel_at_period_end: true, canceled_at: Math.floor(Date.now() / 1000) });
    await stripe.send(stripe.event('customer.subscription.updated', stripe.subscriptions.get(id)!));
    expect(await sub(u)).toMatchObject({ cancel_at_period_end: true, status: 'active' });
    expect((await features(u)).subtitles!.enabled).toBe(true);
    const me = await as(u).GET('/api/users/current');
    expect(me.data!.subscription!.cancel_at_period_end).toBe(true);
    // Undo through the app (cancel_subscription_cancellation): Stripe is told, and the row follows.
    const undo = await as(u).POST('/api/payments/cancel_subscription_cancellation');
    expect(undo.response.status, JSON.stringify(undo.error)).toBe(200);
    expect(stripe.subscriptions.get(id)!.cancel_at_period_end).toBe(false);
    expect(undo.data!.cancel_at_period_end).toBe(false);
    expect((await as(u).POST('/api/payments/cancel_subscription_cancellation')).response.status).toBe(409);
    // Cancel again, and the period ends: Stripe deletes the subscription.
    expect((await as(u).POST('/api/payments/cancel_subscription')).data!.cancel_at_period_end).toBe(true);
    stripe.updateSubscription(id, { status: 'canceled', ended_at: Math.floor(Date.now() / 1000) });
    await stripe.send(stripe.event('customer.subscription.deleted', stripe.subscriptions.get(id)!));
    expect((await sub(u))!.status).toBe('canceled');
    expect((await features(u)).subtitles!.enabled).toBe(false);
    expect((await minutes(u)).available).toBe(3);
  });

  it('a paused subscription locks the plan features and keeps the minutes', async () => {
    const u = await user();
    const { subscription } = await subscribe(u, 'price_creator_pro_month');
    const id = String(subscription.id);
    const kept = (await minutes(u)).available;
    stripe.updateSubscription(id, { pause_collection: { behavior: 'void', resumes_at: null } });
    await stripe.send(stripe.event('customer.subscription.updated', stripe.subscriptions.get(id)!));
    expect((await sub(u))!.payments_collection_paused).toBe(true);
    const f = await features(u);
    expect(f.subtitles!.enabled).toBe(false);
    expect(f.srt_download!.enabled).toBe(false);
    // Untyped: mode 'shorten' is no mode of the tool, and the plan gate refuses before the body is read.
    const refused = await api(h, 'POST', `/api/tools/summarize?space_id=${u.defaultSpaceId}`, { token: u.token, body: { text: 'Hello there.', mode: 'shorten' } });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('feature_not_in_plan');
    await runBillingClock(h.deps.db);
    expect((await minutes(u)).available).toBe(kept);
    // Resumed: the features are back.
    stripe.updateSubscription(id, { pause_collection: null });
    await stripe.send(stripe.event('customer.subscription.resumed', stripe.subscriptions.get(id)!));
    expect((await features(u)).subtitles!.enabled).toBe(true);
  });

  it('an expired card: past_due locks the features and the account says why', async () => {
    const u = await user();
    const { subscription } = await subscribe(u, 'price_business_month');
    const id = String(subscription.id);
    const customer = String(subscription.customer);
    stripe.updateSubscription(id, { status: 'past_due' });
    await stripe.send(
      stripe.event('charge.failed', { id: 'ch_1', object: 'charge', customer, failure_code: 'expired_card', failure_message: 'Your card has expired.' }),
      stripe.event('invoice.payment_failed', stripe.invoiceFor(id, { paid: false })),
    );
    const me = await as(u).GET('/api/users/current');
    expect(me.data!.subscription).toMatchObject({ status: 'past_due', payment_issue: 'expired_card' });
    expect((await features(u)).glossary!.enabled).toBe(false);
    // The card is replaced and the invoice paid: the plan is back, the issue cleared.
    stripe.updateSubscription(id, { status: 'active' });
    await stripe.send(stripe.event('invoice.paid', stripe.invoiceFor(id)));
    const after = await as(u).GET('/api/users/current');
    expect(after.data!.subscription).toMatchObject({ status: 'active', payment_issue: null });
    expect((await features(u)).glossary!.enabled).toBe(true);
  });

  it('a renewal credits the next month once', async () => {
    const u = await user();
    const r = await checkout(u, 'price_starter_month');
    const customer = String(sessionOf(r.data!.checkout_url).customer);
    // Subscribed a month ago: the renewal's period begins now.
    const monthAgo = new Date();
    monthAgo.setUTCMonth(monthAgo.getUTCMonth() - 1);
    const s = stripe.createSubscription({ customer, price: 'price_starter_month', metadata: { user_id: u.id }, start: Math.floor(monthAgo.getTime() / 1000) - 60 });
    const id = String(s.id);
    await stripe.send(stripe.event('customer.subscription.created', s));
    const before = (await minutes(u)).total;
    stripe.renew(id);
    const inv = stripe.invoiceFor(id);
    await stripe.send(stripe.event('invoice.paid', inv), stripe.event('customer.subscription.updated', stripe.subscriptions.get(id)!));
    await stripe.send(stripe.event('invoice.paid', inv));
    expect((await minutes(u)).total).toBe(before + 25);
    await runBillingClock(h.deps.db);
    expect((await minutes(u)).total).toBe(before + 25);
  });

  it('an enterprise subscription applies when its product is the catalogue enterprise plan', async () => {
    const u = await user();
    const r = await checkout(u, 'price_starter_month');
    const s = sessionOf(r.data!.checkout_url);
    const ent = stripe.createSubscription({ customer: String(s.customer), price: 'price_enterprise_custom', metadata: { user_id: u.id } });
    await stripe.send(stripe.event('customer.subscription.created', ent));
    expect(await sub(u)).toMatchObject({ tier: 'enterprise', product_id: 'prod_enterprise' });
    expect((await features(u)).api!.enabled).toBe(true);
    // Not offered on the pricing page: the price is listed as archived.
    const products = await as(u).GET('/api/payments/products');
    const plan = products.data!.plans.find((p) => p.id === 'prod_enterprise');
    expect(plan!.prices).toEqual([expect.objectContaining({ id: 'price_enterprise_custom', is_archived: true })]);
  });
});

describe('minutes, portal, promotion codes, plan changes', () => {
  it('buys minutes: trial users cannot, 0 and 10001 are refused, a purchase is credited once', async () => {
    const trial = await user();
    const refused = await buyMinutes(trial, 100);
    expect(refused.response.status).toBe(403);
    expect(refused.error!.detail).toBe('Buying minutes needs an active subscription: choose a plan first');
    const u = await user();
    await subscribe(u);
    for (const q of [0, 10001, -5, 'abc', '1e3', 2.5]) {
      const r = await buyMinutes(u, q);
      expect(r.response.status, String(q)).toBe(422);
    }
    const body = { id: 'price_minutes', quantity: 0, success_url: ok, cancel_url: ok };
    const buy = (b: typeof body) => as(u).POST('/api/payments/create_checkout_session_payment', { body: b });
    expect((await buy(body)).response.status).toBe(422);
    expect((await buy({ ...body, quantity: 10001 })).response.status).toBe(422);
    const good = await buy({ ...body, quantity: 10000 });
    expect(good.response.status, JSON.stringify(good.error)).toBe(200);
    const s = sessionOf(good.data!.checkout_url);
    expect(s).toMatchObject({ mode: 'payment', amount_total: 10000 * 200 });
    expect(s.line_items).toEqual([{ price: 'price_minutes', quantity: 10000 }]);
    const before = await minutes(u);
    await stripe.completeCheckout(String(s.id));
    expect((await minutes(u)).available).toBe(before.available + 10000);
    const pay = await as(u).GET('/api/payments/latest_payment_info');
    expect(pay.data!.items).toEqual([{ item_name: 'Extra minutes', quantity: 10000 }]);
  });

  it('only the owner of a Teamspace buys minutes for it', async () => {
    const owner = await user();
    await subscribe(owner, 'price_creator_pro_month');
    const member = await user();
    await subscribe(member);
    await h.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [owner.defaultSpaceId, member.id]);
    const r = await buyMinutes(member, 10, owner.defaultSpaceId);
    expect(r.response.status).toBe(403);
    expect(r.error!.detail).toBe('Only the Teamspace owner can buy minutes for it');
  });

  it('billing portal, billing details, promotion codes', async () => {
    const u = await user();
    const portalOf = () => as(u).GET('/api/payments/billing_portal', { params: { query: { return_url: `${APP}/account` } } });
    expect((await portalOf()).response.status).toBe(409);
    await subscribe(u);
    const portal = await portalOf();
    expect(portal.response.status).toBe(200);
    expect(portal.data!.billing_portal_url).toMatch(new RegExp(`^${stripe.url}/portal/bps_`));
    const details = await as(u).POST('/api/payments/update_customer_billing_details', {
      body: { name: 'Ada Lovelace', address: { line1: '1 Main St', city: 'London', country: 'GB' } },
    });
    expect(details.response.status, JSON.stringify(details.error)).toBe(200);
    const cid = (await h.deps.db.one<{ customer_id: string }>(`SELECT customer_id FROM users WHERE id = $1`, [u.id])).customer_id;
    expect(stripe.customers.get(cid)).toMatchObject({ name: 'Ada Lovelace', address: { line1: '1 Main St', city: 'London', country: 'GB' } });
    expect((await as(u).POST('/api/payments/update_customer_billing_details', { body: { address: { country: 'Britain' } } })).response.status).toBe(422);
    stripe.addPromotionCode('LAUNCH20', { percent_off: 20, duration: 'repeating' });
    const promo = await as(u).POST('/api/payments/promotion_code', { body: { code: 'LAUNCH20' } });
    expect(promo.response.status).toBe(200);
    expect(promo.data).toMatchObject({ code: 'LAUNCH20', coupon: { percent_off: 20, duration: 'repeating' } });
    expect((await as(u).POST('/api/payments/promotion_code', { body: { code: 'NOPE' } })).response.status).toBe(404);
    // A promotion code applied to a checkout (no free-form codes then).
    const v = await user();
    const r = await checkout(v, 'price_starter_year', { promotion_code: promo.data!.id });
    expect(sessionOf(r.data!.checkout_url)).toMatchObject({ discounts: [{ promotion_code: promo.data!.id }], allow_promotion_codes: false });
  });

  it('changes the plan of a subscription (POST subscription) and credits the bigger plan', async () => {
    const u = await user();
    const { subscription } = await subscribe(u, 'price_creator_month');
    const before = (await minutes(u)).total;
    const r = await as(u).POST('/api/payments/subscription', { body: { price_id: 'price_business_month' } });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.plan).toMatchObject({ id: 'price_business_month', tier: 'business' });
    const item = (stripe.subscriptions.get(String(subscription.id))!.items as { data: { price: { id: string } }[] }).data[0];
    expect(item.price.id).toBe('price_business_month');
    expect((await minutes(u)).total).toBe(before + 1900);
    const none = await user();
    expect((await as(none).POST('/api/payments/subscription', { body: { price_id: 'price_business_month' } })).response.status).toBe(409);
  });
});
