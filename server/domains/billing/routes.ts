// /api/payments (spec section 7, Payments): products, checkout sessions (subscription and minute pack), billing
// portal, latest payment, promotion codes, plan change, cancel at period end and its undo, billing details, and
// the Stripe webhook (no bearer token: the signature is the authentication).
import { Hono, type Context } from 'hono';
import {
  BillingDetailsRequest, BillingPortalQuery, ChangePlanRequest, PaymentCheckoutBody, PaymentCheckoutQuery, PromotionCodeRequest,
  SubscriptionCheckoutQuery,
} from '../../../contract/schemas/payments';

import { ApiError } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { jsonBody, queryWith } from '../../http/validate';
import { optionalSpaceIdFromQuery } from '../../http/access';
import { requireSpaceAccess } from '../spaces/access';
import {
  billingPortal, cancelSubscription, changePlan, latestPaymentInfo, minutesCheckout, paymentsOf, products, promotionCode,
  subscriptionCheckout, undoSubscriptionCancellation, updateBillingDetails,
} from './payments-service';
import { handleStripeWebhook } from './webhooks';
import { DATABASE_DOWN, routeFacts, type QueryFact } from '../../http/route-facts';

const MAX_WEBHOOK_BYTES = 1024 * 1024;
const CATALOGUE = "The payment provider's catalogue cannot be read right now";
/** The Teamspace the minutes are bought for (its owner only); the caller's default Teamspace when absent. */
const MINUTES_SPACE_Q: QueryFact = { name: 'space_id', description: 'The Teamspace the minutes are for (default: your own)' };

export const paymentsRoutes = new Hono<AppEnv>()
  .post('/webhook', routeFacts({
    summary: 'Payment provider events (Stripe: signed by Stripe-Signature, read from the raw body; each event applied once)',
    public: true,
    errors: { 400: 'Invalid signature', 404: 'Payment webhooks are not configured on this server', 503: DATABASE_DOWN },
  }), async (c) => {
    const p = paymentsOf(c.get('deps'));
    if (p.kind !== 'stripe') throw new ApiError(404, 'Payment webhooks are not configured on this server');
    if (Number(c.req.header('content-length') ?? '0') > MAX_WEBHOOK_BYTES) throw new ApiError(413, 'Request body too large');
    const raw = await c.req.text();
    if (raw.length > MAX_WEBHOOK_BYTES) throw new ApiError(413, 'Request body too large');
    const r = await handleStripeWebhook(c.get('deps').db, p, raw, c.req.header('stripe-signature'), (m, meta) => console.warn(m, meta ?? ''));
    return c.json(r);
  })
  .get('/products', routeFacts({ summary: 'Plans and minute packs with their prices', response: 'ProductsResponse', errors: { 503: CATALOGUE } }), async (c) => c.json(await products(c.get('deps'))))
  .get('/create_checkout_session_subscription', routeFacts({
    summary: 'A checkout for a plan',
    response: 'CheckoutResponse',
    query: [
      { name: 'price_id', required: true, description: 'The plan\'s price' }, { name: 'success_url', required: true, description: 'Where the checkout returns after paying' },
      { name: 'cancel_url', required: true, description: 'Where the checkout returns when cancelled' }, { name: 'promotion_code', description: 'An id from POST promotion_code' },
    ],
    errors: { 503: CATALOGUE },
  }), async (c) => {
    const q = queryWith(c, SubscriptionCheckoutQuery);
    return c.json(await subscriptionCheckout(c.get('deps'), c.get('user'), q, c.req.url));
  })
  .get('/create_checkout_session_payment', routeFacts({
    summary: 'A checkout for minutes of the Teamspace (the query form of the POST)',
    response: 'CheckoutResponse',
    query: [
      { name: 'price_id', required: true, description: 'The minute pack\'s price' }, { name: 'quantity', required: true, description: 'Minutes: 1 to 10000' },
      { name: 'success_url', required: true, description: 'Where the checkout returns after paying' },
      { name: 'cancel_url', required: true, description: 'Where the checkout returns when cancelled' }, MINUTES_SPACE_Q,
    ],
    errors: { 503: CATALOGUE },
  }), async (c) => {
    const q = queryWith(c, PaymentCheckoutQuery);
    const spaceId = await spaceOf(c);
    return c.json(await minutesCheckout(c.get('deps'), c.get('user'), spaceId, q, c.req.url));
  })
  .post('/create_checkout_session_payment', routeFacts({
    summary: 'A checkout for minutes of the Teamspace',
    body: 'PaymentCheckoutRequest',
    response: 'CheckoutResponse',
    query: [MINUTES_SPACE_Q],
    errors: { 503: CATALOGUE },
  }), async (c) => {
    const b = await jsonBody(c, PaymentCheckoutBody);
    const spaceId = await spaceOf(c);
    return c.json(
      await minutesCheckout(c.get('deps'), c.get('user'), spaceId, { price_id: b.id, quantity: b.quantity, success_url: b.success_url, cancel_url: b.cancel_url }, c.req.url),
    );
  })
  .get('/billing_portal', routeFacts({
    summary: 'The payment provider\'s billing portal',
    response: 'BillingPortalResponse',
    query: [{ name: 'return_url', required: true, description: 'Where the portal returns' }],
  }), async (c) => {
    const q = queryWith(c, BillingPortalQuery);
    return c.json(await billingPortal(c.get('deps'), c.get('user'), q.return_url, c.req.url));
  })
  .get('/latest_payment_info', routeFacts({ summary: 'The account\'s latest payment (its items, amount and date)', response: 'LatestPaymentInfo' }), async (c) => c.json(await latestPaymentInfo(c.get('deps'), c.get('user'))))
  .post('/promotion_code', routeFacts({ summary: 'Check a promotion code', body: 'PromotionCodeRequest', response: 'PromotionCode' }), async (c) => {
    const b = await jsonBody(c, PromotionCodeRequest);
    return c.json(await promotionCode(c.get('deps'), b.code));
  })
  .post('/subscription', routeFacts({ summary: 'Change the plan', body: 'ChangePlanRequest', response: 'SubscriptionAnswer', errors: { 503: CATALOGUE } }), async (c) => {
    const b = await jsonBody(c, ChangePlanRequest);
    return c.json(await changePlan(c.get('deps'), c.get('user'), b.price_id));
  })
  .post('/cancel_subscription', routeFacts({ summary: 'Cancel the plan at the end of its period', response: 'SubscriptionAnswer' }), async (c) => c.json(await cancelSubscription(c.get('deps'), c.get('user'))))
  .post('/cancel_subscription_cancellation', routeFacts({ summary: 'Undo a cancellation', response: 'SubscriptionAnswer' }), async (c) => c.json(await undoSubscriptionCancellation(c.get('deps'), c.get('user'))))
  .post('/update_customer_billing_details', routeFacts({
    summary: 'Update the billing details (name, e-mail, phone, address) the payment provider keeps',
    body: 'BillingDetailsRequest',
    response: 'BillingDetailsAnswer',
  }), async (c) => {
    const b = await jsonBody(c, BillingDetailsRequest);
    return c.json(await updateBillingDetails(c.get('deps'), c.get('user'), b));
  });

/** The space_id query (checked: the caller is a member), or null. */
async function spaceOf(c: Context<AppEnv>): Promise<string | null> {
  const id = optionalSpaceIdFromQuery(c);
  if (id === null) return null;
  return (await requireSpaceAccess(c, id)).id;
}
