import { Banner } from '@shopify/polaris';
import { L } from '../texts';

/**
 * Shown instead of "Create Teamspace" when the plan cannot create one: free, trial, starter and creator
 * plans get the upgrade offer; plans at their Teamspace limit get the Enterprise offer.
 */
export function UpgradeBanner(props: { reason: 'plan' | 'limit'; onUpgrade(): void }) {
  const plan = props.reason === 'plan';
  return (
    <Banner
      title={plan ? L.upgradeTitle : L.moreSpacesTitle}
      tone="info"
      action={{ content: L.upgrade, onAction: props.onUpgrade }}
    >
      {plan ? L.upgradeText : L.moreSpacesText}
    </Banner>
  );
}
