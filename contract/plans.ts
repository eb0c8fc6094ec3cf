// Plan display names and subscription rules shared by the browser and the server (spec section 6: planName,
// active subscription). Pure functions over the contract's shapes; no I/O.
import type { PlanTier, SubscriptionStatus } from './features';

/** Display names of the plans on sale. A tier missing here is an archived plan. */
export const PLAN_NAMES: Partial<Record<PlanTier, string>> = {
  starter: 'Starter',
  creator: 'Creator',
  creator_pro: 'Creator Pro',
  business: 'Business',
  enterprise: 'Enterprise',
  custom: 'Custom',
};
export const FREE_PLAN_NAME = 'Free Plan';
export const ARCHIVE_PLAN_NAME = 'Archive Plan';

/** Statuses in which a subscription counts as active (with the period and pause rules of isActiveSubscription). */
export const ACTIVE_SUBSCRIPTION_STATUSES: readonly string[] = ['active', 'incomplete', 'incomplete_expired', 'trialing'];

/** What the subscription rules read: the server's row and the contract's Subscription both have these. */
export interface SubscriptionFacts {
  id: string;
  status: SubscriptionStatus | string;
  payments_collection_paused: boolean;
  current_period_end: Date | string | null;
}

function periodEndMs(sub: Pick<SubscriptionFacts, 'current_period_end'>): number | null {
  if (sub.current_period_end == null) return null;
  const t = new Date(sub.current_period_end).getTime();
  return Number.isNaN(t) ? null : t;
}

/** Free subscriptions carry 'free_sub' in their id (or the free tier). */
export function isFreeSubscription(sub: Pick<SubscriptionFacts, 'id'> | null, tier?: string): boolean {
  return !!sub && (sub.id.includes('free_sub') || tier === 'free');
}

/** Spec: active, incomplete, incomplete_expired or trialing; the period has not ended; collection not paused. */
export function isActiveSubscription(sub: SubscriptionFacts | null | undefined, now: number = Date.now()): boolean {
  if (!sub) return false;
  if (!ACTIVE_SUBSCRIPTION_STATUSES.includes(sub.status)) return false;
  if (sub.payments_collection_paused) return false;
  const end = periodEndMs(sub);
  return end === null || end > now;
}

/** Spec: expired when the period end is in the past. */
export function isExpiredSubscription(sub: Pick<SubscriptionFacts, 'current_period_end'> | null, now: number = Date.now()): boolean {
  if (!sub) return false;
  const end = periodEndMs(sub);
  return end !== null && end <= now;
}

/** Spec planName: the plan's name if found; else Free Plan for a free subscription or none; else Archive Plan. */
export function planDisplayName(sub: Pick<SubscriptionFacts, 'id'> | null | undefined, tier: string | null | undefined): string {
  if (!sub || tier === 'trial' || isFreeSubscription(sub, tier ?? undefined)) return FREE_PLAN_NAME;
  const name = tier ? PLAN_NAMES[tier as PlanTier] : undefined;
  return name ?? ARCHIVE_PLAN_NAME;
}

/** The plan tier of a user as the API shows it: no subscription means the trial plan. */
export function userPlanTier(user: { subscription: { plan: { tier: PlanTier } } | null } | null | undefined): PlanTier {
  return user?.subscription?.plan.tier ?? 'trial';
}

/** The plan name of a user as the API shows it: the server's name, else the planName rule. */
export function userPlanName(user: { subscription: { id: string; plan: { tier: PlanTier; name: string } } | null } | null | undefined): string {
  const sub = user?.subscription;
  return sub?.plan.name || planDisplayName(sub, sub?.plan.tier);
}
