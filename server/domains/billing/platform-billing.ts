// Billing through the platform in the embedded build (issue 32 part 5). A shop Teamspace does not use Stripe: its
// owner buys a plan with the platform's `appSubscriptionCreate` (one recurring line for the plan, one usage line
// with a capped amount for extra minutes), the merchant approves it on the platform's confirmation page, and the
// `app_subscriptions/update` webhook (or the re-check on the return from that page) makes it the plan: the same
// `subscriptions` row Stripe's subscriptions become (provider 'shop', the shop's Teamspace getting the monthly
// minutes), so the entitlements function does not know which provider granted it. Extra minutes are usage charges
// (`appUsageRecordCreate`) within the cap; each one's minutes are a ledger row written with the record of the charge.
import type { ShopBillingStatus, ShopMinutesResponse, ShopSubscribeResponse } from '../../../contract/schemas/shop-billing';
import { PLAN_DISPLAY_NAMES, PLAN_MONTHLY_MINUTES, type PlanTier } from '../../../contract/features';
import { namespace } from '../../cache/index';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/index';
import { DomainError } from '../../errors';
import { shopAdminGraphql } from '../shop/admin';
import * as shopRepo from '../shop/repository';
import { invalidateSubscription } from '../users/cache';
import * as repo from './repository';
import type { ShopSubRow } from './repository';
import type { UserRow } from '../../caller';
import * as ledger from './ledger';
import { recordPayment } from './payments-repository';
import { applyPlan, expirePlanMinutes, findLifecycle } from './subscriptions';

export const PLATFORM_BILLING_TEXTS = {
  notConfigured: 'Billing through the platform is not configured on this server',
  notAShop: 'This Teamspace is not a shop: its plan is bought with the checkout',
  ownerOnly: 'Only the Teamspace owner can buy a plan or minutes for it',
  noPrice: 'This plan is not sold through the platform',
  needsPlan: 'Buying minutes needs an active plan: choose a plan first',
  noUsageLine: 'This plan has no line for extra minutes: choose the plan again to add it',
  platformFailed: 'The platform did not answer as expected. Please try again later',
  checkoutInShop: "This Teamspace is your store's: its plan and minutes are bought through the store's billing, not the checkout",
} as const;

/** The text of the 402 when a usage charge would pass the subscription's cap. */
export function capReachedText(o: { amount: number; balanceUsed: number; cappedAmount: number; currency: string }): string {
  const m = (n: number) => `${n.toFixed(2)} ${o.currency}`;
  return `The spending limit for extra minutes is reached: ${m(o.balanceUsed)} of ${m(o.cappedAmount)} used this billing period, `
    + `and these minutes cost ${m(o.amount)}. Raise the limit to buy them.`;
}

const ENDING: ReadonlySet<string> = new Set(['CANCELLED', 'DECLINED', 'EXPIRED', 'FROZEN']);


interface UserError {
  field: string[] | null;
  message: string;
}
const money = (n: number) => Math.round(n * 100) / 100;
const cents = (n: number) => Math.round(n * 100);

function configOf(deps: AppDeps) {
  const c = deps.config.shopBilling;
  if (!deps.config.shop || !deps.config.embed || !c) throw new DomainError('unavailable', PLATFORM_BILLING_TEXTS.notConfigured);
  return c;
}

/** Is this space a shop Teamspace (its plan is then bought through the platform, not with the checkout)? */
export async function isShopSpace(deps: AppDeps, spaceId: string): Promise<boolean> {
  if (!deps.config.shop) return false;
  return !!(await shopRepo.findShopBySpace(deps.db, spaceId));
}

async function shopOf(deps: AppDeps, spaceId: string): Promise<shopRepo.ShopRow> {
  const shop = await shopRepo.findShopBySpace(deps.db, spaceId);
  if (!shop) throw new DomainError('conflict', PLATFORM_BILLING_TEXTS.notAShop);
  return shop;
}

async function spaceOwner(db: Db, spaceId: string): Promise<string> {
  const owner = await repo.spaceOwnerId(db, spaceId);
  if (!owner) throw new DomainError('not_found', 'Teamspace not found');
  return owner;
}

function userErrorsFailure(errors: UserError[]): DomainError {
  // As the platform tells them.
  return new DomainError('bad_request', errors.map((e) => e.message).join('; '), { extra: { user_errors: errors } });
}

// ------------------------------------------------------------------------------------------------ plans

const SUBSCRIBE = `mutation AppSubscriptionCreate($name: String!, $returnUrl: URL!, $lineItems: [AppSubscriptionLineItemInput!]!, $test: Boolean) {
  appSubscriptionCreate(name: $name, returnUrl: $returnUrl, lineItems: $lineItems, test: $test) {
    appSubscription { id status lineItems { id plan { pricingDetails { __typename } } } }
    confirmationUrl
    userErrors { field message }
  }
}`;

interface SubscribeData {
  appSubscriptionCreate: {
    appSubscription: { id: string; status: string; lineItems: Array<{ id: string; plan: { pricingDetails: { __typename: string } } }> } | null;
    confirmationUrl: string | null;
    userErrors: UserError[];
  };
}

/**
 * POST /api/shop/billing/subscribe: the owner of a shop Teamspace buys a plan. Answers the platform's confirmation
 * page for the client to open (App Bridge redirect); the plan starts when the merchant approves it there.
 */
export async function subscribePlan(deps: AppDeps, user: UserRow, spaceId: string, tier: PlanTier, origin: string): Promise<ShopSubscribeResponse> {
  const cfg = configOf(deps);
  const shop = await shopOf(deps, spaceId);
  const owner = await spaceOwner(deps.db, spaceId);
  if (owner !== user.id) throw new DomainError('forbidden', PLATFORM_BILLING_TEXTS.ownerOnly);
  const amount = cfg.prices[tier];
  if (amount === undefined) throw new DomainError('invalid', [{ loc: ['body', 'tier'], msg: PLATFORM_BILLING_TEXTS.noPrice, type: 'value' }]);
  const base = deps.config.publicUrl ?? origin;
  const returnUrl = new URL('/api/shop/billing/return', base);
  returnUrl.searchParams.set('shop', shop.domain);
  const minutes = PLAN_MONTHLY_MINUTES[tier] ?? 0;
  const data = await shopAdminGraphql<SubscribeData>(deps, spaceId, SUBSCRIBE, {
    name: `${PLAN_DISPLAY_NAMES[tier]} (${minutes} minutes a month)`,
    returnUrl: returnUrl.href,
    test: cfg.test,
    lineItems: [
      { plan: { appRecurringPricingDetails: { price: { amount, currencyCode: cfg.currency }, interval: 'EVERY_30_DAYS' } } },
      {
        plan: {
          appUsagePricingDetails: {
            terms: `Extra dubbing minutes at ${cfg.minutePrice.toFixed(2)} ${cfg.currency} a minute`,
            cappedAmount: { amount: cfg.cappedAmount, currencyCode: cfg.currency },
          },
        },
      },
    ],
  });
  const r = data.appSubscriptionCreate;
  if (r.userErrors.length > 0) throw userErrorsFailure(r.userErrors);
  if (!r.appSubscription || !r.confirmationUrl) throw new DomainError('upstream_failed', PLATFORM_BILLING_TEXTS.platformFailed);
  const lineOf = (type: string) => r.appSubscription!.lineItems.find((l) => l.plan.pricingDetails.__typename === type)?.id ?? null;
  await repo.insertShopSubscription(deps.db, {
    id: r.appSubscription.id, domain: shop.domain, spaceId, userId: owner, createdBy: user.id, tier, status: r.appSubscription.status,
    amount, currency: cfg.currency, recurringLineId: lineOf('AppRecurringPricing'), usageLineId: lineOf('AppUsagePricing'),
    cappedAmount: cfg.cappedAmount, minutePrice: cfg.minutePrice,
  });
  return { confirmation_url: r.confirmationUrl, subscription_id: r.appSubscription.id };
}

/**
 * Moves one app subscription to the platform's status, once per change: ACTIVE makes it the space owner's plan
 * (its minutes to the shop's Teamspace, a payment row for the period); CANCELLED, DECLINED, EXPIRED and FROZEN end
 * it (or it never starts). Returns false for a subscription this server did not create.
 */
export async function applyPlatformStatus(deps: AppDeps, id: string, status: string, now: Date = new Date()): Promise<boolean> {
  return deps.db.tx(async (t) => {
    const row = await repo.lockShopSubscription(t, id);
    if (!row) return false;
    if (row.status === status) return true;
    if (status === 'ACTIVE') {
      // An ended subscription does not come back; a frozen one does when the store pays again.
      if (ENDING.has(row.status) && row.status !== 'FROZEN') return true;
      await repo.activateShopSubscription(t, id, now);
      await applyPlan(t, {
        userId: row.user_id, tier: row.tier as PlanTier, interval: 'month', provider: 'shop', id: row.id, priceId: null, productId: null,
        spaceId: row.space_id, periodStart: now, now,
      });
      await recordPayment(t, {
        provider: 'shop', ref: `${row.id}:${now.toISOString().slice(0, 10)}`, userId: row.user_id, kind: 'subscription',
        amount: cents(Number(row.amount)), currency: row.currency.toLowerCase(),
        items: [{ item_name: `${PLAN_DISPLAY_NAMES[row.tier as PlanTier] ?? row.tier} (every 30 days)`, quantity: 1 }],
      });
      return true;
    }
    // A late PENDING or ACCEPTED (deliveries come in any order) does not move a started or ended subscription back.
    if (!ENDING.has(status) && row.status !== 'PENDING' && row.status !== 'ACCEPTED') return true;
    await repo.setShopSubscriptionStatus(t, id, status, ENDING.has(status) ? now : null);
    if (ENDING.has(status)) await endPlan(t, row.user_id, row.id, now);
    return true;
  });
}

/** Ends the owner's plan if it is this app subscription: features stop now, the plan's unused minutes lapse. */
async function endPlan(t: Db, userId: string, subscriptionId: string, now: Date): Promise<void> {
  const cur = await findLifecycle(t, userId);
  if (!cur || cur.id !== subscriptionId || cur.status === 'canceled') return;
  const ended = await repo.endSubscription(t, userId, now);
  invalidateSubscription(t, userId);
  await expirePlanMinutes(t, ended);
}

/** The `app_subscriptions/update` webhook (server/domains/shop/webhooks.ts). */
export async function handleAppSubscriptionsUpdate(deps: AppDeps, domain: string, rawBody: string): Promise<void> {
  let body: { app_subscription?: { admin_graphql_api_id?: unknown; status?: unknown } };
  try {
    body = JSON.parse(rawBody) as typeof body;
  } catch {
    throw new DomainError('bad_request', 'Malformed webhook body');
  }
  const id = body.app_subscription?.admin_graphql_api_id;
  const status = body.app_subscription?.status;
  if (typeof id !== 'string' || typeof status !== 'string') throw new DomainError('bad_request', 'Malformed app_subscriptions/update webhook');
  const known = await repo.shopSubscriptionDomain(deps.db, id);
  if (known !== domain) {
    deps.logger.info({ shop: domain, subscription: id }, 'app_subscriptions/update for a subscription this server did not create');
    return;
  }
  await applyPlatformStatus(deps, id, status.toUpperCase());
}

// ------------------------------------------------------------------------------------------------ re-check

const ACTIVE_SUBSCRIPTIONS = `query ActiveSubscriptions {
  currentAppInstallation {
    activeSubscriptions {
      id name status test currentPeriodEnd
      lineItems { id plan { pricingDetails {
        __typename
        ... on AppUsagePricing { terms balanceUsed { amount currencyCode } cappedAmount { amount currencyCode } }
      } } }
    }
  }
}`;

interface ActiveLine {
  id: string;
  plan: { pricingDetails: { __typename: string; balanceUsed?: { amount: string | number }; cappedAmount?: { amount: string | number } } };
}
interface ActiveData {
  currentAppInstallation: { activeSubscriptions: Array<{ id: string; status: string; lineItems: ActiveLine[] }> };
}

async function activeSubscriptions(deps: AppDeps, spaceId: string): Promise<ActiveData['currentAppInstallation']['activeSubscriptions']> {
  const d = await shopAdminGraphql<ActiveData>(deps, spaceId, ACTIVE_SUBSCRIPTIONS);
  return d.currentAppInstallation?.activeSubscriptions ?? [];
}

/**
 * Asks the platform which app subscriptions of the shop are active and starts those the webhook has not yet
 * (the return from the confirmation page: the plan shows without waiting for the webhook).
 */
export async function syncFromPlatform(deps: AppDeps, spaceId: string): Promise<number> {
  configOf(deps);
  await shopOf(deps, spaceId);
  let started = 0;
  for (const s of await activeSubscriptions(deps, spaceId)) {
    if (s.status !== 'ACTIVE') continue;
    const known = await repo.shopSubscriptionStatus(deps.db, s.id, spaceId);
    if (known !== null && known !== 'ACTIVE' && (await applyPlatformStatus(deps, s.id, 'ACTIVE'))) started++;
  }
  return started;
}

/** Re-checks of a shop from the unauthenticated return route: at most one per shop at a time and every few seconds. */
const RETURN_CHECKS = namespace('billing.shop-return-checks', () => new Map<string, { at: number; run: Promise<unknown> }>());
const RETURN_CHECK_MS = 3000;
const RETURN_CHECKS_MAX = 10_000;

/** The return from the confirmation page (no session: the platform redirects the top window): re-check, then the app. */
export async function returnFromConfirmation(deps: AppDeps, domain: string): Promise<string> {
  configOf(deps);
  const shop = await shopRepo.findShop(deps.db, domain);
  if (!shop?.space_id) throw new DomainError('not_found', 'Unknown shop');
  const spaceId = shop.space_id;
  const returnChecks = deps.db.state.of(RETURN_CHECKS);
  try {
    const prev = returnChecks.get(domain);
    if (prev && Date.now() - prev.at < RETURN_CHECK_MS) {
      await prev.run;
    } else {
      if (returnChecks.size >= RETURN_CHECKS_MAX) returnChecks.clear();
      const run = syncFromPlatform(deps, spaceId);
      returnChecks.set(domain, { at: Date.now(), run: run.catch(() => undefined) });
      await run;
    }
  } catch (e) {
    // The webhook still comes: the merchant is sent back to the app either way.
    deps.logger.warn({ shop: domain, err: e instanceof Error ? e.message : String(e) }, 'shop billing: re-check on return failed');
  }
  return `https://${shop.domain}/admin/apps/${deps.config.embed!.key}/pricing`;
}

// ------------------------------------------------------------------------------------------------ status

/** GET /api/shop/billing/status: how this Teamspace's plan is bought, the prices, and its platform subscription. */
export async function billingStatus(deps: AppDeps, spaceId: string): Promise<ShopBillingStatus> {
  const cfg = configOf(deps);
  const shop = await shopRepo.findShopBySpace(deps.db, spaceId);
  const sub = shop ? await repo.currentShopSubscription(deps.db, spaceId) : null;
  return {
    shop: !!shop,
    currency: cfg.currency,
    prices: cfg.prices,
    minute_price: cfg.minutePrice,
    capped_amount: cfg.cappedAmount,
    subscription: sub
      ? { id: sub.id, tier: sub.tier, status: sub.status, amount: Number(sub.amount), capped_amount: sub.capped_amount === null ? null : Number(sub.capped_amount) }
      : null,
  };
}

// ------------------------------------------------------------------------------------------------ extra minutes

const USAGE_RECORD = `mutation AppUsageRecordCreate($subscriptionLineItemId: ID!, $price: MoneyInput!, $description: String!, $idempotencyKey: String) {
  appUsageRecordCreate(subscriptionLineItemId: $subscriptionLineItemId, price: $price, description: $description, idempotencyKey: $idempotencyKey) {
    appUsageRecord { id idempotencyKey price { amount currencyCode } }
    userErrors { field message }
  }
}`;

const RAISE_CAP = `mutation AppSubscriptionLineItemUpdate($id: ID!, $cappedAmount: MoneyInput!) {
  appSubscriptionLineItemUpdate(id: $id, cappedAmount: $cappedAmount) {
    appSubscription { id }
    confirmationUrl
    userErrors { field message }
  }
}`;

interface UsageData {
  appUsageRecordCreate: { appUsageRecord: { id: string; idempotencyKey: string | null; price: { amount: string | number; currencyCode: string } } | null; userErrors: UserError[] };
}
interface RaiseData {
  appSubscriptionLineItemUpdate: { confirmationUrl: string | null; userErrors: UserError[] };
}

/**
 * POST /api/shop/billing/minutes: the owner of a shop Teamspace with an active plan buys extra minutes, charged as
 * one usage record within the cap (once per request id). Past the cap: 402 with the platform's page to raise it.
 */
export async function buyMinutes(
  deps: AppDeps,
  user: UserRow,
  spaceId: string,
  r: { quantity: number; request_id: string },
): Promise<ShopMinutesResponse> {
  configOf(deps);
  await shopOf(deps, spaceId);
  const owner = await spaceOwner(deps.db, spaceId);
  if (owner !== user.id) throw new DomainError('forbidden', PLATFORM_BILLING_TEXTS.ownerOnly);
  const key = `minutes-${spaceId}-${r.request_id.toLowerCase()}`;
  const done = await repo.findUsageCharge(deps.db, key);
  if (done) return { minutes: done.minutes, amount: Number(done.amount), currency: done.currency, usage_record_id: done.usage_record_id, fresh: false };
  const sub = await repo.currentShopSubscription(deps.db, spaceId);
  if (!sub) throw new DomainError('payment_required', PLATFORM_BILLING_TEXTS.needsPlan);
  if (!sub.usage_line_id) throw new DomainError('conflict', PLATFORM_BILLING_TEXTS.noUsageLine);
  const amount = money(r.quantity * Number(sub.minute_price));
  const data = await shopAdminGraphql<UsageData>(deps, spaceId, USAGE_RECORD, {
    subscriptionLineItemId: sub.usage_line_id,
    price: { amount, currencyCode: sub.currency },
    description: `${r.quantity} extra dubbing minute${r.quantity === 1 ? '' : 's'}`,
    idempotencyKey: key,
  });
  const u = data.appUsageRecordCreate;
  if (u.userErrors.length > 0 || !u.appUsageRecord) {
    await refuseOverCap(deps, spaceId, sub, amount);
    throw u.userErrors.length > 0 ? userErrorsFailure(u.userErrors) : new DomainError('upstream_failed', PLATFORM_BILLING_TEXTS.platformFailed);
  }
  const record = u.appUsageRecord;
  const fresh = await deps.db.tx(async (t) => {
    const inserted = await repo.insertUsageCharge(t, {
      key, subscriptionId: sub.id, spaceId, userId: user.id, minutes: r.quantity, amount, currency: sub.currency, usageRecordId: record.id,
    });
    if (!inserted) return false;
    await ledger.post(t, { spaceId, kind: 'purchase', minutes: r.quantity, ref: `shop-usage:${key}`, userId: user.id, note: 'extra minutes (platform usage charge)' });
    await recordPayment(t, {
      provider: 'shop', ref: record.id, userId: user.id, kind: 'credits', amount: cents(amount), currency: sub.currency.toLowerCase(),
      items: [{ item_name: 'Extra minutes', quantity: r.quantity }],
    });
    return true;
  });
  return { minutes: r.quantity, amount, currency: sub.currency, usage_record_id: record.id, fresh };
}

/** When the charge would pass the cap: 402 with the platform's confirmation page for a higher cap. */
async function refuseOverCap(deps: AppDeps, spaceId: string, sub: ShopSubRow, amount: number): Promise<void> {
  const active = (await activeSubscriptions(deps, spaceId)).find((s) => s.id === sub.id);
  const line = active?.lineItems.find((l) => l.id === sub.usage_line_id)?.plan.pricingDetails;
  if (!line?.cappedAmount || !line.balanceUsed) return;
  const cappedAmount = Number(line.cappedAmount.amount);
  const balanceUsed = Number(line.balanceUsed.amount);
  if (balanceUsed + amount <= cappedAmount + 1e-9) return;
  const newCap = Math.max(money(cappedAmount * 2), Math.ceil(balanceUsed + amount));
  let raiseUrl: string | null = null;
  let raiseErrors: UserError[] = [];
  try {
    const d = await shopAdminGraphql<RaiseData>(deps, spaceId, RAISE_CAP, { id: sub.usage_line_id, cappedAmount: { amount: newCap, currencyCode: sub.currency } });
    raiseUrl = d.appSubscriptionLineItemUpdate.confirmationUrl;
    raiseErrors = d.appSubscriptionLineItemUpdate.userErrors;
  } catch (e) {
    deps.logger.warn({ space: spaceId, err: e instanceof Error ? e.message : String(e) }, 'shop billing: raising the cap failed');
  }
  throw new DomainError('payment_required', capReachedText({ amount, balanceUsed, cappedAmount, currency: sub.currency }), {
    extra: {
      code: 'usage_cap_reached', raise_cap_url: raiseUrl, new_capped_amount: raiseUrl ? newCap : null, capped_amount: cappedAmount,
      balance_used: balanceUsed, ...(raiseErrors.length > 0 ? { user_errors: raiseErrors } : {}),
    },
  });
}
