// Stripe webhook intake: verify the signature with the SDK, apply each event once (its id is stored in
// payment_events in the same transaction as what it changes), and drive subscriptions (./subscriptions.ts) and the
// minutes ledger (./ledger.ts).
// Order does not matter: a subscription event applies the subscription as the API reports it when the event is
// processed (not the copy inside the event), so an old event delivered late changes nothing, and a minute pack is
// credited once per checkout session whatever the number of events about it.
import type Stripe from 'stripe';
import type { Db } from '../../db/index';
import { DomainError } from '../../errors';
import * as ledger from './ledger';
import { isSubscriptionActive } from './plan';
import * as repo from './payments-repository';
import type { StripeProvider } from './stripe-provider';
import { applyPlan, cancelAtPeriodEnd, expirePlanMinutes, findLifecycle, pause } from './subscriptions';
import { BUY_MINUTES_MAX } from '../../../contract/constants';

export const INVALID_SIGNATURE = 'Invalid webhook signature';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ACTIVE = new Set(['active', 'trialing', 'incomplete', 'incomplete_expired']);
const ENDED = new Set(['canceled', 'incomplete_expired', 'unpaid']);

export type Outcome = 'applied' | 'duplicate' | 'ignored' | 'unknown_customer' | 'stale' | 'awaiting_payment' | 'catalogue';

const idOf = (x: string | { id: string } | null | undefined): string | null => (x == null ? null : typeof x === 'string' ? x : x.id);
const at = (s: number | null | undefined) => (s == null ? null : new Date(s * 1000));

/** The subscription an event is about (its current state is fetched before applying it). */
export function subscriptionIdOf(event: Stripe.Event): string | null {
  const o = event.data.object as unknown as Record<string, unknown>;
  if (event.type.startsWith('customer.subscription.')) return typeof o.id === 'string' ? o.id : null;
  if (event.type.startsWith('checkout.session.')) return o.mode === 'subscription' ? idOf(o.subscription as string | null) : null;
  if (event.type.startsWith('invoice.')) {
    const parent = o.parent as { subscription_details?: { subscription?: string | { id: string } } } | null | undefined;
    return idOf(parent?.subscription_details?.subscription ?? (o.subscription as string | null | undefined));
  }
  return null;
}

/** POST /api/payments/webhook. Throws 400 on a bad signature; returns what the event did. */
export async function handleStripeWebhook(
  db: Db,
  p: StripeProvider,
  raw: string,
  signature: string | undefined,
  log: (msg: string, meta?: Record<string, unknown>) => void = () => {},
): Promise<{ received: true; outcome: Outcome }> {
  let event: Stripe.Event;
  try {
    event = p.constructEvent(raw, signature);
  } catch {
    throw new DomainError('bad_request', INVALID_SIGNATURE);
  }
  if (await repo.eventSeen(db, 'stripe', event.id)) return { received: true, outcome: 'duplicate' };
  const subId = subscriptionIdOf(event);
  let current: Stripe.Subscription | null = null;
  if (subId) {
    try {
      current = await p.retrieveSubscription(subId);
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode !== 404) throw e;
      // A subscription the API no longer knows: the event's own copy is all there is.
      current = event.type.startsWith('customer.subscription.') ? (event.data.object as Stripe.Subscription) : null;
    }
  }
  const outcome = await db.tx(async (t) => {
    const fresh = await repo.recordEvent(t, { provider: 'stripe', id: event.id, type: event.type, created: at(event.created), outcome: 'applied' });
    if (!fresh) return 'duplicate' as const;
    const o = await applyEvent(t, p, event, current);
    await repo.setEventOutcome(t, 'stripe', event.id, o);
    return o;
  });
  if (outcome === 'catalogue') {
    await p.syncCatalogue(db).catch((e: unknown) => log('[payments] catalogue refresh failed', { error: String(e) }));
  }
  if (outcome === 'unknown_customer') log('[payments] webhook for an unknown customer', { event: event.id, type: event.type });
  return { received: true, outcome };
}

async function userFor(db: Db, customerId: string | null, userId: string | null | undefined): Promise<repo.BillingUser | null> {
  if (customerId) {
    const u = await repo.userByCustomer(db, customerId);
    if (u) return u;
  }
  if (userId && UUID_RE.test(userId)) {
    const u = await repo.userById(db, userId);
    // Our own metadata names the user; the customer becomes theirs when they have none yet.
    if (u && customerId && !u.customer_id) {
      await repo.setCustomerId(db, u, customerId);
      return { ...u, customer_id: customerId };
    }
    if (u && (!customerId || u.customer_id === customerId)) return u;
  }
  return null;
}

async function applyEvent(db: Db, p: StripeProvider, event: Stripe.Event, current: Stripe.Subscription | null): Promise<Outcome> {
  const type = event.type as string;
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return checkoutCompleted(db, p, event.data.object as Stripe.Checkout.Session, current);
    case 'checkout.session.expired':
    case 'checkout.session.async_payment_failed':
      await repo.setCheckoutStatus(db, 'stripe', (event.data.object as Stripe.Checkout.Session).id, 'expired');
      return 'applied';
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
    case 'customer.subscription.paused':
    case 'customer.subscription.resumed':
    case 'customer.subscription.pending_update_applied':
    case 'customer.subscription.pending_update_expired':
      return syncSubscription(db, p, current ?? (event.data.object as Stripe.Subscription));
    case 'invoice.paid':
    case 'invoice.payment_succeeded':
      return invoicePaid(db, p, event.data.object as Stripe.Invoice, current);
    case 'invoice.payment_failed': {
      const inv = event.data.object as Stripe.Invoice;
      const user = await userFor(db, idOf(inv.customer), null);
      if (!user) return 'unknown_customer';
      const sub = await findLifecycle(db, user.id);
      if (sub && sub.payment_issue !== 'expired_card') await repo.setPaymentIssue(db, user.id, 'payment_failed');
      if (current) await syncSubscription(db, p, current);
      return 'applied';
    }
    case 'charge.failed': {
      const ch = event.data.object as Stripe.Charge;
      const user = await userFor(db, idOf(ch.customer), null);
      if (!user) return 'unknown_customer';
      await repo.setPaymentIssue(db, user.id, ch.failure_code === 'expired_card' ? 'expired_card' : 'payment_failed');
      return 'applied';
    }
    case 'customer.source.expiring': {
      const card = event.data.object as unknown as { customer?: string | { id: string } | null };
      const user = await userFor(db, idOf(card.customer ?? null), null);
      if (!user) return 'unknown_customer';
      const sub = await findLifecycle(db, user.id);
      if (sub && !sub.payment_issue) await repo.setPaymentIssue(db, user.id, 'card_expiring');
      return 'applied';
    }
    case 'customer.deleted':
      await repo.clearCustomer(db, (event.data.object as Stripe.Customer).id);
      return 'applied';
    default:
      if (/^(product|price)\.(created|updated|deleted)$/.test(type)) return 'catalogue';
      return 'ignored';
  }
}

/** Applies a subscription as Stripe reports it to the user's subscription row (and its minutes). */
export async function syncSubscription(db: Db, p: StripeProvider, sub: Stripe.Subscription): Promise<Outcome> {
  const customerId = idOf(sub.customer);
  const user = await userFor(db, customerId, sub.metadata?.user_id);
  if (!user) return 'unknown_customer';
  const item = sub.items?.data?.[0];
  if (!item) return 'ignored';
  const cur = await findLifecycle(db, user.id);
  // Another subscription that is running wins over an older one that ended (a user who re-subscribed).
  if (cur && cur.id !== sub.id && isSubscriptionActive(cur) && !ACTIVE.has(sub.status)) return 'stale';
  const info = await p.priceInfo(db, item.price);
  const legacy = sub as unknown as { current_period_start?: number; current_period_end?: number };
  const start = at(item.current_period_start ?? legacy.current_period_start);
  const end = at(item.current_period_end ?? legacy.current_period_end);
  await applyPlan(db, {
    userId: user.id,
    tier: info.tier,
    interval: info.interval,
    status: sub.status,
    id: sub.id,
    priceId: item.price.id,
    productId: info.productId,
    customerId,
    provider: 'stripe',
    periodStart: start ?? undefined,
    periodEnd: end ?? undefined,
  });
  if (sub.cancel_at_period_end || (sub.cancel_at && !ENDED.has(sub.status))) await cancelAtPeriodEnd(db, user.id, at(sub.canceled_at) ?? new Date());
  if (sub.pause_collection) await pause(db, user.id);
  if (ENDED.has(sub.status)) {
    const row = await findLifecycle(db, user.id);
    if (row) await expirePlanMinutes(db, row);
  }
  return 'applied';
}

async function checkoutCompleted(db: Db, p: StripeProvider, s: Stripe.Checkout.Session, current: Stripe.Subscription | null): Promise<Outcome> {
  const user = await userFor(db, idOf(s.customer), s.client_reference_id ?? s.metadata?.user_id);
  if (!user) return 'unknown_customer';
  if (s.mode === 'subscription') {
    await repo.setCheckoutStatus(db, 'stripe', s.id, 'complete');
    return current ? syncSubscription(db, p, current) : 'applied';
  }
  if (s.mode !== 'payment') return 'ignored';
  if (s.payment_status !== 'paid' && s.payment_status !== 'no_payment_required') return 'awaiting_payment';
  await repo.setCheckoutStatus(db, 'stripe', s.id, 'complete');
  const mine = await repo.findCheckout(db, 'stripe', s.id);
  const minutes = mine?.quantity ?? Number(s.metadata?.minutes);
  if (!Number.isInteger(minutes) || minutes < 1 || minutes > BUY_MINUTES_MAX) return 'ignored';
  let spaceId = mine?.space_id ?? (UUID_RE.test(s.metadata?.space_id ?? '') ? s.metadata!.space_id : null);
  if (spaceId && (await repo.spaceOwner(db, spaceId)) === null) spaceId = null;
  spaceId ??= await repo.defaultSpaceId(db, user.id);
  if (!spaceId) return 'ignored';
  await ledger.post(db, { spaceId, kind: 'purchase', minutes, ref: `payment:${s.id}`, userId: user.id, note: 'minute pack' });
  await repo.recordPayment(db, {
    provider: 'stripe', ref: s.id, userId: user.id, kind: 'credits', amount: s.amount_total ?? null, currency: s.currency ?? null,
    items: [{ item_name: 'Extra minutes', quantity: minutes }],
  });
  return 'applied';
}

async function invoicePaid(db: Db, p: StripeProvider, inv: Stripe.Invoice, current: Stripe.Subscription | null): Promise<Outcome> {
  const user = await userFor(db, idOf(inv.customer), null);
  if (!user) return 'unknown_customer';
  if (!subscriptionIdOf({ type: 'invoice.paid', data: { object: inv } } as unknown as Stripe.Event)) return 'ignored';
  // The subscription first: a renewal's new period, and the price's product in the catalogue for the item names.
  if (current) await syncSubscription(db, p, current);
  const items: { item_name: string; quantity: number }[] = [];
  for (const line of inv.lines?.data ?? []) {
    const priceId = idOf(line.pricing?.price_details?.price ?? null);
    const price = priceId ? await repo.findPrice(db, 'stripe', priceId) : null;
    const product = price ? await repo.findProduct(db, 'stripe', price.product_id) : null;
    const name = product?.name ?? line.description ?? 'Subscription';
    const period = price?.interval === 'year' ? 'Annual' : 'Monthly';
    items.push({ item_name: `${name} ${period}`, quantity: line.quantity ?? 1 });
  }
  await repo.recordPayment(db, {
    provider: 'stripe', ref: inv.id ?? `invoice:${Date.now()}`, userId: user.id, kind: 'subscription', amount: inv.amount_paid ?? null,
    currency: inv.currency ?? null, items,
  });
  await repo.setPaymentIssue(db, user.id, null);
  return 'applied';
}
