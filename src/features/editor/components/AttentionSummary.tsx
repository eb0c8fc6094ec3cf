// The quality report's "needs attention" summary (issue 28): counts by severity, then each flag with its reason and
// the suggested action; a segment's flag opens the segment in the transcript, a speaker's flag names the speaker.
import { Badge, BlockStack, InlineStack, Text } from '@shopify/polaris';
import type { AttentionItem } from '../../../../contract/schemas/quality';
import { formatClock } from '../lib/time';

export function AttentionSummary({ items, onOpenSegment }: { items: readonly AttentionItem[]; onOpenSegment: (id: string) => void }) {
  const critical = items.filter((a) => a.severity === 'critical').length;
  const segments = new Set(items.map((a) => a.segment_id).filter(Boolean)).size;
  const whole = items.filter((a) => !a.segment_id).length;
  const summary =
    items.length === 0
      ? 'Nothing needs attention'
      : [segments ? `${segments} ${segments === 1 ? 'segment' : 'segments'}` : null, whole ? `${whole} voice ${whole === 1 ? 'check' : 'checks'}` : null]
          .filter(Boolean)
          .join(' and ') + ' need attention';
  return (
    <BlockStack gap="200">
      <InlineStack gap="200" blockAlign="center">
        <Badge tone={items.length === 0 ? 'success' : critical ? 'critical' : 'attention'}>{summary}</Badge>
        {critical > 0 && <Text as="span" tone="critical" variant="bodySm">{`${critical} critical`}</Text>}
      </InlineStack>
      {items.length > 0 && (
        <ul className="ed-attention-list" aria-label="What needs attention">
          {items.map((a, k) => {
            const body = (
              <>
                <span>
                  {a.segment_id && a.start !== null && a.start !== undefined && <span className="ed-quality-time">{formatClock(a.start)} </span>}
                  {a.reason}
                </span>
                <span className="ed-attention-action">{a.action}</span>
              </>
            );
            return (
              <li key={`${a.kind}-${a.segment_id ?? a.speaker ?? k}`} data-attention={a.kind} data-severity={a.severity}>
                {a.segment_id ? (
                  <button type="button" className="ed-attention-item" onClick={() => onOpenSegment(a.segment_id!)} data-quality-segment={a.segment_id}>
                    {body}
                  </button>
                ) : (
                  <div className="ed-attention-item">{body}</div>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </BlockStack>
  );
}
