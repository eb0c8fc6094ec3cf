// All SQL of the billing domain: subscriptions and plan credit grants.
import type { Db } from '../../db/index';
import { invalidateSubscription } from '../users/cache';

export interface SubscriptionRow {
  id: string;
  user_id: string;
  tier: string;
  status: string;
  interval: string;
  price_id: string | null;
  product_id: string | null;
  current_period_end: Date | string | null;
  payments_collection_paused: boolean;
  cancel_at_period_end: boolean;
  created_at?: Date | string;
  updated_at?: Date | string;
}

const COLS = `id, user_id, tier, status, interval, price_id, product_id, current_period_end,
  payments_collection_paused, cancel_at_period_end, created_at, updated_at`;

export function findSubscriptionByUser(db: Db, userId: string): Promise<SubscriptionRow | null> {
  return db.maybeOne<SubscriptionRow>(`SELECT ${COLS} FROM subscriptions WHERE user_id = $1`, [userId]);
}

export interface SubscriptionInput {
  id: string;
  userId: string;
  tier: string;
  status: string;
  interval: 'month' | 'year';
  currentPeriodEnd: Date | null;
  priceId?: string | null;
  productId?: string | null;
}

/** One subscription per user: inserts or replaces it (the id changes with it). */
export async function upsertSubscription(db: Db, s: SubscriptionInput): Promise<SubscriptionRow> {
  invalidateSubscription(s.userId);
  const row = await db.one<SubscriptionRow>(
    `INSERT INTO subscriptions (id, user_id, tier, status, interval, price_id, product_id, current_period_end,
       payments_collection_paused, cancel_at_period_end)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, false, false)
     ON CONFLICT (user_id) DO UPDATE SET id = EXCLUDED.id, tier = EXCLUDED.tier, status = EXCLUDED.status,
       interval = EXCLUDED.interval, price_id = EXCLUDED.price_id, product_id = EXCLUDED.product_id,
       current_period_end = EXCLUDED.current_period_end, payments_collection_paused = false,
       cancel_at_period_end = false, updated_at = now()
     RETURNING ${COLS}`,
    [s.id, s.userId, s.tier, s.status, s.interval, s.priceId ?? null, s.productId ?? null, s.currentPeriodEnd],
  );
  invalidateSubscription(s.userId);
  return row;
}

export async function deleteSubscriptionOfUser(db: Db, userId: string): Promise<void> {
  await db.query('DELETE FROM subscriptions WHERE user_id = $1', [userId]);
  invalidateSubscription(userId);
}

/** Adds plan minutes to the user's default space; returns false when the user has no default space. */
export async function grantDefaultSpaceMinutes(db: Db, userId: string, minutes: number): Promise<boolean> {
  const rows = await db.query(
    'UPDATE spaces SET minutes_total = minutes_total + $2 WHERE owner_id = $1 AND is_default RETURNING id',
    [userId, minutes],
  );
  return rows.length > 0;
}
