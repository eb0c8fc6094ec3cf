// The billing modals of the signed-in app: Buy additional minutes (opened by a 402 for a subscriber who can buy
// minutes, or by a button) and the upgrade modal of a feature (a 403 feature refusal, a locked item). Subscribers'
// products are loaded ahead, so a "payment required" answer knows whether their plan is archived.
import { useCurrentUser } from '../../lib/api/use-current-user';
import { useProducts } from './api';
import { BuyMinutesModal } from './BuyMinutesModal';
import { GetMoreMinutesModal } from './GetMoreMinutesModal';
import { UpgradeModal } from './UpgradeModal';

export function BillingHost() {
  const { data: user } = useCurrentUser();
  useProducts(!!user?.subscription);
  return (
    <>
      <BuyMinutesModal />
      <GetMoreMinutesModal />
      <UpgradeModal />
    </>
  );
}
