// The subscription lifecycle, whatever the payments provider: start (or change) a plan, renew each period,
// credit the plan's minutes every month while it is active, cancel at period end (and undo it), pause and
// resume, and let the plan's unused minutes lapse when it ends. Minutes are ledger rows (./ledger.ts); the
// clock (runBillingClock) is idempotent, so running it twice or on two servers at once credits nothing twice.
import { randomUUID } from 'node:crypto';
import { PLAN_MONTHLY_LIPSYNC_FREE_MINUTES, PLAN_MONTHLY_MINUTES, type PlanTier } from '../../../contract/features';
import type { Db } from '../../db/index';
import * as ledger from './ledger';
import { isFreeSubscription, isSubscriptionActive, isSubscriptionPaused } from './plan';
import { invalidateSubscription } from '../users/cache';
import * as repo from './repository';
import type { LifecycleRow, SubscriptionChange } from './repository';
import { defaultSpaceId } from './payments-repository';
import { localPriceId, localProductId } from './catalogue';

export type { LifecycleRow };

export type Interval = 'month' | 'year';

/** `from` plus n calendar months (the day clamped to the month's last day). */
export function addMonths(from: Date, n: number): Date {
  const d = new Date(from.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + n);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

export const periodEndFrom = (start: Date, interval: Interval) => addMonths(start, interval === 'year' ? 12 : 1);

const t = (d: Date | string | null | undefined) => (d == null ? null : new Date(d));

export function findLifecycle(db: Db, userId: string): Promise<LifecycleRow | null> {
  return repo.findLifecycle(db, userId);
}

/** Where the plan's minutes go: the subscription's own space (a shop Teamspace) or the owner's default space. */
async function minutesSpaceOf(db: Db, row: Pick<LifecycleRow, 'user_id' | 'space_id' | 'provider'>): Promise<string | null> {
  if (row.provider === 'shop') return row.space_id; // the shop's Teamspace, or nothing once it was deleted
  return row.space_id ?? defaultSpaceId(db, row.user_id);
}

/** A platform-billed plan renews while the shop still has the app installed (an uninstall cancels its charges). */
async function platformStillBills(db: Db, row: Pick<LifecycleRow, 'space_id'>): Promise<boolean> {
  if (!row.space_id) return false;
  return repo.shopInstalledIn(db, row.space_id);
}

export interface PlanChange {
  userId: string;
  tier: PlanTier;
  interval?: Interval;
  status?: string;
  /** Provider ids (Stripe subscription/price/product/customer); generated for the local provider. */
  id?: string;
  priceId?: string | null;
  productId?: string | null;
  customerId?: string | null;
  /** 'shop': the platform's billing of the embedded build (server/domains/billing/platform-billing.ts). */
  provider?: 'local' | 'stripe' | 'shop';
  /** The space that gets the plan's minutes (default: the owner's default space). */
  spaceId?: string | null;
  periodStart?: Date;
  periodEnd?: Date;
  now?: Date;
}

/**
 * Starts a plan or changes it (upgrade, downgrade, another interval). The subscription keeps its id across
 * changes of the same provider; the plan's minutes of the current month are credited once (a change to a
 * bigger plan in the same month credits the difference).
 */
export async function applyPlan(db: Db, p: PlanChange): Promise<LifecycleRow> {
  const now = p.now ?? new Date();
  const interval = p.interval ?? 'month';
  const free = p.tier === 'free';
  const cur = await findLifecycle(db, p.userId);
  const provider = p.provider ?? 'local';
  const keep = !!cur && cur.provider === provider && isFreeSubscription(cur) === free;
  const id = p.id ?? (keep ? cur!.id : `${free ? 'free_sub' : 'sub'}_${randomUUID()}`);
  // A change of plan inside a running period of the same interval keeps that period (like a prorated change).
  const samePeriod = keep && isSubscriptionActive(cur, now) && cur!.interval === interval && cur!.current_period_start != null;
  const start = p.periodStart ?? (samePeriod ? new Date(cur!.current_period_start!) : now);
  const end = p.periodEnd ?? (samePeriod && cur!.current_period_end ? new Date(cur!.current_period_end) : periodEndFrom(start, interval));
  const productId = p.productId ?? (provider === 'local' ? localProductId(p.tier) : null);
  const priceId = p.priceId ?? (provider === 'local' ? localPriceId(p.tier, interval) : null);
  const row = await repo.upsertPlan(db, {
    id, userId: p.userId, tier: p.tier, status: p.status ?? 'active', interval, priceId, productId, periodStart: start, periodEnd: end,
    provider, customerId: p.customerId ?? null, spaceId: p.spaceId ?? null,
  });
  invalidateSubscription(db, p.userId);
  await creditMonths(db, row, now);
  return row;
}

/** Cycle starts (one per month) of the current period up to `now`. */
export function cycleStarts(row: Pick<LifecycleRow, 'current_period_start' | 'current_period_end' | 'interval'>, now: Date): Date[] {
  const start = t(row.current_period_start);
  const end = t(row.current_period_end);
  if (!start) return [];
  const out: Date[] = [];
  const months = row.interval === 'year' ? 12 : 1;
  for (let k = 0; k < months; k++) {
    const c = addMonths(start, k);
    if (c.getTime() > now.getTime() || (end && c.getTime() >= end.getTime())) break;
    out.push(c);
  }
  return out;
}

/**
 * Credits the plan's monthly minutes, and its free lip-sync minutes (bucket lipsync_free), for every month of the
 * current period that has begun, once each (ref refill:<user>:<month start>, one row per bucket). A bigger plan
 * taken in a month already credited gets the difference. Returns the plan minutes credited.
 */
export async function creditMonths(db: Db, row: LifecycleRow, now: Date = new Date()): Promise<number> {
  if (!isSubscriptionActive(row, now) || isFreeSubscription(row)) return 0;
  const spaceId = await minutesSpaceOf(db, row);
  if (!spaceId) return 0;
  const tier = row.tier as PlanTier;
  const grants: { bucket: ledger.Bucket; monthly: number; note: string }[] = [
    { bucket: 'minutes', monthly: PLAN_MONTHLY_MINUTES[tier] ?? 0, note: `${row.tier} monthly minutes` },
    { bucket: 'lipsync_free', monthly: PLAN_MONTHLY_LIPSYNC_FREE_MINUTES[tier] ?? 0, note: `${row.tier} monthly free lip-sync minutes` },
  ];
  let credited = 0;
  for (const c of cycleStarts(row, now)) {
    const base = `refill:${row.user_id}:${c.toISOString().slice(0, 10)}`;
    for (const g of grants) {
      const prior = await ledger.refilled(db, spaceId, g.bucket, base);
      const missing = g.monthly - prior;
      if (missing <= 0) continue;
      const ref = prior === 0 ? base : `${base}:${row.tier}`;
      const wrote = await ledger.post(db, { spaceId, bucket: g.bucket, kind: 'refill', minutes: missing, ref, userId: row.user_id, note: g.note });
      if (wrote && g.bucket === 'minutes') credited += missing;
    }
  }
  return credited;
}

/**
 * When a subscription ends (not a pause), the plan's unused minutes lapse: refills not yet consumed by debits
 * (debits draw on plan minutes first), and so do its unused free lip-sync minutes. Purchased and granted minutes
 * stay. Once per period end. Returns the plan minutes that lapsed.
 */
export async function expirePlanMinutes(db: Db, row: LifecycleRow): Promise<number> {
  const spaceId = await minutesSpaceOf(db, row);
  if (!spaceId) return 0;
  const b = await ledger.balances(db, spaceId);
  const end = t(row.current_period_end)?.toISOString().slice(0, 10) ?? 'now';
  let lapsed = 0;
  for (const bucket of ['minutes', 'lipsync_free'] as const) {
    const s = await ledger.planSums(db, spaceId, bucket);
    const planLeft = Math.max(0, Number(s.refills) - Number(s.expired) - Number(s.used));
    const available = bucket === 'minutes' ? b.minutes.available : b.lipsync_free_minutes;
    const amount = Math.min(planLeft, Math.max(0, available));
    if (amount <= 0) continue;
    const wrote = await ledger.post(db, {
      spaceId, bucket, kind: 'expire', minutes: amount, ref: `expire:${row.id}:${end}`, userId: row.user_id,
      note: bucket === 'minutes' ? 'plan minutes lapsed with the subscription' : 'free lip-sync minutes lapsed with the subscription',
    });
    if (wrote && bucket === 'minutes') lapsed += amount;
  }
  return lapsed;
}

async function update(db: Db, userId: string, set: SubscriptionChange): Promise<LifecycleRow | null> {
  const row = await repo.updateLifecycle(db, userId, set);
  invalidateSubscription(db, userId);
  return row;
}

/** Cancel at period end: the plan stays until then. */
export const cancelAtPeriodEnd = (db: Db, userId: string, now = new Date()) =>
  update(db, userId, { cancel_at_period_end: true, canceled_at: now });
/** Undo of the above (cancel_subscription_cancellation). */
export const undoCancellation = (db: Db, userId: string) => update(db, userId, { cancel_at_period_end: false, canceled_at: null });
/** Pause: features stop, minutes remain (spec section 9). */
export const pause = (db: Db, userId: string, now = new Date()) =>
  update(db, userId, { payments_collection_paused: true, paused_at: now });
/** @internal Used by tests only. */
export const resume = (db: Db, userId: string) => update(db, userId, { payments_collection_paused: false, paused_at: null, status: repo.RESUMED_STATUS });
/** Sets the provider status (past_due, unpaid, canceled, active...). @public */
export const setStatus = (db: Db, userId: string, status: string) => update(db, userId, { status });

/**
 * The clock, run at start-up and every minute: ends subscriptions cancelled at their period end, renews local
 * and platform-billed ('shop': the platform charges every 30 days until a cancel webhook) subscriptions whose
 * period ended (Stripe renews through its webhooks), credits the months that began, and lets
 * the plan minutes of ended subscriptions lapse. Returns what it did (tests, logs).
 */
export async function runBillingClock(db: Db, now: Date = new Date()): Promise<{ renewed: number; ended: number; credited: number; expired: number }> {
  const out = { renewed: 0, ended: 0, credited: 0, expired: 0 };
  for (const user_id of await repo.subscriptionUserIds(db)) {
    await db.tx(async (tx) => {
      let row = await repo.findLifecycle(tx, user_id, { forUpdate: true });
      if (!row || isFreeSubscription(row)) return;
      const end = t(row.current_period_end);
      const ended = end !== null && end.getTime() <= now.getTime();
      if (ended && row.cancel_at_period_end && row.status !== 'canceled') {
        row = (await update(tx, user_id, { status: 'canceled', ended_at: end }))!;
        out.ended++;
      } else if (ended && (row.provider === 'local' || (row.provider === 'shop' && (await platformStillBills(tx, row)))) && !isSubscriptionPaused(row) && ['active', 'trialing'].includes(row.status)) {
        // Local renewal, one period after another until the current one contains `now`; every month of the
        // periods in between is credited (a clock that was stopped catches up).
        out.credited += await creditMonths(tx, row, new Date(end!.getTime() - 1));
        let start = end!;
        for (;;) {
          const next = periodEndFrom(start, row.interval as Interval);
          row = (await update(tx, user_id, { current_period_start: start, current_period_end: next }))!;
          if (next.getTime() > now.getTime()) break;
          out.credited += await creditMonths(tx, row, new Date(next.getTime() - 1));
          start = next;
        }
        out.renewed++;
      }
      out.credited += await creditMonths(tx, row, now);
      const over = !isSubscriptionPaused(row) && (row.status === 'canceled' || row.status === 'unpaid' || row.status === 'incomplete_expired'
        || (t(row.current_period_end)?.getTime() ?? Infinity) <= now.getTime());
      if (over) out.expired += await expirePlanMinutes(tx, row);
    });
  }
  return out;
}

/** Removes the subscription (back to the trial plan). */
export async function removeSubscription(db: Db, userId: string): Promise<void> {
  const row = await findLifecycle(db, userId);
  if (row) await expirePlanMinutes(db, { ...row, status: 'canceled' });
  await repo.deleteSubscription(db, userId);
  invalidateSubscription(db, userId);
}
