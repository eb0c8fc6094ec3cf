// All SQL of payments: the catalogue (payment_products, payment_prices), processed webhook events, checkout
// sessions, completed payments, the billing customer of a user and the payment issue of a subscription.
import type { Db } from '../../db/index';
import { all, first, json, one, q, run, sql } from '../../db/sql';
import type { JsonObject } from '../../db/schema';
import { invalidateAccount, invalidateSubscription } from '../users/cache';

export interface ProductRow {
  provider: string;
  id: string;
  kind: 'plan' | 'credits';
  tier: string | null;
  category: string;
  name: string;
  is_archived: boolean;
  position: number;
  metadata: JsonObject;
}
export interface PriceRow {
  provider: string;
  id: string;
  product_id: string;
  unit_amount: number | null;
  currency: string;
  interval: string | null;
  is_archived: boolean;
  is_current: boolean;
}
export interface ProductInput {
  id: string;
  kind: 'plan' | 'credits';
  tier: string | null;
  category: string;
  name: string;
  isArchived: boolean;
  position: number;
  metadata: Record<string, unknown>;
}
export interface PriceInput {
  id: string;
  productId: string;
  unitAmount: number | null;
  currency: string;
  interval: 'month' | 'year' | null;
  isArchived: boolean;
  isCurrent: boolean;
}

const PRODUCT_COLS = ['provider', 'id', 'kind', 'tier', 'category', 'name', 'is_archived', 'position', 'metadata'] as const;
const PRICE_COLS = ['provider', 'id', 'product_id', 'unit_amount', 'currency', 'interval', 'is_archived', 'is_current'] as const;
type ProductNarrow = { kind: 'plan' | 'credits'; metadata: JsonObject };

export async function upsertProduct(db: Db, provider: string, p: ProductInput): Promise<void> {
  await run(
    db,
    q
      .insertInto('payment_products')
      .values({
        provider, id: p.id, kind: p.kind, tier: p.tier, category: p.category, name: p.name, is_archived: p.isArchived, position: p.position,
        metadata: json(p.metadata),
      })
      .onConflict((c) =>
        c.columns(['provider', 'id']).doUpdateSet((e) => ({
          kind: e.ref('excluded.kind'), tier: e.ref('excluded.tier'), category: e.ref('excluded.category'), name: e.ref('excluded.name'),
          is_archived: e.ref('excluded.is_archived'), position: e.ref('excluded.position'), metadata: e.ref('excluded.metadata'),
          updated_at: sql`now()`,
        })),
      ),
  );
}

export async function upsertPrice(db: Db, provider: string, p: PriceInput): Promise<void> {
  await run(
    db,
    q
      .insertInto('payment_prices')
      .values({
        provider, id: p.id, product_id: p.productId, unit_amount: p.unitAmount, currency: p.currency, interval: p.interval,
        is_archived: p.isArchived, is_current: p.isCurrent,
      })
      .onConflict((c) =>
        c.columns(['provider', 'id']).doUpdateSet((e) => ({
          product_id: e.ref('excluded.product_id'), unit_amount: e.ref('excluded.unit_amount'), currency: e.ref('excluded.currency'),
          interval: e.ref('excluded.interval'), is_archived: e.ref('excluded.is_archived'), is_current: e.ref('excluded.is_current'),
          updated_at: sql`now()`,
        })),
      ),
  );
}

/** Prices of the provider no longer configured stop being offered (they stay known as archived prices). */
export async function retirePricesExcept(db: Db, provider: string, keep: string[]): Promise<void> {
  await run(
    db,
    q
      .updateTable('payment_prices')
      .set({ is_current: false, updated_at: sql`now()` })
      .where('provider', '=', provider)
      .where('is_current', '=', true)
      .where(sql<boolean>`id NOT IN (SELECT jsonb_array_elements_text(${JSON.stringify(keep)}::jsonb))`),
  );
}

export function listProducts(db: Db, provider: string): Promise<ProductRow[]> {
  return all(
    db,
    q.selectFrom('payment_products').select(PRODUCT_COLS).where('provider', '=', provider).orderBy('position').orderBy('id').$narrowType<ProductNarrow>(),
  );
}
export function listPrices(db: Db, provider: string): Promise<PriceRow[]> {
  return all(
    db,
    q.selectFrom('payment_prices').select(PRICE_COLS).where('provider', '=', provider).orderBy(sql`interval NULLS FIRST`).orderBy('id'),
  );
}
export function findPrice(db: Db, provider: string, id: string): Promise<PriceRow | null> {
  return first(db, q.selectFrom('payment_prices').select(PRICE_COLS).where('provider', '=', provider).where('id', '=', id));
}
export function findProduct(db: Db, provider: string, id: string): Promise<ProductRow | null> {
  return first(
    db,
    q.selectFrom('payment_products').select(PRODUCT_COLS).where('provider', '=', provider).where('id', '=', id).$narrowType<ProductNarrow>(),
  );
}
export async function enterpriseProductIds(db: Db): Promise<string[]> {
  const rows = await all(db, q.selectFrom('payment_products').select('id').where('kind', '=', 'plan').where('category', '=', 'enterprise'));
  return rows.map((r) => r.id);
}
export async function catalogueUpdatedAt(db: Db, provider: string): Promise<Date | null> {
  const r = await one(
    db,
    q.selectFrom('payment_prices').select((e) => e.fn.max('updated_at').as('at')).where('provider', '=', provider).where('is_current', '=', true),
  );
  return r.at ? new Date(r.at) : null;
}

// ------------------------------------------------------------------------------------------------ events

/** Records an event id; false when it was already recorded (a replay). Run in the transaction that applies it. */
export async function recordEvent(db: Db, e: { provider: string; id: string; type: string; created: Date | null; outcome: string }): Promise<boolean> {
  const rows = await all(
    db,
    q
      .insertInto('payment_events')
      .values({ provider: e.provider, id: e.id, type: e.type, created_at: e.created, outcome: e.outcome })
      .onConflict((c) => c.columns(['provider', 'id']).doNothing())
      .returning('id'),
  );
  return rows.length > 0;
}
export async function setEventOutcome(db: Db, provider: string, id: string, outcome: string): Promise<void> {
  await run(db, q.updateTable('payment_events').set({ outcome }).where('provider', '=', provider).where('id', '=', id));
}
export async function eventSeen(db: Db, provider: string, id: string): Promise<boolean> {
  return (await first(db, q.selectFrom('payment_events').select(sql<number>`1`.as('x')).where('provider', '=', provider).where('id', '=', id))) !== null;
}

// ------------------------------------------------------------------------------------------------ checkouts

export interface CheckoutRow {
  provider: string;
  id: string;
  user_id: string;
  space_id: string | null;
  mode: 'subscription' | 'payment';
  price_id: string;
  quantity: number;
  url: string;
  success_url: string;
  cancel_url: string;
  status: 'open' | 'complete' | 'expired';
  created_at: Date | string;
}
const CHECKOUT_COLS = [
  'provider', 'id', 'user_id', 'space_id', 'mode', 'price_id', 'quantity', 'url', 'success_url', 'cancel_url', 'status', 'created_at',
] as const;
type CheckoutNarrow = { mode: 'subscription' | 'payment'; status: 'open' | 'complete' | 'expired' };

/** A session of the same request opened in the last `withinMs` with one of `statuses` (a second click gets it back). */
export function findRecentCheckout(
  db: Db,
  c: { provider: string; userId: string; spaceId: string | null; mode: string; priceId: string; quantity: number; successUrl: string; cancelUrl: string; withinMs: number; statuses: string[] },
): Promise<CheckoutRow | null> {
  return first(
    db,
    q
      .selectFrom('checkout_sessions')
      .select(CHECKOUT_COLS)
      .where('provider', '=', c.provider)
      .where('user_id', '=', c.userId)
      .where(sql<boolean>`space_id IS NOT DISTINCT FROM ${c.spaceId}::uuid`)
      .where('mode', '=', c.mode)
      .where('price_id', '=', c.priceId)
      .where('quantity', '=', c.quantity)
      .where('success_url', '=', c.successUrl)
      .where('cancel_url', '=', c.cancelUrl)
      .where(sql<boolean>`status IN (SELECT jsonb_array_elements_text(${JSON.stringify(c.statuses)}::jsonb))`)
      .where(sql<boolean>`created_at > clock_timestamp() - (${String(c.withinMs)}::text || ' milliseconds')::interval`)
      .orderBy('created_at', 'desc')
      .limit(1)
      .$narrowType<CheckoutNarrow>(),
  );
}
export async function insertCheckout(
  db: Db,
  s: { provider: string; id: string; userId: string; spaceId: string | null; mode: string; priceId: string; quantity: number; url: string; successUrl: string; cancelUrl: string; status?: string },
): Promise<void> {
  const status = s.status ?? 'open';
  await run(
    db,
    q
      .insertInto('checkout_sessions')
      .values({
        provider: s.provider, id: s.id, user_id: s.userId, space_id: s.spaceId, mode: s.mode, price_id: s.priceId, quantity: s.quantity,
        url: s.url, success_url: s.successUrl, cancel_url: s.cancelUrl, status,
        completed_at: status === 'complete' ? sql<Date>`clock_timestamp()` : null,
      })
      .onConflict((c) => c.columns(['provider', 'id']).doNothing()),
  );
}
export function findCheckout(db: Db, provider: string, id: string): Promise<CheckoutRow | null> {
  return first(
    db,
    q.selectFrom('checkout_sessions').select(CHECKOUT_COLS).where('provider', '=', provider).where('id', '=', id).$narrowType<CheckoutNarrow>(),
  );
}
export async function setCheckoutStatus(db: Db, provider: string, id: string, status: 'complete' | 'expired'): Promise<void> {
  await run(
    db,
    q
      .updateTable('checkout_sessions')
      .set({ status, ...(status === 'complete' ? { completed_at: sql<Date>`clock_timestamp()` } : {}) })
      .where('provider', '=', provider)
      .where('id', '=', id)
      .where('status', '=', 'open'),
  );
}

// ------------------------------------------------------------------------------------------------ payments

export interface PaymentRow {
  provider: string;
  ref: string;
  user_id: string;
  kind: 'subscription' | 'credits';
  amount: number | null;
  currency: string | null;
  items: { item_name: string; quantity: number }[];
  created_at: Date | string;
}
export async function recordPayment(
  db: Db,
  p: { provider: string; ref: string; userId: string; kind: 'subscription' | 'credits'; amount: number | null; currency: string | null; items: { item_name: string; quantity: number }[] },
): Promise<boolean> {
  const rows = await all(
    db,
    q
      .insertInto('payments')
      .values({ provider: p.provider, ref: p.ref, user_id: p.userId, kind: p.kind, amount: p.amount, currency: p.currency, items: json(p.items) })
      .onConflict((c) => c.columns(['provider', 'ref']).doNothing())
      .returning('id'),
  );
  return rows.length > 0;
}
export function latestPayment(db: Db, userId: string): Promise<PaymentRow | null> {
  return first(
    db,
    q
      .selectFrom('payments')
      .select(['provider', 'ref', 'user_id', 'kind', 'amount', 'currency', 'items', 'created_at'])
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .$narrowType<{ kind: 'subscription' | 'credits'; items: { item_name: string; quantity: number }[] }>(),
  );
}

// ------------------------------------------------------------------------------------------------ customers

export interface BillingUser {
  id: string;
  email: string;
  customer_id: string | null;
  identity_id: string;
}
export function userByCustomer(db: Db, customerId: string): Promise<BillingUser | null> {
  return first(db, q.selectFrom('users').select(['id', 'email', 'customer_id', 'identity_id']).where('customer_id', '=', customerId));
}
export function userById(db: Db, userId: string): Promise<BillingUser | null> {
  return first(db, q.selectFrom('users').select(['id', 'email', 'customer_id', 'identity_id']).where('id', '=', sql<string>`${userId}::uuid`));
}
export async function setCustomerId(db: Db, user: BillingUser, customerId: string | null): Promise<void> {
  await run(db, q.updateTable('users').set({ customer_id: customerId }).where('id', '=', user.id));
  invalidateAccount(db, user.identity_id);
}
export async function clearCustomer(db: Db, customerId: string): Promise<void> {
  const u = await userByCustomer(db, customerId);
  if (u) await setCustomerId(db, u, null);
}

/** The payment problem of a user's subscription (null clears it). */
export async function setPaymentIssue(db: Db, userId: string, issue: string | null): Promise<void> {
  await run(db, q.updateTable('subscriptions').set({ payment_issue: issue, updated_at: sql`now()` }).where('user_id', '=', userId));
  invalidateSubscription(db, userId);
}

/** The default space of a user (where plan minutes and minute packs land when no space is named). */
export async function defaultSpaceId(db: Db, userId: string): Promise<string | null> {
  const r = await first(db, q.selectFrom('spaces').select('id').where('owner_id', '=', userId).where('is_default', '=', true));
  return r?.id ?? null;
}
export async function spaceOwner(db: Db, spaceId: string): Promise<string | null> {
  const r = await first(db, q.selectFrom('spaces').select('owner_id').where('id', '=', sql<string>`${spaceId}::uuid`));
  return r?.owner_id ?? null;
}
