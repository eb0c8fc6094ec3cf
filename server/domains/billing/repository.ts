// All SQL of the billing domain: subscriptions and plan credit grants.
import type { Db } from '../../db/index';
import { invalidateSubscription } from '../users/cache';
import { localPriceId, localProductId } from './catalogue';
import type { SubscriptionRow } from './types';

export type { SubscriptionRow };

const COLS = `id, user_id, tier, status, interval, price_id, product_id, current_period_end,
  payments_collection_paused, cancel_at_period_end, created_at, updated_at, provider, payment_issue`;

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

/** One local subscription per user: inserts or replaces it (the id changes with it); product and price of the local catalogue by default. */
export async function upsertSubscription(db: Db, s: SubscriptionInput): Promise<SubscriptionRow> {
  invalidateSubscription(db, s.userId);
  const row = await db.one<SubscriptionRow>(
    `INSERT INTO subscriptions (id, user_id, tier, status, interval, price_id, product_id, current_period_end,
       payments_collection_paused, cancel_at_period_end)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, false, false)
     ON CONFLICT (user_id) DO UPDATE SET id = EXCLUDED.id, tier = EXCLUDED.tier, status = EXCLUDED.status,
       interval = EXCLUDED.interval, price_id = EXCLUDED.price_id, product_id = EXCLUDED.product_id,
       current_period_end = EXCLUDED.current_period_end, payments_collection_paused = false,
       cancel_at_period_end = false, updated_at = now()
     RETURNING ${COLS}`,
    [s.id, s.userId, s.tier, s.status, s.interval, s.priceId ?? localPriceId(s.tier, s.interval), s.productId ?? localProductId(s.tier),
      s.currentPeriodEnd],
  );
  invalidateSubscription(db, s.userId);
  return row;
}


