// What a "payment required" answer opens (spec section 8), from the signed-in user's plan.
import { isActiveSubscription, userPlanTier } from '../../contract/plans';
import type { User } from '../../contract/schemas/user';

export interface PaymentContext {
  hasActiveNonEnterpriseSubscription: boolean;
  canBuyMinutes: boolean;
  hasArchivedSubscription: boolean;
  hasEnterprisePlan: boolean;
}
export type PaymentAction = 'buyMinutes' | 'unknownError' | 'pricing';

/** What a paymentRequired error opens (spec section 8). */
export function paymentRequiredAction(ctx: PaymentContext): PaymentAction {
  if (ctx.hasActiveNonEnterpriseSubscription && ctx.canBuyMinutes && ctx.hasArchivedSubscription) return 'buyMinutes';
  if (ctx.hasEnterprisePlan) return 'unknownError';
  return 'pricing';
}

/** Payment context from the user alone; billing refines it with product data. */
export function paymentContextOf(user: User | null | undefined): PaymentContext {
  const tier = userPlanTier(user);
  const active = isActiveSubscription(user?.subscription);
  const enterprise = tier === 'enterprise' || tier === 'custom';
  return {
    hasActiveNonEnterpriseSubscription: active && !enterprise,
    canBuyMinutes: active && !user?.subscription?.payments_collection_paused,
    // Without the catalogue (billing refines it with products): a plan the server names the Archive Plan.
    hasArchivedSubscription: !!user?.subscription && user.subscription.plan.name === 'Archive Plan',
    hasEnterprisePlan: enterprise,
  };
}
