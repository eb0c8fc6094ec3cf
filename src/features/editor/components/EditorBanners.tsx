// The editor's banners under the header: not enough minutes to generate, a failed save, a notice (overlapping
// segments, no room to add one), and a transcript that could not be loaded.
import { Banner } from '@shopify/polaris';
import { TEXT } from '../../../../contract/errors';
import { formatMinutes } from '../../../lib/format';

export function EditorBanners(p: {
  /** Minutes a Generate would spend and the minutes left, when they are not enough. */
  short: { cost: number; minutesLeft: number | null } | null;
  onBuyMinutes: () => void;
  saveFailed: boolean;
  onDismissSaveError: () => void;
  notice: string | null;
  onDismissNotice: () => void;
  /** Why the transcript could not be loaded (null when it is loaded or loading). */
  loadError: string | null;
  onRetryLoad: () => void;
}) {
  return (
    <>
      {p.short ? (
        <div role="status">
          <Banner tone="warning" title="Not enough minutes to generate" action={{ content: 'Buy minutes', onAction: p.onBuyMinutes }}>
            <p>{`Generating uses ${formatMinutes(p.short.cost)}; ${formatMinutes(p.short.minutesLeft ?? 0)} left. Your edits are kept.`}</p>
          </Banner>
        </div>
      ) : null}

      {p.saveFailed && (
        <div role="alert" data-testid="segment-save-error">
          <Banner tone="critical" onDismiss={p.onDismissSaveError}>
            <p>{TEXT.segmentSaveFailed}</p>
          </Banner>
        </div>
      )}
      {p.notice && (
        <Banner tone="warning" onDismiss={p.onDismissNotice}>
          <p>{p.notice}</p>
        </Banner>
      )}
      {p.loadError !== null && (
        <Banner tone="critical" action={{ content: 'Try again', onAction: p.onRetryLoad }}>
          <p>The transcript could not be loaded: {p.loadError}</p>
        </Banner>
      )}
    </>
  );
}
