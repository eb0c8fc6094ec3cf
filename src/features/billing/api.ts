// Billing calls (/api/payments, spec section 7): products, checkout sessions, billing portal, latest payment,
// promotion codes, plan changes. Products follow the spec's retry rules: a 429 is retried at most once and not
// shown; other failures up to 2 times, 5 s doubled per retry, capped at 30 s.
import { PRODUCT_RETRY_BASE_MS, PRODUCT_RETRY_CAP_MS } from '../../../contract/constants';
import type { BillingPortalResponse, CheckoutResponse, PromotionCode } from '../../../contract/schemas/payments';
import type { Subscription } from '../../../contract/schemas/user';
import { call, client, clientWith } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';
import { isApiError } from '../../lib/http';

/** The account's payments are not about a Teamspace: no space_id. */
const noSpace = () => clientWith({ spaceId: false });

export const PRODUCTS_KEY = apiKey('/api/payments/products');

/** Delay before products retry number n (1-based): 5 s, 10 s, capped at 30 s. */
export function productRetryDelayMs(n: number): number {
  return Math.min(PRODUCT_RETRY_BASE_MS * 2 ** Math.max(0, n - 1), PRODUCT_RETRY_CAP_MS);
}
/** Whether the products call is tried again after `error` (retry number n, 1-based). */
export function shouldRetryProducts(error: unknown, n: number): boolean {
  if (isApiError(error) && error.status === 429) return n <= 1;
  if (isApiError(error) && error.status >= 400 && error.status < 500) return false;
  return n <= 2;
}

export function useProducts(enabled = true) {
  // Not shown to the user when it fails (no global error effects): the pricing page says it plainly.
  const quiet = { effects: false, spaceId: false };
  return useApiGet('/api/payments/products', enabled ? {} : null, {
    dedupingInterval: 60_000,
    revalidateOnFocus: false,
    onErrorRetry(error, _key, _config, revalidate, { retryCount }) {
      if (!shouldRetryProducts(error, retryCount)) return;
      setTimeout(() => void revalidate({ retryCount }), productRetryDelayMs(retryCount));
    },
  }, quiet);
}

export function useLatestPayment(enabled = true) {
  return useApiGet('/api/payments/latest_payment_info', enabled ? {} : null);
}

export function subscriptionCheckout(q: { price_id: string; success_url: string; cancel_url: string; promotion_code?: string }): Promise<CheckoutResponse> {
  // Empty values are left out of the query (as before).
  const query = { price_id: q.price_id, success_url: q.success_url, cancel_url: q.cancel_url, promotion_code: q.promotion_code || undefined };
  return call(noSpace().GET('/api/payments/create_checkout_session_subscription', { params: { query } }));
}

/** Buy-credits checkout: id (price id), quantity (minutes), success_url and cancel_url; for the current space. */
export function minutesCheckout(body: { id: string; quantity: number; success_url: string; cancel_url: string }): Promise<CheckoutResponse> {
  return call(client.POST('/api/payments/create_checkout_session_payment', { body }));
}

export function billingPortal(returnUrl: string): Promise<BillingPortalResponse> {
  return call(noSpace().GET('/api/payments/billing_portal', { params: { query: { return_url: returnUrl } } }));
}

export function checkPromotionCode(code: string): Promise<PromotionCode> {
  return call(noSpace().POST('/api/payments/promotion_code', { body: { code } }));
}

export function changePlan(priceId: string): Promise<Subscription | null> {
  return call(noSpace().POST('/api/payments/subscription', { body: { price_id: priceId } }));
}
export function cancelSubscription(): Promise<Subscription | null> {
  return call(noSpace().POST('/api/payments/cancel_subscription'));
}
export function undoCancellation(): Promise<Subscription | null> {
  return call(noSpace().POST('/api/payments/cancel_subscription_cancellation'));
}


/** "Ask my administrator": a message to the install's staff (the support inbox of the admin area). */
export function askAdministrator(body: string, page: string): Promise<unknown> {
  return call(noSpace().POST('/api/support/messages', { body: { body, page, project_id: null } }));
}
