// Payments (spec section 7, Payments): products, checkout sessions, billing portal, latest payment, promotion codes.
import * as v from 'valibot';
import { BUY_MINUTES_MAX } from '../constants';
import { PLAN_TIERS } from '../features';

export const PAYMENT_PROVIDERS = ['local', 'stripe'] as const;

/**
 * How a plan or minute pack is obtained on this server:
 * - 'stripe': checkout at the payment provider;
 * - 'free': the local provider with self-service switched on by a superuser (no payment, granted at once);
 * - 'admin': the local provider: plans and minutes are granted by a superuser from /admin.
 */
export const CHECKOUT_MODES = ['stripe', 'free', 'admin'] as const;
export type CheckoutMode = (typeof CHECKOUT_MODES)[number];

export const Price = v.object({
  id: v.string(),
  /** Cents; null when nothing is charged (local provider). */
  unit_amount: v.nullable(v.number()),
  currency: v.string(),
  /** month or year for plans, null for the minute pack (one-time). */
  interval: v.nullable(v.picklist(['month', 'year'])),
  is_archived: v.boolean(),
});
export type Price = v.InferOutput<typeof Price>;

export const PlanProduct = v.object({
  id: v.string(),
  name: v.string(),
  /** The tier; 'enterprise' for enterprise and custom plans. */
  category: v.string(),
  tier: v.picklist(PLAN_TIERS),
  is_archived: v.boolean(),
  metadata: v.object({ position: v.number(), monthly_minutes: v.number() }),
  prices: v.array(Price),
});
export type PlanProduct = v.InferOutput<typeof PlanProduct>;

export const CreditProduct = v.object({ id: v.string(), name: v.string(), prices: v.array(Price) });
export type CreditProduct = v.InferOutput<typeof CreditProduct>;

export const ProductsResponse = v.object({
  provider: v.picklist(PAYMENT_PROVIDERS),
  checkout: v.picklist(CHECKOUT_MODES),
  /** Plans sorted by metadata.position. */
  plans: v.array(PlanProduct),
  credits: v.array(CreditProduct),
});
export type ProductsResponse = v.InferOutput<typeof ProductsResponse>;

const Url = v.pipe(v.string(), v.maxLength(2048), v.url('Invalid URL'));
const PriceId = v.pipe(v.string(), v.minLength(1, 'Field is required'), v.maxLength(200));
/** Minutes of a minute pack: 1 to 10000 (the modal clamps to 10000; 0 cannot be bought). */
const Minutes = v.pipe(
  v.union([v.number(), v.pipe(v.string(), v.regex(/^\d{1,6}$/, 'quantity must be a whole number'), v.transform(Number))]),
  v.integer('quantity must be a whole number'),
  v.minValue(1, 'quantity must be at least 1 minute'),
  v.maxValue(BUY_MINUTES_MAX, `quantity must be at most ${BUY_MINUTES_MAX} minutes`),
);

/** GET create_checkout_session_subscription: price_id and the URLs (promotion_code: an id from POST promotion_code). */
export const SubscriptionCheckoutQuery = v.object({
  price_id: PriceId,
  success_url: Url,
  cancel_url: Url,
  promotion_code: v.optional(v.pipe(v.string(), v.maxLength(200))),
});
/** GET create_checkout_session_payment: price_id, quantity, success_url, cancel_url. */
export const PaymentCheckoutQuery = v.object({ price_id: PriceId, quantity: Minutes, success_url: Url, cancel_url: Url });
/** POST create_checkout_session_payment (the buy-credits body): id (price id), quantity (minutes) and the URLs. */
export const PaymentCheckoutBody = v.object({ id: PriceId, quantity: Minutes, success_url: Url, cancel_url: Url });

export const CheckoutResponse = v.object({ checkout_url: v.string() });
export type CheckoutResponse = v.InferOutput<typeof CheckoutResponse>;

export const BillingPortalQuery = v.object({ return_url: Url });
export const BillingPortalResponse = v.object({ billing_portal_url: v.string() });
export type BillingPortalResponse = v.InferOutput<typeof BillingPortalResponse>;

export const PaymentItem = v.object({ item_name: v.string(), quantity: v.number() });
export type PaymentItem = v.InferOutput<typeof PaymentItem>;
export const LatestPaymentInfo = v.object({
  items: v.array(PaymentItem),
  /** Cents, when money was paid. */
  amount: v.nullable(v.number()),
  currency: v.nullable(v.string()),
  created_date: v.nullable(v.string()),
});
export type LatestPaymentInfo = v.InferOutput<typeof LatestPaymentInfo>;

export const PromotionCodeRequest = v.object({ code: v.pipe(v.string(), v.trim(), v.minLength(1, 'Field is required'), v.maxLength(200)) });
export const PromotionCode = v.object({
  id: v.string(),
  code: v.string(),
  coupon: v.object({
    percent_off: v.nullable(v.number()),
    amount_off: v.nullable(v.number()),
    currency: v.nullable(v.string()),
    duration: v.picklist(['forever', 'once', 'repeating']),
    duration_in_months: v.nullable(v.number()),
  }),
});
export type PromotionCode = v.InferOutput<typeof PromotionCode>;

/** POST subscription: change the plan of an existing subscription (upgrade, downgrade, interval). */
export const ChangePlanRequest = v.object({ price_id: PriceId });

const Line = v.optional(v.pipe(v.string(), v.trim(), v.maxLength(200)));
export const BillingDetailsRequest = v.pipe(
  v.object({
    name: Line,
    email: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(254), v.email('Incorrect email'))),
    phone: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(40))),
    address: v.optional(
      v.object({
        line1: Line,
        line2: Line,
        city: Line,
        state: Line,
        postal_code: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(20))),
        country: v.optional(v.pipe(v.string(), v.trim(), v.regex(/^[A-Za-z]{2}$/, 'country must be a two-letter code'))),
      }),
    ),
  }),
  v.check((o) => Object.values(o).some((x) => x !== undefined), 'Nothing to update'),
);
export type BillingDetails = v.InferOutput<typeof BillingDetailsRequest>;
/** POST update_customer_billing_details: the provider took them. */
export const BillingDetailsAnswer = v.object({ ok: v.literal(true) });

/** Superuser: minutes granted to a user's default Teamspace (a local minute pack). */
export const AdminMinutesGrant = v.object({
  minutes: v.pipe(v.number(), v.integer('minutes must be a whole number'), v.minValue(1, 'minutes must be at least 1'), v.maxValue(1_000_000)),
  note: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(200))),
  /** Makes a retried request (a second click) grant once. */
  request_id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{8,64}$/, 'Invalid request id')),
});

/** Superuser: how users obtain plans on the local provider (self-service 'free' checkout or 'admin' grants). */
export const AdminPaymentsSettings = v.object({ local_checkout: v.picklist(['free', 'admin']) });

/** POST /api/admin/users/{id}/minutes: whether this request granted (false: a repeat of request_id), and the minutes. */
export const AdminMinutesGrantResult = v.object({
  granted: v.boolean(),
  space_id: v.string(),
  minutes: v.object({ total: v.number(), used: v.number(), available: v.number() }),
});
/** GET and PUT /api/admin/payments: the payment provider and how local checkouts work. */
export const AdminPaymentsAnswer = v.object({ local_checkout: v.picklist(['free', 'admin']), provider: v.picklist(PAYMENT_PROVIDERS) });
