// All SQL of the billing domain but the ledger's (./ledger.ts) and the payments' (./payments-repository.ts):
// subscriptions and their lifecycle, the platform's app subscriptions and usage charges of the embedded build,
// and the few reads of spaces, users and projects billing needs.
import type { UpdateObject } from 'kysely';
import type { Db } from '../../db/index';
import { all, first, one, q, run, sql } from '../../db/sql';
import type { DB } from '../../db/schema';
import { invalidateSubscription } from '../users/cache';
import { localPriceId, localProductId } from './catalogue';
import type { SubscriptionRow } from './types';

export type { SubscriptionRow };

// ------------------------------------------------------------------------------------------------ subscriptions

const COLS = [
  'id', 'user_id', 'tier', 'status', 'interval', 'price_id', 'product_id', 'current_period_end',
  'payments_collection_paused', 'cancel_at_period_end', 'created_at', 'updated_at', 'provider', 'payment_issue',
] as const;

export function findSubscriptionByUser(db: Db, userId: string): Promise<SubscriptionRow | null> {
  return first(db, q.selectFrom('subscriptions').select(COLS).where('user_id', '=', userId));
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

/** One local subscription per user: inserts or replaces it (the id changes with it); product and price of the local catalogue by default. @internal */
export async function upsertSubscription(db: Db, s: SubscriptionInput): Promise<SubscriptionRow> {
  invalidateSubscription(db, s.userId);
  const row = await one(
    db,
    q
      .insertInto('subscriptions')
      .values({
        id: s.id, user_id: s.userId, tier: s.tier, status: s.status, interval: s.interval,
        price_id: s.priceId ?? localPriceId(s.tier, s.interval), product_id: s.productId ?? localProductId(s.tier),
        current_period_end: s.currentPeriodEnd, payments_collection_paused: false, cancel_at_period_end: false,
      })
      .onConflict((c) =>
        c.column('user_id').doUpdateSet((e) => ({
          id: e.ref('excluded.id'), tier: e.ref('excluded.tier'), status: e.ref('excluded.status'),
          interval: e.ref('excluded.interval'), price_id: e.ref('excluded.price_id'), product_id: e.ref('excluded.product_id'),
          current_period_end: e.ref('excluded.current_period_end'), payments_collection_paused: false,
          cancel_at_period_end: false, updated_at: sql`now()`,
        })),
      )
      .returning(COLS),
  );
  invalidateSubscription(db, s.userId);
  return row;
}

/** A subscription with its whole lifecycle (./subscriptions.ts). */
export interface LifecycleRow extends SubscriptionRow {
  current_period_start: Date | string | null;
  provider: string;
  customer_id: string | null;
  paused_at: Date | string | null;
  canceled_at: Date | string | null;
  ended_at: Date | string | null;
  /** The space that gets the plan's minutes (a shop Teamspace's plan); null: the owner's default space. */
  space_id: string | null;
}

const LIFECYCLE_COLS = [
  'id', 'user_id', 'tier', 'status', 'interval', 'price_id', 'product_id', 'current_period_end', 'current_period_start',
  'payments_collection_paused', 'cancel_at_period_end', 'provider', 'customer_id', 'paused_at', 'canceled_at', 'ended_at',
  'created_at', 'updated_at', 'payment_issue', 'space_id',
] as const;

export function findLifecycle(db: Db, userId: string, o: { forUpdate?: boolean } = {}): Promise<LifecycleRow | null> {
  const query = q.selectFrom('subscriptions').select(LIFECYCLE_COLS).where('user_id', '=', userId);
  return first(db, o.forUpdate ? query.forUpdate() : query);
}

export interface PlanRowInput {
  id: string;
  userId: string;
  tier: string;
  status: string;
  interval: string;
  priceId: string | null;
  productId: string | null;
  periodStart: Date;
  periodEnd: Date;
  provider: string;
  customerId: string | null;
  spaceId: string | null;
}

/** Inserts the user's subscription or replaces its plan (one per user): the lifecycle starts over (not paused, cancelled nor ended). */
export function upsertPlan(db: Db, p: PlanRowInput): Promise<LifecycleRow> {
  return one(
    db,
    q
      .insertInto('subscriptions')
      .values({
        id: p.id, user_id: p.userId, tier: p.tier, status: p.status, interval: p.interval, price_id: p.priceId,
        product_id: p.productId, current_period_start: p.periodStart, current_period_end: p.periodEnd,
        payments_collection_paused: false, cancel_at_period_end: false, provider: p.provider, customer_id: p.customerId,
        space_id: p.spaceId,
      })
      .onConflict((c) =>
        c.column('user_id').doUpdateSet((e) => ({
          id: e.ref('excluded.id'), tier: e.ref('excluded.tier'), status: e.ref('excluded.status'),
          interval: e.ref('excluded.interval'), price_id: e.ref('excluded.price_id'), product_id: e.ref('excluded.product_id'),
          current_period_start: e.ref('excluded.current_period_start'), current_period_end: e.ref('excluded.current_period_end'),
          payments_collection_paused: false, cancel_at_period_end: false, provider: e.ref('excluded.provider'),
          customer_id: e.fn.coalesce('excluded.customer_id', 'subscriptions.customer_id'), paused_at: null, canceled_at: null,
          ended_at: null, space_id: e.ref('excluded.space_id'), updated_at: sql`now()`,
        })),
      )
      .returning(LIFECYCLE_COLS),
  );
}

export type SubscriptionChange = UpdateObject<DB, 'subscriptions'>;

/** The status of a resumed subscription: a paused status becomes active again, any other stays. */
export const RESUMED_STATUS = sql<string>`CASE WHEN status = 'paused' THEN 'active' ELSE status END`;

/** Changes the user's subscription (updated_at too); null when there is none. Does not invalidate the cache. */
export function updateLifecycle(db: Db, userId: string, set: SubscriptionChange): Promise<LifecycleRow | null> {
  return first(
    db,
    q.updateTable('subscriptions').set(set).set({ updated_at: sql`now()` }).where('user_id', '=', userId).returning(LIFECYCLE_COLS),
  );
}

/** Ends the user's subscription now (cancelled, its period cut at `now`). */
export function endSubscription(db: Db, userId: string, now: Date): Promise<LifecycleRow> {
  return one(
    db,
    q
      .updateTable('subscriptions')
      .set({
        status: 'canceled', canceled_at: now, ended_at: now,
        current_period_end: sql<Date>`LEAST(COALESCE(current_period_end, ${now}::timestamptz), ${now}::timestamptz)`,
        updated_at: sql`now()`,
      })
      .where('user_id', '=', userId)
      .returningAll(),
  );
}

/** The users with a subscription, in order (the billing clock). */
export async function subscriptionUserIds(db: Db): Promise<string[]> {
  return (await all(db, q.selectFrom('subscriptions').select('user_id').orderBy('user_id'))).map((r) => r.user_id);
}

export async function deleteSubscription(db: Db, userId: string): Promise<void> {
  await run(db, q.deleteFrom('subscriptions').where('user_id', '=', userId));
}

// ------------------------------------------------------------------------------------------------ spaces, users, projects

export async function spaceOwnerId(db: Db, spaceId: string): Promise<string | null> {
  const r = await first(db, q.selectFrom('spaces').select('owner_id').where('id', '=', spaceId));
  return r?.owner_id ?? null;
}

/** Is the shop of this space (a shop Teamspace) still installed? */
export async function shopInstalledIn(db: Db, spaceId: string): Promise<boolean> {
  return !!(await first(db, q.selectFrom('shops').select(sql<number>`1`.as('x')).where('space_id', '=', spaceId).where('installed', '=', true)));
}

/** The user whose plan applies to a space (its owner) or to a user: id and whether staff. */
export function planOwner(db: Db, scope: { kind: 'space' | 'user'; id: string }): Promise<{ id: string; is_superuser: boolean } | null> {
  return scope.kind === 'space'
    ? first(db, q.selectFrom('spaces as s').innerJoin('users as u', 'u.id', 's.owner_id').select(['u.id', 'u.is_superuser']).where('s.id', '=', scope.id))
    : first(db, q.selectFrom('users').select(['id', 'is_superuser']).where('id', '=', scope.id));
}

/** What billing needs of a project: its space, dub generation and lip-sync runs. */
export function projectBilling(db: Db, projectId: string): Promise<{ space_id: string; generation: number; lipsync_runs: number } | null> {
  return first(db, q.selectFrom('projects').select(['space_id', 'generation', 'lipsync_runs']).where('id', '=', projectId));
}

/** A finished dub: its generation becomes the base of the next re-dub's charge. */
export async function markGenerationDubbed(db: Db, projectId: string): Promise<void> {
  await run(db, q.updateTable('projects').set((e) => ({ dubbed_generation: e.ref('generation') })).where('id', '=', projectId));
}

// ------------------------------------------------------------------------------------------------ platform billing

export interface ShopSubRow {
  id: string;
  domain: string;
  space_id: string;
  user_id: string;
  tier: string;
  status: string;
  amount: string | number;
  currency: string;
  recurring_line_id: string | null;
  usage_line_id: string | null;
  capped_amount: string | number | null;
  minute_price: string | number;
  activated_at: Date | string | null;
}
const SHOP_SUB_COLS = [
  'id', 'domain', 'space_id', 'user_id', 'tier', 'status', 'amount', 'currency', 'recurring_line_id', 'usage_line_id',
  'capped_amount', 'minute_price', 'activated_at',
] as const;

export async function insertShopSubscription(
  db: Db,
  s: {
    id: string; domain: string; spaceId: string; userId: string; createdBy: string; tier: string; status: string; amount: number;
    currency: string; recurringLineId: string | null; usageLineId: string | null; cappedAmount: number; minutePrice: number;
  },
): Promise<void> {
  await run(
    db,
    q
      .insertInto('shop_subscriptions')
      .values({
        id: s.id, domain: s.domain, space_id: s.spaceId, user_id: s.userId, created_by: s.createdBy, tier: s.tier, status: s.status,
        amount: s.amount, currency: s.currency, recurring_line_id: s.recurringLineId, usage_line_id: s.usageLineId,
        capped_amount: s.cappedAmount, minute_price: s.minutePrice,
      })
      .onConflict((c) => c.column('id').doNothing()),
  );
}

/** One app subscription, locked until the end of the transaction. */
export function lockShopSubscription(db: Db, id: string): Promise<ShopSubRow | null> {
  return first(db, q.selectFrom('shop_subscriptions').select(SHOP_SUB_COLS).where('id', '=', id).forUpdate());
}

export async function activateShopSubscription(db: Db, id: string, now: Date): Promise<void> {
  await run(db, q.updateTable('shop_subscriptions').set({ status: 'ACTIVE', activated_at: now, updated_at: sql`now()` }).where('id', '=', id));
}

/** Moves an app subscription to `status`; `endedAt` marks its end. */
export async function setShopSubscriptionStatus(db: Db, id: string, status: string, endedAt: Date | null): Promise<void> {
  await run(
    db,
    q
      .updateTable('shop_subscriptions')
      .set({ status, ...(endedAt ? { ended_at: endedAt } : {}), updated_at: sql`now()` })
      .where('id', '=', id),
  );
}

export async function shopSubscriptionDomain(db: Db, id: string): Promise<string | null> {
  const r = await first(db, q.selectFrom('shop_subscriptions').select('domain').where('id', '=', id));
  return r?.domain ?? null;
}

export async function shopSubscriptionStatus(db: Db, id: string, spaceId: string): Promise<string | null> {
  const r = await first(db, q.selectFrom('shop_subscriptions').select('status').where('id', '=', id).where('space_id', '=', spaceId));
  return r?.status ?? null;
}

/** The active app subscription of a space that is its owner's active plan now (the latest activated). */
export function currentShopSubscription(db: Db, spaceId: string): Promise<ShopSubRow | null> {
  return first(
    db,
    q
      .selectFrom('shop_subscriptions as s')
      .select(SHOP_SUB_COLS.map((c) => `s.${c}` as const))
      .where('s.space_id', '=', spaceId)
      .where('s.status', '=', 'ACTIVE')
      .where((e) =>
        e.exists(
          e.selectFrom('subscriptions as u').select(sql<number>`1`.as('x'))
            .whereRef('u.id', '=', 's.id').whereRef('u.user_id', '=', 's.user_id').where('u.status', '=', 'active'),
        ),
      )
      .orderBy('s.activated_at', 'desc')
      .limit(1),
  );
}

export interface UsageChargeRow {
  minutes: number;
  amount: string | number;
  currency: string;
  usage_record_id: string;
}

export function findUsageCharge(db: Db, idempotencyKey: string): Promise<UsageChargeRow | null> {
  return first(
    db,
    q.selectFrom('shop_usage_charges').select(['minutes', 'amount', 'currency', 'usage_record_id']).where('idempotency_key', '=', idempotencyKey),
  );
}

/** Records one usage charge; false when its idempotency key was recorded before. Run in the transaction that credits it. */
export async function insertUsageCharge(
  db: Db,
  c: { key: string; subscriptionId: string; spaceId: string; userId: string; minutes: number; amount: number; currency: string; usageRecordId: string },
): Promise<boolean> {
  const rows = await all(
    db,
    q
      .insertInto('shop_usage_charges')
      .values({
        idempotency_key: c.key, subscription_id: c.subscriptionId, space_id: c.spaceId, user_id: c.userId, minutes: c.minutes,
        amount: c.amount, currency: c.currency, usage_record_id: c.usageRecordId,
      })
      .onConflict((o) => o.column('idempotency_key').doNothing())
      .returning('idempotency_key'),
  );
  return rows.length > 0;
}
