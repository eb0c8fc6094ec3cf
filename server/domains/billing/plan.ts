// The plan model: a user's subscription (subscriptions table) and what it entitles them to.
// Pure rules first (shared by settings, spaces, admin, payments), then one loader over the repository.
import { PLAN_TIERS, SUBSCRIPTION_STATUSES, type PlanTier, type SubscriptionStatus } from '../../../contract/features';
import { isActiveSubscription, isExpiredSubscription, isFreeSubscription as isFreeOf, planDisplayName } from '../../../contract/plans';
import type { Subscription } from '../../../contract/schemas/user';
import type { Db } from '../../db/index';
import { cachedSubscription } from '../users/cache';
import { findSubscriptionByUser, type SubscriptionRow } from './repository';

export type { SubscriptionRow } from './repository';

export function isPlanTier(s: string): s is PlanTier {
  return (PLAN_TIERS as readonly string[]).includes(s);
}

/** Free subscriptions carry 'free_sub' in their id (or the free tier). */
export function isFreeSubscription(sub: SubscriptionRow | null): boolean {
  return isFreeOf(sub, sub?.tier);
}

/** Spec: active, incomplete, incomplete_expired or trialing; the period has not ended; collection not paused. */
export function isSubscriptionActive(sub: SubscriptionRow | null, now: Date = new Date()): boolean {
  return isActiveSubscription(sub, now.getTime());
}

/** Spec: expired when the period end is in the past. */
export function isSubscriptionExpired(sub: SubscriptionRow | null, now: Date = new Date()): boolean {
  return isExpiredSubscription(sub, now.getTime());
}

/** Spec: paused when collection is paused or the status is paused. */
export function isSubscriptionPaused(sub: SubscriptionRow | null): boolean {
  return !!sub && (sub.payments_collection_paused || sub.status === 'paused');
}

/** The subscribed tier. No subscription means the trial plan. */
export function planTierOf(sub: SubscriptionRow | null): PlanTier {
  if (!sub) return 'trial';
  if (isFreeSubscription(sub)) return 'free';
  return isPlanTier(sub.tier) ? sub.tier : 'free';
}

/**
 * The tier whose features apply now: the subscribed tier while the subscription is active,
 * 'free' once it is not (expired, paused, canceled...), 'trial' without a subscription.
 */
export function effectiveTierOf(sub: SubscriptionRow | null, now: Date = new Date()): PlanTier {
  if (!sub) return 'trial';
  return isSubscriptionActive(sub, now) ? planTierOf(sub) : 'free';
}

/** Spec planName: the plan's name if found; else Free Plan for a free subscription or trial; else Archive Plan. */
export function planNameOf(sub: SubscriptionRow | null): string {
  return planDisplayName(sub, sub ? (isFreeSubscription(sub) ? 'free' : sub.tier) : null);
}

/** The contract's Subscription view of a row (GET /api/users/current, admin lists). */
export function subscriptionView(sub: SubscriptionRow | null): Subscription | null {
  if (!sub) return null;
  const tier = planTierOf(sub);
  const interval = sub.interval === 'year' ? 'year' : 'month';
  const status: SubscriptionStatus = (SUBSCRIPTION_STATUSES as readonly string[]).includes(sub.status)
    ? (sub.status as SubscriptionStatus)
    : 'canceled';
  return {
    id: sub.id,
    status,
    current_period_end: sub.current_period_end == null ? null : new Date(sub.current_period_end).toISOString(),
    payments_collection_paused: sub.payments_collection_paused,
    cancel_at_period_end: sub.cancel_at_period_end,
    plan: {
      id: sub.price_id ?? `price_${tier}_${interval}`,
      product_id: sub.product_id ?? `prod_${tier}`,
      interval,
      recurring: true,
      tier,
      name: planNameOf(sub),
    },
    provider: sub.provider === 'stripe' ? 'stripe' : 'local',
    payment_issue: sub.payment_issue ?? null,
  };
}



export interface UserPlan {
  subscription: SubscriptionRow | null;
  /** Subscribed tier ('trial' without a subscription). */
  tier: PlanTier;
  /** Tier whose features apply now (see effectiveTierOf). */
  effectiveTier: PlanTier;
  active: boolean;
  name: string;
}

/** @internal Used by tests only. */
export function planOf(sub: SubscriptionRow | null, now: Date = new Date()): UserPlan {
  return {
    subscription: sub,
    tier: planTierOf(sub),
    effectiveTier: effectiveTierOf(sub, now),
    active: isSubscriptionActive(sub, now),
    name: planNameOf(sub),
  };
}

/**
 * The same through the short-lived in-process account cache (hot paths: settings, users/current).
 * Subscription writes through ./repository invalidate it in this process; other instances see changes
 * within ACCOUNT_CACHE_MS (1.5 s).
 */
export function getUserSubscriptionCached(db: Db, userId: string): Promise<SubscriptionRow | null> {
  return cachedSubscription(db, userId, (id) => findSubscriptionByUser(db, id));
}

