// A centred spinner filling the page (settings and session loading).
import { Spinner } from '@shopify/polaris';

export function SpinnerPage({ label = 'Loading' }: { label?: string }) {
  return (
    <div className="ds-spinner-page" role="status" aria-label={label}>
      <Spinner accessibilityLabel={label} size="large" />
    </div>
  );
}
