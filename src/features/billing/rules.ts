// Billing rules of the client (pure): the buy-minutes input (spec section 5), prices, the balance flags and planName
// (spec section 3), the cheaper-plan promo (spec section 9), next billing, return URLs with the payment flags, and
// the Billing Portal paths the client appends (spec section 7).
import { BUY_MINUTES_MARKS, BUY_MINUTES_MAX } from '../../../contract/constants';
import { PLAN_DISPLAY_NAMES, type PlanTier } from '../../../contract/features';
import type { PlanProduct, Price, ProductsResponse } from '../../../contract/schemas/payments';
import type { User } from '../../../contract/schemas/user';
import { formatDate, formatMoney as formatMoneyIntl } from '../../lib/format';

export { BUY_MINUTES_MARKS, BUY_MINUTES_MAX };

/** Keys the minutes field refuses (digits only: sign, comma, exponent and decimal point). */
const BLOCKED_KEYS = new Set(['-', '+', ',', '.', 'e', 'E']);
export function isBlockedMinutesKey(key: string): boolean {
  return BLOCKED_KEYS.has(key);
}

/** The field's text as minutes: digits only, empty is 0, over 10000 becomes 10000. */
export function parseMinutesInput(raw: string): number {
  const digits = raw.replace(/\D+/g, '');
  if (digits === '') return 0;
  return Math.min(BUY_MINUTES_MAX, Number(digits.slice(0, 6)));
}

/** Price of a minute pack in currency units: minutes x unit_amount / 100. */
export function minutesPrice(minutes: number, unitAmountCents: number | null | undefined): number {
  if (!unitAmountCents || minutes <= 0) return 0;
  return Math.round(minutes * unitAmountCents) / 100;
}

/** Checkout of a minute pack: disabled when the price is 0 or while loading. */
export function canCheckoutMinutes(price: number, loading: boolean): boolean {
  return price > 0 && !loading;
}

/** Money in the user's locale (the app's one formatter, src/lib/format.ts). */
export const formatMoney = formatMoneyIntl;

/** The minute pack's current price (one per currency; the first). */
export function minutesPriceOf(products: ProductsResponse | undefined): Price | null {
  return products?.credits[0]?.prices.find((p) => !p.is_archived) ?? null;
}

export function planPrice(plan: PlanProduct, interval: 'month' | 'year'): Price | null {
  return plan.prices.find((p) => p.interval === interval && !p.is_archived) ?? null;
}

/** Dollars per minute of a plan price (yearly prices cover 12 months of minutes). */
export function planPricePerMinute(plan: PlanProduct, price: Price): number | null {
  if (price.unit_amount === null || plan.metadata.monthly_minutes <= 0) return null;
  const months = price.interval === 'year' ? 12 : 1;
  return price.unit_amount / 100 / (plan.metadata.monthly_minutes * months);
}

/** The plan a subscription's price belongs to (by product id, else by price id), when the catalogue has it. */
export function planOfSubscription(user: Pick<User, 'subscription'> | null | undefined, products: ProductsResponse | undefined): PlanProduct | null {
  const sub = user?.subscription;
  if (!sub || !products) return null;
  return products.plans.find((p) => p.id === sub.plan.product_id) ?? products.plans.find((p) => p.prices.some((x) => x.id === sub.plan.id)) ?? null;
}

const isFree = (u: Pick<User, 'subscription'> | null | undefined) =>
  !u?.subscription || u.subscription.id.includes('free_sub') || u.subscription.plan.tier === 'free' || u.subscription.plan.tier === 'trial';

/** Spec planName: the plan's name if found; else Free Plan (free subscription or trial plan); else Archive Plan. */
export function planName(user: Pick<User, 'subscription'> | null | undefined, products: ProductsResponse | undefined): string {
  if (isFree(user)) return 'Free Plan';
  const plan = planOfSubscription(user, products);
  if (plan) return plan.name;
  if (!products) return user!.subscription!.plan.name || PLAN_DISPLAY_NAMES[user!.subscription!.plan.tier];
  return 'Archive Plan';
}

/** Active: active/incomplete/incomplete_expired/trialing, period not ended, collection not paused (spec section 4). */
export function hasActiveSubscription(user: Pick<User, 'subscription'> | null | undefined, now = Date.now()): boolean {
  const sub = user?.subscription;
  if (!sub || isFree(user)) return false;
  if (!['active', 'incomplete', 'incomplete_expired', 'trialing'].includes(sub.status)) return false;
  if (sub.payments_collection_paused) return false;
  return !(sub.current_period_end && Date.parse(sub.current_period_end) <= now);
}

/** The subscription's price is no longer sold (an archived price or plan). */
export function hasArchivedSubscription(user: Pick<User, 'subscription'> | null | undefined, products: ProductsResponse | undefined): boolean {
  const sub = user?.subscription;
  if (!sub || isFree(user) || !products) return false;
  const plan = planOfSubscription(user, products);
  if (!plan) return true;
  if (plan.category === 'enterprise') return false;
  const price = plan.prices.find((p) => p.id === sub.plan.id);
  return plan.is_archived || !price || price.is_archived;
}

export interface BalanceFlags {
  hasActiveSubscription: boolean;
  hasTrialPlan: boolean;
  hasEnterprisePlan: boolean;
  hasArchivedSubscription: boolean;
  /** A minute pack can be bought here: an active subscription and a minute pack for sale (or granted freely). */
  canBuyMinutes: boolean;
  tier: PlanTier;
}

export function balanceFlags(user: Pick<User, 'subscription'> | null | undefined, products: ProductsResponse | undefined): BalanceFlags {
  const tier: PlanTier = user?.subscription?.plan.tier ?? 'trial';
  const active = hasActiveSubscription(user);
  const enterprise = tier === 'enterprise' || tier === 'custom' || planOfSubscription(user, products)?.category === 'enterprise';
  const pack = products ? minutesPriceOf(products) !== null && products.checkout !== 'admin' : true;
  return {
    hasActiveSubscription: active,
    hasTrialPlan: !user?.subscription,
    hasEnterprisePlan: active && enterprise,
    hasArchivedSubscription: hasArchivedSubscription(user, products),
    canBuyMinutes: active && pack,
    tier,
  };
}

/** What a "payment required" answer opens (spec section 8), from the real plan and catalogue. */
export function paymentContextFrom(user: Pick<User, 'subscription'> | null | undefined, products: ProductsResponse | undefined) {
  const f = balanceFlags(user, products);
  return {
    hasActiveNonEnterpriseSubscription: f.hasActiveSubscription && !f.hasEnterprisePlan,
    canBuyMinutes: f.canBuyMinutes,
    hasArchivedSubscription: f.hasArchivedSubscription,
    hasEnterprisePlan: f.hasEnterprisePlan,
  };
}

export const PROMO_TEXT = 'Pay only $1.5 per minute!';
export const PROMO_ARCHIVED_TEXT = 'New pricing: our plans now cost as little as $1.5 per minute!';
/** Cheaper-plan promo: when a minute costs more than $1; another text for subscribers of an archived plan. */
export function promoBannerText(unitAmountCents: number | null | undefined, archived: boolean): string | null {
  if (!unitAmountCents || unitAmountCents / 100 <= 1) return null;
  return archived ? PROMO_ARCHIVED_TEXT : PROMO_TEXT;
}

/** Next billing: the period end, else one month or one year ahead (spec section 9). */
export function nextBilling(user: Pick<User, 'subscription'> | null | undefined, now = new Date()): Date | null {
  const sub = user?.subscription;
  if (!sub || isFree(user)) return null;
  if (sub.current_period_end) return new Date(sub.current_period_end);
  const d = new Date(now.getTime());
  d.setMonth(d.getMonth() + (sub.plan.interval === 'year' ? 12 : 1));
  return d;
}

/** A calendar day in the user's locale (the app's one formatter). */
export function formatDay(d: Date): string {
  return formatDate(d);
}

export type PaymentFlag = 'payment-successful' | 'payment-subscription-canceled' | 'payment-credits-canceled';
/** An absolute URL of an in-app page with a payment flag (the page the payment provider sends the browser back to). */
export function returnUrl(appPath: string, flag: PaymentFlag, base: string, origin: string): string {
  const u = new URL(`${base}${appPath.startsWith('/') ? appPath : `/${appPath}`}`, origin);
  for (const f of ['payment-successful', 'payment-subscription-canceled', 'payment-credits-canceled']) u.searchParams.delete(f);
  const q = u.searchParams.toString();
  return `${u.origin}${u.pathname}?${q ? `${q}&` : ''}${flag}`;
}

/** Billing Portal paths appended to billing_portal_url (spec section 7). */
export function portalPath(url: string, target: { kind: 'portal' } | { kind: 'billing_details' } | { kind: 'plan_preview'; subscriptionId: string; priceId: string }): string {
  const base = url.replace(/\/+$/, '');
  if (target.kind === 'portal') return url;
  if (target.kind === 'billing_details') return `${base}/customer/update`;
  return `${base}/subscriptions/${encodeURIComponent(target.subscriptionId)}/preview/${encodeURIComponent(target.priceId)}?quantity=1`;
}

/** The issue a subscriber must fix, in words. */
export function paymentIssueText(issue: string | null | undefined): string | null {
  if (issue === 'expired_card') return 'Your card has expired. Update your payment method to keep your plan.';
  if (issue === 'card_expiring') return 'Your card expires soon. Update your payment method to keep your plan.';
  if (issue === 'payment_failed') return 'Your last payment failed. Update your payment method to keep your plan.';
  return null;
}
