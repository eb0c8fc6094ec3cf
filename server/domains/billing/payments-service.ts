// The rules of /api/payments (spec section 7, Payments), the same for both providers where they can be:
// who may check out what, the URLs a checkout may return to, one session for two clicks, minute packs only for
// the owner of a Teamspace with an active subscription, and what the local provider does instead of a payment
// (superuser grants, or self-service "free" checkout when a superuser switched it on).
import { createHash, randomUUID } from 'node:crypto';
import type { CheckoutMode, LatestPaymentInfo, ProductsResponse, PromotionCode, BillingDetails } from '../../../contract/schemas/payments';
import type { Subscription } from '../../../contract/schemas/user';
import { flights, keyedQueue } from '../../cache/flights';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/index';
import { DomainError } from '../../errors';
import type { UserRow } from '../../caller';
import { readAppSettings, writeAppSetting } from '../settings/repository';
import { findPrice, productsView, type CatalogueEntry } from './catalogue';
import { userEntitlements } from './entitlements';
import * as ledger from './ledger';
import { createPaymentsProvider, type AnyProvider } from './payments';
import { isShopSpace, PLATFORM_BILLING_TEXTS } from './platform-billing';
import * as repo from './payments-repository';
import { isSubscriptionActive, subscriptionView } from './plan';
import type { StripeProvider } from './stripe-provider';
import { applyPlan, cancelAtPeriodEnd, findLifecycle, undoCancellation, type LifecycleRow } from './subscriptions';
import { syncSubscription } from './webhooks';

export const TEXTS = {
  adminGrants: 'Plans and minutes on this server are granted by its administrator. Ask them to change your plan or add minutes.',
  unknownPrice: 'This price is not on sale',
  notAPlan: 'This price is not a plan: buy minutes with create_checkout_session_payment',
  notMinutes: 'This price is not the minute pack',
  alreadySubscribed: 'You already have a subscription: change your plan from Manage subscription',
  noSubscription: 'You have no subscription to change: choose a plan first',
  minutesNeedPlan: 'Buying minutes needs an active subscription: choose a plan first',
  ownerOnlyMinutes: 'Only the Teamspace owner can buy minutes for it',
  badReturnUrl: 'The return address must be a page of this app',
  noCustomer: 'You have no billing account yet: choose a plan first',
  localPortal: 'Your plan is managed on this server: there is no billing portal',
  localDetails: 'This server keeps no billing details: there are no payments on it',
  promoNotFound: 'Promotion code not found',
  notCanceling: 'Your subscription is not set to cancel',
  unavailable: 'Payments are unavailable right now. Please try again later',
  userNotFound: 'User not found',
} as const;

/** The provider of these deps (created from the configuration once). */
export function paymentsOf(deps: AppDeps): AnyProvider {
  if (!deps.payments) deps.payments = createPaymentsProvider(deps.config);
  return deps.payments as AnyProvider;
}

// ------------------------------------------------------------------------------------------------ settings

const LOCAL_CHECKOUT_KEY = 'local_checkout';

/** How plans are obtained here: Stripe checkout, or (local) superuser grants / self-service free checkout. */
export async function checkoutMode(deps: AppDeps): Promise<CheckoutMode> {
  if (paymentsOf(deps).kind === 'stripe') return 'stripe';
  const m = await readAppSettings(deps.db, [LOCAL_CHECKOUT_KEY]);
  return m.get(LOCAL_CHECKOUT_KEY) === 'free' ? 'free' : 'admin';
}

export async function setLocalCheckout(deps: AppDeps, mode: 'free' | 'admin'): Promise<{ local_checkout: 'free' | 'admin'; provider: string }> {
  await writeAppSetting(deps.db, LOCAL_CHECKOUT_KEY, mode);
  return { local_checkout: mode, provider: paymentsOf(deps).kind };
}

export async function paymentsSettings(deps: AppDeps): Promise<{ local_checkout: 'free' | 'admin'; provider: string }> {
  const m = await readAppSettings(deps.db, [LOCAL_CHECKOUT_KEY]);
  return { local_checkout: m.get(LOCAL_CHECKOUT_KEY) === 'free' ? 'free' : 'admin', provider: paymentsOf(deps).kind };
}

// ------------------------------------------------------------------------------------------------ catalogue

const CATALOGUE_TTL_MS = 10 * 60 * 1000;
/** The catalogue refresh running in this app (one at a time; app state). */
const REFRESHING = flights<void>('billing.catalogue');

/** Stripe: the catalogue copy is refreshed when older than 10 minutes (one refresh at a time). */
async function freshCatalogue(deps: AppDeps): Promise<void> {
  const p = paymentsOf(deps);
  if (p.kind !== 'stripe') return;
  const at = await repo.catalogueUpdatedAt(deps.db, 'stripe');
  if (at && Date.now() - at.getTime() < CATALOGUE_TTL_MS) return;
  try {
    await deps.db.state.of(REFRESHING).run('catalogue', () => p.syncCatalogue(deps.db));
  } catch (e) {
    console.error('[payments] catalogue refresh failed', e);
    if (!at) throw new DomainError('unavailable', TEXTS.unavailable);
  }
}

export async function products(deps: AppDeps): Promise<ProductsResponse> {
  await freshCatalogue(deps);
  return productsView(deps.db, paymentsOf(deps).kind, await checkoutMode(deps));
}

async function priceForSale(deps: AppDeps, priceId: string): Promise<CatalogueEntry> {
  await freshCatalogue(deps);
  const e = await findPrice(deps.db, paymentsOf(deps).kind, priceId);
  if (!e || e.price.is_archived || !e.price.is_current || e.product.is_archived) throw new DomainError('not_found', TEXTS.unknownPrice);
  return e;
}

// ------------------------------------------------------------------------------------------------ checkout

/**
 * Where a checkout or the portal may send the browser back: a page of this app, on PUBLIC_URL's host or the host
 * the request was made to (http or https: a TLS-terminating proxy changes the scheme the server sees).
 */
export function checkReturnUrl(deps: AppDeps, requestUrl: string, url: string): string {
  const allowed = new Set<string>([new URL(requestUrl).host]);
  if (deps.config.publicUrl) allowed.add(new URL(deps.config.publicUrl).host);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new DomainError('invalid', [{ loc: ['query'], msg: TEXTS.badReturnUrl, type: 'url' }]);
  }
  if ((u.protocol !== 'https:' && u.protocol !== 'http:') || !allowed.has(u.host)) throw new DomainError('invalid', [{ loc: ['query'], msg: TEXTS.badReturnUrl, type: 'url' }]);
  return u.href;
}

/** One checkout at a time per user in this app (its state); the provider's idempotency key covers other servers. */
const CHECKOUTS = keyedQueue('billing.checkouts');
function oneAtATime<T>(db: Db, userId: string, fn: () => Promise<T>): Promise<T> {
  return db.state.of(CHECKOUTS).serial(userId, fn);
}

/** A second click within this time gets the same session back. */
const REUSE_MS = 30 * 60 * 1000;
const LOCAL_REPEAT_MS = 30 * 1000;

interface CheckoutReq {
  mode: 'subscription' | 'payment';
  priceId: string;
  quantity: number;
  spaceId: string;
  successUrl: string;
  cancelUrl: string;
  promotionCodeId?: string | null;
}

function idempotencyKey(userId: string, r: CheckoutReq): string {
  const bucket = Math.floor(Date.now() / REUSE_MS);
  const h = createHash('sha256')
    .update(JSON.stringify([userId, r.mode, r.priceId, r.quantity, r.spaceId, r.successUrl, r.cancelUrl, r.promotionCodeId ?? '', bucket]))
    .digest('hex');
  return `checkout-${h.slice(0, 48)}`;
}

async function checkout(deps: AppDeps, user: UserRow, entry: CatalogueEntry, r: CheckoutReq): Promise<{ checkout_url: string }> {
  const p = paymentsOf(deps);
  return oneAtATime(deps.db, user.id, async () => {
    const db = deps.db;
    const same = { provider: p.kind, userId: user.id, spaceId: r.spaceId, mode: r.mode, priceId: r.priceId, quantity: r.quantity, successUrl: r.successUrl, cancelUrl: r.cancelUrl };
    if (p.kind === 'stripe') {
      const open = await repo.findRecentCheckout(db, { ...same, withinMs: REUSE_MS, statuses: ['open'] });
      if (open) return { checkout_url: open.url };
      const billing = await repo.userById(db, user.id);
      if (!billing) throw new DomainError('not_found', TEXTS.userNotFound);
      const customerId = await p.ensureCustomer(billing);
      if (billing.customer_id !== customerId) await repo.setCustomerId(db, billing, customerId);
      const s = await p.createCheckoutSession({
        user: billing, customerId, mode: r.mode, entry, quantity: r.quantity, spaceId: r.spaceId, successUrl: r.successUrl,
        cancelUrl: r.cancelUrl, promotionCodeId: r.promotionCodeId, idempotencyKey: idempotencyKey(user.id, r),
      });
      await repo.insertCheckout(db, { ...same, id: s.id, url: s.url });
      return { checkout_url: s.url };
    }
    // Local, self-service: granted at once, and the browser goes straight to the success page.
    const recent = await repo.findRecentCheckout(db, { ...same, withinMs: LOCAL_REPEAT_MS, statuses: ['complete'] });
    if (recent) return { checkout_url: recent.success_url };
    const id = `local_cs_${randomUUID()}`;
    await db.tx(async (t) => {
      if (r.mode === 'subscription') {
        await applyPlan(t, {
          userId: user.id, tier: (entry.product.tier ?? 'starter') as never, interval: entry.price.interval === 'year' ? 'year' : 'month',
          provider: 'local', priceId: entry.price.id, productId: entry.product.id,
        });
        await repo.recordPayment(t, {
          provider: 'local', ref: id, userId: user.id, kind: 'subscription', amount: null, currency: null,
          items: [{ item_name: `${entry.product.name} ${entry.price.interval === 'year' ? 'Annual' : 'Monthly'}`, quantity: 1 }],
        });
      } else {
        await ledger.post(t, { spaceId: r.spaceId, kind: 'purchase', minutes: r.quantity, ref: `payment:${id}`, userId: user.id, note: 'minute pack (self-service)' });
        await repo.recordPayment(t, {
          provider: 'local', ref: id, userId: user.id, kind: 'credits', amount: null, currency: null, items: [{ item_name: 'Extra minutes', quantity: r.quantity }],
        });
      }
      await repo.insertCheckout(t, { ...same, id, url: r.successUrl, status: 'complete' });
    });
    return { checkout_url: r.successUrl };
  });
}

async function requireSelfService(deps: AppDeps): Promise<CheckoutMode> {
  const mode = await checkoutMode(deps);
  if (mode === 'admin') throw new DomainError('forbidden', TEXTS.adminGrants);
  return mode;
}

/** A subscription that still runs (or is being collected): a new checkout would make a second one. */
function running(sub: LifecycleRow | null): boolean {
  if (!sub || sub.id.includes('free_sub')) return false;
  return !['canceled', 'incomplete_expired'].includes(sub.status) && (isSubscriptionActive(sub) || ['past_due', 'unpaid', 'paused'].includes(sub.status) || sub.payments_collection_paused);
}

export async function subscriptionCheckout(
  deps: AppDeps,
  user: UserRow,
  q: { price_id: string; success_url: string; cancel_url: string; promotion_code?: string },
  requestUrl: string,
): Promise<{ checkout_url: string }> {
  const mode = await requireSelfService(deps);
  const successUrl = checkReturnUrl(deps, requestUrl, q.success_url);
  const cancelUrl = checkReturnUrl(deps, requestUrl, q.cancel_url);
  const entry = await priceForSale(deps, q.price_id);
  if (entry.product.kind !== 'plan' || entry.price.interval === null) throw new DomainError('invalid', [{ loc: ['query', 'price_id'], msg: TEXTS.notAPlan, type: 'value' }]);
  const sub = await findLifecycle(deps.db, user.id);
  if (mode === 'stripe' && sub?.provider === 'stripe' && running(sub)) throw new DomainError('conflict', TEXTS.alreadySubscribed);
  const spaceId = await repo.defaultSpaceId(deps.db, user.id);
  if (!spaceId) throw new DomainError('not_found', TEXTS.userNotFound);
  return checkout(deps, user, entry, {
    mode: 'subscription', priceId: entry.price.id, quantity: 1, spaceId, successUrl, cancelUrl, promotionCodeId: q.promotion_code || null,
  });
}

export async function minutesCheckout(
  deps: AppDeps,
  user: UserRow,
  spaceIdParam: string | null,
  q: { price_id: string; quantity: number; success_url: string; cancel_url: string },
  requestUrl: string,
): Promise<{ checkout_url: string }> {
  // A shop's Teamspace pays through the platform (an app sold inside its admin may not take payments elsewhere).
  if (spaceIdParam && (await isShopSpace(deps, spaceIdParam))) throw new DomainError('conflict', PLATFORM_BILLING_TEXTS.checkoutInShop);
  await requireSelfService(deps);
  const successUrl = checkReturnUrl(deps, requestUrl, q.success_url);
  const cancelUrl = checkReturnUrl(deps, requestUrl, q.cancel_url);
  const entry = await priceForSale(deps, q.price_id);
  if (entry.product.kind !== 'credits') throw new DomainError('invalid', [{ loc: ['query', 'price_id'], msg: TEXTS.notMinutes, type: 'value' }]);
  const spaceId = spaceIdParam ?? (await repo.defaultSpaceId(deps.db, user.id));
  if (!spaceId) throw new DomainError('not_found', TEXTS.userNotFound);
  const owner = await repo.spaceOwner(deps.db, spaceId);
  if (owner !== user.id) throw new DomainError('forbidden', TEXTS.ownerOnlyMinutes);
  const e = await userEntitlements(deps.db, user.id);
  if (e.state !== 'active') throw new DomainError('forbidden', TEXTS.minutesNeedPlan);
  return checkout(deps, user, entry, { mode: 'payment', priceId: entry.price.id, quantity: q.quantity, spaceId, successUrl, cancelUrl });
}

// ------------------------------------------------------------------------------------------------ account

export async function billingPortal(deps: AppDeps, user: UserRow, returnUrl: string, requestUrl: string): Promise<{ billing_portal_url: string }> {
  const p = paymentsOf(deps);
  const back = checkReturnUrl(deps, requestUrl, returnUrl);
  if (p.kind !== 'stripe') throw new DomainError('conflict', TEXTS.localPortal);
  const billing = await repo.userById(deps.db, user.id);
  if (!billing?.customer_id) throw new DomainError('conflict', TEXTS.noCustomer);
  return { billing_portal_url: await p.billingPortalUrl(billing.customer_id, back) };
}

export async function latestPaymentInfo(deps: AppDeps, user: UserRow): Promise<LatestPaymentInfo> {
  const row = await repo.latestPayment(deps.db, user.id);
  if (!row) return { items: [], amount: null, currency: null, created_date: null };
  return {
    items: (row.items ?? []).map((i) => ({ item_name: String(i.item_name), quantity: Number(i.quantity) })),
    amount: row.amount === null ? null : Number(row.amount),
    currency: row.currency,
    created_date: new Date(row.created_at).toISOString(),
  };
}

export async function promotionCode(deps: AppDeps, code: string): Promise<PromotionCode> {
  const p = paymentsOf(deps);
  const found = p.kind === 'stripe' ? await p.findPromotionCode(code) : null;
  if (!found) throw new DomainError('not_found', TEXTS.promoNotFound);
  return found;
}

async function view(db: Db, userId: string): Promise<Subscription | null> {
  return subscriptionView(await findLifecycle(db, userId));
}

/** Pulls a Stripe subscription right after changing it (the webhook that follows changes nothing more). */
async function pull(deps: AppDeps, p: StripeProvider, subscriptionId: string): Promise<void> {
  const sub = await p.retrieveSubscription(subscriptionId);
  await deps.db.tx((t) => syncSubscription(t, p, sub));
}

/** POST subscription: another plan or interval for the current subscription. */
export async function changePlan(deps: AppDeps, user: UserRow, priceId: string): Promise<Subscription | null> {
  const mode = await requireSelfService(deps);
  const entry = await priceForSale(deps, priceId);
  if (entry.product.kind !== 'plan' || entry.price.interval === null) throw new DomainError('invalid', [{ loc: ['body', 'price_id'], msg: TEXTS.notAPlan, type: 'value' }]);
  const p = paymentsOf(deps);
  const sub = await findLifecycle(deps.db, user.id);
  if (mode === 'stripe' && p.kind === 'stripe') {
    if (!sub || sub.provider !== 'stripe' || !running(sub)) throw new DomainError('conflict', TEXTS.noSubscription);
    if (sub.price_id !== entry.price.id) await p.changePlan(sub.id, entry.price.id);
    await pull(deps, p, sub.id);
  } else {
    await deps.db.tx((t) =>
      applyPlan(t, {
        userId: user.id, tier: (entry.product.tier ?? 'starter') as never, interval: entry.price.interval === 'year' ? 'year' : 'month',
        provider: 'local', priceId: entry.price.id, productId: entry.product.id,
      }),
    );
  }
  return view(deps.db, user.id);
}

async function setCancel(deps: AppDeps, user: UserRow, cancel: boolean): Promise<Subscription | null> {
  await requireSelfService(deps);
  const p = paymentsOf(deps);
  const sub = await findLifecycle(deps.db, user.id);
  if (!sub || !running(sub)) throw new DomainError('conflict', TEXTS.noSubscription);
  if (!cancel && !sub.cancel_at_period_end) throw new DomainError('conflict', TEXTS.notCanceling);
  if (sub.provider === 'stripe' && p.kind === 'stripe') {
    await p.setCancelAtPeriodEnd(sub.id, cancel);
    await pull(deps, p, sub.id);
  } else if (cancel) {
    await cancelAtPeriodEnd(deps.db, user.id);
  } else {
    await undoCancellation(deps.db, user.id);
  }
  return view(deps.db, user.id);
}
/** POST cancel_subscription: the plan ends at the end of the period. */
export const cancelSubscription = (deps: AppDeps, user: UserRow) => setCancel(deps, user, true);
/** POST cancel_subscription_cancellation: the plan renews again. */
export const undoSubscriptionCancellation = (deps: AppDeps, user: UserRow) => setCancel(deps, user, false);

export async function updateBillingDetails(deps: AppDeps, user: UserRow, d: BillingDetails): Promise<{ ok: true }> {
  const p = paymentsOf(deps);
  if (p.kind !== 'stripe') throw new DomainError('conflict', TEXTS.localDetails);
  const billing = await repo.userById(deps.db, user.id);
  if (!billing?.customer_id) throw new DomainError('conflict', TEXTS.noCustomer);
  await p.updateBillingDetails(billing.customer_id, d);
  return { ok: true };
}

// ------------------------------------------------------------------------------------------------ admin

/** A superuser grants minutes (a local minute pack) to a user's default Teamspace; once per request id. */
export async function grantMinutes(
  deps: AppDeps,
  actor: UserRow,
  userId: string,
  g: { minutes: number; note?: string; request_id: string },
): Promise<{ granted: boolean; space_id: string; minutes: { total: number; used: number; available: number } }> {
  if (!/^[0-9a-f-]{36}$/i.test(userId)) throw new DomainError('not_found', TEXTS.userNotFound);
  const spaceId = await repo.defaultSpaceId(deps.db, userId);
  if (!spaceId) throw new DomainError('not_found', TEXTS.userNotFound);
  const granted = await deps.db.tx(async (t) => {
    const wrote = await ledger.post(t, {
      spaceId, kind: 'grant', minutes: g.minutes, ref: `admin:${g.request_id}`, userId, note: g.note || `granted by ${actor.email}`,
    });
    if (wrote) {
      await repo.recordPayment(t, {
        provider: 'local', ref: `admin:${g.request_id}`, userId, kind: 'credits', amount: null, currency: null,
        items: [{ item_name: 'Extra minutes', quantity: g.minutes }],
      });
    }
    return wrote;
  });
  const b = await ledger.balances(deps.db, spaceId);
  return { granted, space_id: spaceId, minutes: b.minutes };
}
