// All SQL of payments: the catalogue (payment_products, payment_prices), processed webhook events, checkout
// sessions, completed payments, the billing customer of a user and the payment issue of a subscription.
import type { Db } from '../../db/index';
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
  metadata: Record<string, unknown>;
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

const PRODUCT_COLS = 'provider, id, kind, tier, category, name, is_archived, position, metadata';
const PRICE_COLS = 'provider, id, product_id, unit_amount, currency, interval, is_archived, is_current';

export async function upsertProduct(db: Db, provider: string, p: ProductInput): Promise<void> {
  await db.query(
    `INSERT INTO payment_products (provider, id, kind, tier, category, name, is_archived, position, metadata)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb)
     ON CONFLICT (provider, id) DO UPDATE SET kind = EXCLUDED.kind, tier = EXCLUDED.tier, category = EXCLUDED.category,
       name = EXCLUDED.name, is_archived = EXCLUDED.is_archived, position = EXCLUDED.position, metadata = EXCLUDED.metadata,
       updated_at = now()`,
    [provider, p.id, p.kind, p.tier, p.category, p.name, p.isArchived, p.position, JSON.stringify(p.metadata)],
  );
}

export async function upsertPrice(db: Db, provider: string, p: PriceInput): Promise<void> {
  await db.query(
    `INSERT INTO payment_prices (provider, id, product_id, unit_amount, currency, interval, is_archived, is_current)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (provider, id) DO UPDATE SET product_id = EXCLUDED.product_id, unit_amount = EXCLUDED.unit_amount,
       currency = EXCLUDED.currency, interval = EXCLUDED.interval, is_archived = EXCLUDED.is_archived,
       is_current = EXCLUDED.is_current, updated_at = now()`,
    [provider, p.id, p.productId, p.unitAmount, p.currency, p.interval, p.isArchived, p.isCurrent],
  );
}

/** Prices of the provider no longer configured stop being offered (they stay known as archived prices). */
export async function retirePricesExcept(db: Db, provider: string, keep: string[]): Promise<void> {
  await db.query(
    `UPDATE payment_prices SET is_current = false, updated_at = now()
     WHERE provider = $1 AND is_current AND id NOT IN (SELECT jsonb_array_elements_text($2::jsonb))`,
    [provider, JSON.stringify(keep)],
  );
}

export function listProducts(db: Db, provider: string): Promise<ProductRow[]> {
  return db.query<ProductRow>(`SELECT ${PRODUCT_COLS} FROM payment_products WHERE provider = $1 ORDER BY position, id`, [provider]);
}
export function listPrices(db: Db, provider: string): Promise<PriceRow[]> {
  return db.query<PriceRow>(`SELECT ${PRICE_COLS} FROM payment_prices WHERE provider = $1 ORDER BY interval NULLS FIRST, id`, [provider]);
}
export function findPrice(db: Db, provider: string, id: string): Promise<PriceRow | null> {
  return db.maybeOne<PriceRow>(`SELECT ${PRICE_COLS} FROM payment_prices WHERE provider = $1 AND id = $2`, [provider, id]);
}
export function findProduct(db: Db, provider: string, id: string): Promise<ProductRow | null> {
  return db.maybeOne<ProductRow>(`SELECT ${PRODUCT_COLS} FROM payment_products WHERE provider = $1 AND id = $2`, [provider, id]);
}
export async function enterpriseProductIds(db: Db): Promise<string[]> {
  const rows = await db.query<{ id: string }>(`SELECT id FROM payment_products WHERE kind = 'plan' AND category = 'enterprise'`);
  return rows.map((r) => r.id);
}
export async function catalogueUpdatedAt(db: Db, provider: string): Promise<Date | null> {
  const r = await db.one<{ at: Date | string | null }>(`SELECT max(updated_at) AS at FROM payment_prices WHERE provider = $1 AND is_current`, [provider]);
  return r.at ? new Date(r.at) : null;
}

// ------------------------------------------------------------------------------------------------ events

/** Records an event id; false when it was already recorded (a replay). Run in the transaction that applies it. */
export async function recordEvent(db: Db, e: { provider: string; id: string; type: string; created: Date | null; outcome: string }): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO payment_events (provider, id, type, created_at, outcome) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (provider, id) DO NOTHING RETURNING id`,
    [e.provider, e.id, e.type, e.created, e.outcome],
  );
  return rows.length > 0;
}
export async function setEventOutcome(db: Db, provider: string, id: string, outcome: string): Promise<void> {
  await db.query(`UPDATE payment_events SET outcome = $3 WHERE provider = $1 AND id = $2`, [provider, id, outcome]);
}
export async function eventSeen(db: Db, provider: string, id: string): Promise<boolean> {
  return (await db.maybeOne(`SELECT 1 AS x FROM payment_events WHERE provider = $1 AND id = $2`, [provider, id])) !== null;
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
const CHECKOUT_COLS = 'provider, id, user_id, space_id, mode, price_id, quantity, url, success_url, cancel_url, status, created_at';

/** A session of the same request opened in the last `withinMs` with one of `statuses` (a second click gets it back). */
export function findRecentCheckout(
  db: Db,
  q: { provider: string; userId: string; spaceId: string | null; mode: string; priceId: string; quantity: number; successUrl: string; cancelUrl: string; withinMs: number; statuses: string[] },
): Promise<CheckoutRow | null> {
  return db.maybeOne<CheckoutRow>(
    `SELECT ${CHECKOUT_COLS} FROM checkout_sessions
     WHERE provider = $1 AND user_id = $2 AND space_id IS NOT DISTINCT FROM $3::uuid AND mode = $4 AND price_id = $5
       AND quantity = $6 AND success_url = $7 AND cancel_url = $8
       AND status IN (SELECT jsonb_array_elements_text($10::jsonb))
       AND created_at > clock_timestamp() - ($9::text || ' milliseconds')::interval
     ORDER BY created_at DESC LIMIT 1`,
    [q.provider, q.userId, q.spaceId, q.mode, q.priceId, q.quantity, q.successUrl, q.cancelUrl, String(q.withinMs), JSON.stringify(q.statuses)],
  );
}
export async function insertCheckout(
  db: Db,
  s: { provider: string; id: string; userId: string; spaceId: string | null; mode: string; priceId: string; quantity: number; url: string; successUrl: string; cancelUrl: string; status?: string },
): Promise<void> {
  await db.query(
    `INSERT INTO checkout_sessions (provider, id, user_id, space_id, mode, price_id, quantity, url, success_url, cancel_url, status, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, CASE WHEN $11 = 'complete' THEN clock_timestamp() END)
     ON CONFLICT (provider, id) DO NOTHING`,
    [s.provider, s.id, s.userId, s.spaceId, s.mode, s.priceId, s.quantity, s.url, s.successUrl, s.cancelUrl, s.status ?? 'open'],
  );
}
export function findCheckout(db: Db, provider: string, id: string): Promise<CheckoutRow | null> {
  return db.maybeOne<CheckoutRow>(`SELECT ${CHECKOUT_COLS} FROM checkout_sessions WHERE provider = $1 AND id = $2`, [provider, id]);
}
export async function setCheckoutStatus(db: Db, provider: string, id: string, status: 'complete' | 'expired'): Promise<void> {
  await db.query(
    `UPDATE checkout_sessions SET status = $3, completed_at = CASE WHEN $3 = 'complete' THEN clock_timestamp() ELSE completed_at END
     WHERE provider = $1 AND id = $2 AND status = 'open'`,
    [provider, id, status],
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
  const rows = await db.query(
    `INSERT INTO payments (provider, ref, user_id, kind, amount, currency, items) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)
     ON CONFLICT (provider, ref) DO NOTHING RETURNING id`,
    [p.provider, p.ref, p.userId, p.kind, p.amount, p.currency, JSON.stringify(p.items)],
  );
  return rows.length > 0;
}
export function latestPayment(db: Db, userId: string): Promise<PaymentRow | null> {
  return db.maybeOne<PaymentRow>(
    `SELECT provider, ref, user_id, kind, amount, currency, items, created_at FROM payments WHERE user_id = $1
     ORDER BY created_at DESC, id DESC LIMIT 1`,
    [userId],
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
  return db.maybeOne<BillingUser>(`SELECT id, email, customer_id, identity_id FROM users WHERE customer_id = $1`, [customerId]);
}
export function userById(db: Db, userId: string): Promise<BillingUser | null> {
  return db.maybeOne<BillingUser>(`SELECT id, email, customer_id, identity_id FROM users WHERE id = $1::uuid`, [userId]);
}
export async function setCustomerId(db: Db, user: BillingUser, customerId: string | null): Promise<void> {
  await db.query(`UPDATE users SET customer_id = $2 WHERE id = $1`, [user.id, customerId]);
  invalidateAccount(db, user.identity_id);
}
export async function clearCustomer(db: Db, customerId: string): Promise<void> {
  const u = await userByCustomer(db, customerId);
  if (u) await setCustomerId(db, u, null);
}

/** The payment problem of a user's subscription (null clears it). */
export async function setPaymentIssue(db: Db, userId: string, issue: string | null): Promise<void> {
  await db.query(`UPDATE subscriptions SET payment_issue = $2, updated_at = now() WHERE user_id = $1`, [userId, issue]);
  invalidateSubscription(db, userId);
}

/** The default space of a user (where plan minutes and minute packs land when no space is named). */
export async function defaultSpaceId(db: Db, userId: string): Promise<string | null> {
  const r = await db.maybeOne<{ id: string }>(`SELECT id FROM spaces WHERE owner_id = $1 AND is_default`, [userId]);
  return r?.id ?? null;
}
export async function spaceOwner(db: Db, spaceId: string): Promise<string | null> {
  const r = await db.maybeOne<{ owner_id: string }>(`SELECT owner_id FROM spaces WHERE id = $1::uuid`, [spaceId]);
  return r?.owner_id ?? null;
}
