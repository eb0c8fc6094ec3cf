import * as v from 'valibot';
import { PLAN_TIERS, SUBSCRIPTION_STATUSES } from '../features';
import { Email } from './common';

export const Plan = v.object({
  id: v.string(),
  product_id: v.string(),
  interval: v.picklist(['month', 'year']),
  recurring: v.boolean(),
  tier: v.picklist(PLAN_TIERS),
  name: v.string(),
});
export const Subscription = v.object({
  id: v.string(),
  status: v.picklist(SUBSCRIPTION_STATUSES),
  current_period_end: v.nullable(v.string()),
  payments_collection_paused: v.boolean(),
  cancel_at_period_end: v.boolean(),
  plan: Plan,
  /** Who bills it: 'local' (granted on this server) or 'stripe'. */
  provider: v.optional(v.picklist(['local', 'stripe'])),
  /** A payment problem to fix (payment_failed, expired_card, card_expiring); null when none. */
  payment_issue: v.optional(v.nullable(v.string())),
});
export type Subscription = v.InferOutput<typeof Subscription>;
export const FeatureGroup = v.object({ name: v.string(), option: v.object({ id: v.string() }) });
export const User = v.object({
  id: v.string(),
  email: v.string(),
  email_type: v.string(),
  is_superuser: v.boolean(),
  is_active: v.boolean(),
  picture: v.nullable(v.string()),
  created_date: v.string(),
  cognitoId: v.string(),
  api_credentials_generated: v.boolean(),
  customer_id: v.nullable(v.string()),
  churnkey_hmac: v.nullable(v.string()),
  onboarding: v.array(v.string()),
  email_consent: v.boolean(),
  feature_groups: v.array(FeatureGroup),
  subscription: v.nullable(Subscription),
  pending_welcome_spaces: v.array(v.string()),
});
export type User = v.InferOutput<typeof User>;
export const CreateUserRequest = v.object({
  email: Email,
  referral_id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(200)))),
  token: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(4096)))),
});
export const UpdateUserRequest = v.pipe(
  v.object({
    onboarding: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(100))), v.maxLength(200))),
    email_consent: v.optional(v.boolean()),
    welcome_seen_space_id: v.optional(v.string()),
  }),
  v.check((o) => Object.values(o).some((x) => x !== undefined), 'Nothing to update'),
);
export const AdminUpdateUserRequest = v.object({
  plan: v.optional(v.picklist(PLAN_TIERS)),
  is_active: v.optional(v.boolean()),
  is_superuser: v.optional(v.boolean()),
});

// Admin area (spec section 7, Admin): user search/list rows and their query.
const AdminDateParam = v.pipe(v.string(), v.check((s) => !Number.isNaN(Date.parse(s)), 'Invalid date'));
export const AdminUsersQuery = v.object({
  email: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(254))),
  date_gt: v.optional(AdminDateParam),
  date_lt: v.optional(AdminDateParam),
  subscription_type: v.optional(v.picklist(PLAN_TIERS)),
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,6}$/, 'Invalid limit'), v.transform(Number), v.minValue(1), v.maxValue(1000))),
});
export const AdminUser = v.object({
  id: v.string(),
  email: v.string(),
  email_type: v.string(),
  is_active: v.boolean(),
  is_superuser: v.boolean(),
  created_date: v.string(),
  plan: v.picklist(PLAN_TIERS),
  plan_name: v.string(),
  subscription: v.nullable(Subscription),
  minutes: v.object({ total: v.number(), used: v.number() }),
});
export type AdminUser = v.InferOutput<typeof AdminUser>;

/** POST /api/users/sister_sso: where the browser goes to be signed in to the sister product. */
export const SisterSsoAnswer = v.object({ redirect_url: v.string() });
/** POST /api/payments/subscription, cancel_subscription, cancel_subscription_cancellation: the subscription after the change (null: none). */
export const SubscriptionAnswer = v.nullable(Subscription);
