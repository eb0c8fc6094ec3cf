// The payments provider interface and its two implementations' factory:
//  - local (the default, for self-hosters): the built-in catalogue; plans and minute packs are granted by a
//    superuser from /admin, or at once by the checkout when a superuser switched on self-service ("free") checkout;
//  - stripe: the official SDK (./stripe-provider.ts): checkout sessions, billing portal, promotion codes,
//    subscription updates, customers, and signed webhooks (./webhooks.ts).
// Both end in the same subscriptions (./subscriptions.ts), the same minutes ledger (./ledger.ts) and the same
// entitlements (./entitlements.ts).
import type { Config } from '../../config';
import type { Db } from '../../db/index';
import { seedLocalCatalogue } from './catalogue';
import type { PaymentsProvider } from './provider';
import { StripeProvider } from './stripe-provider';

export class LocalProvider implements PaymentsProvider {
  readonly kind = 'local' as const;
  syncCatalogue(db: Db): Promise<void> {
    return seedLocalCatalogue(db);
  }
}

export type AnyProvider = LocalProvider | StripeProvider;

/** The provider the configuration names (PAYMENTS_PROVIDER, STRIPE_*). */
export function createPaymentsProvider(config: Config): AnyProvider {
  if (config.payments.provider === 'stripe' && config.payments.stripe) return new StripeProvider(config.payments.stripe);
  return new LocalProvider();
}
