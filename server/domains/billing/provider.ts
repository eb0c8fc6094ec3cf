// The payments provider interface (see ./payments.ts for the implementations).
import type { BillingDetails, PromotionCode } from '../../../contract/schemas/payments';
import type { Db } from '../../db/index';
import type { CatalogueEntry, ProviderKind } from './catalogue';
import type { BillingUser } from './payments-repository';

export interface CheckoutInput {
  user: BillingUser;
  customerId: string;
  mode: 'subscription' | 'payment';
  entry: CatalogueEntry;
  quantity: number;
  spaceId: string;
  successUrl: string;
  cancelUrl: string;
  promotionCodeId?: string | null;
  /** The same key for the same request: the provider returns the same session (two clicks on two servers). */
  idempotencyKey: string;
}

export interface PaymentsProvider {
  readonly kind: ProviderKind;
  /** Writes this provider's catalogue rows (payment_products, payment_prices). */
  syncCatalogue(db: Db): Promise<void>;
}

export interface PaymentsRemote extends PaymentsProvider {
  readonly kind: 'stripe';
  ensureCustomer(user: BillingUser): Promise<string>;
  createCheckoutSession(i: CheckoutInput): Promise<{ id: string; url: string }>;
  billingPortalUrl(customerId: string, returnUrl: string): Promise<string>;
  findPromotionCode(code: string): Promise<PromotionCode | null>;
  changePlan(subscriptionId: string, priceId: string): Promise<void>;
  setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean): Promise<void>;
  updateBillingDetails(customerId: string, d: BillingDetails): Promise<void>;
}

