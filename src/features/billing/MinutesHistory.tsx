// The minute history of the user's own Teamspace (GET /api/space/{id}/usage?page=): every grant, purchase, dub
// and refund from the ledger, newest first, 20 a page.
import { BlockStack, Button, InlineStack, Text } from '@shopify/polaris';
import { useState } from 'react';
import type { UsagePage } from '../../../contract/schemas/space';
import { useApiGet } from '../../lib/api/use-api-get';
import { formatDateTime, formatMinutes } from '../../lib/format';

const KIND_LABEL: Record<UsagePage['entries'][number]['kind'], string> = {
  grant: 'Included minutes',
  purchase: 'Bought minutes',
  refill: 'Plan minutes',
  debit: 'Dub',
  refund: 'Given back',
  expire: 'Expired',
};

export function MinutesHistory({ spaceId }: { spaceId: string }) {
  const [page, setPage] = useState(1);
  const usage = { params: { path: { id: spaceId }, query: { page: String(page) } } };
  const { data, error, isLoading } = useApiGet('/api/space/{id}/usage', usage, { keepPreviousData: true });
  if (error) return <Text as="p" tone="critical">{`The minute history could not be loaded: ${error.message}`}</Text>;
  if (!data) return isLoading ? <Text as="p" tone="subdued">Loading the minute history…</Text> : null;
  return (
    <BlockStack gap="200">
      <div className="ds-table-scroll">
        <table className="ds-history" aria-label="Minutes history">
          <thead>
            <tr>
              <th scope="col">Date</th>
              <th scope="col">What</th>
              <th scope="col" className="is-num">Minutes</th>
            </tr>
          </thead>
          <tbody>
            {data.entries.length === 0 ? (
              <tr>
                <td colSpan={3}>Nothing yet.</td>
              </tr>
            ) : (
              data.entries.map((e) => (
                <tr key={e.id}>
                  <td>{formatDateTime(e.created_at)}</td>
                  <td>{e.project_name ? `${KIND_LABEL[e.kind]}: ${e.project_name}` : KIND_LABEL[e.kind]}</td>
                  <td className="is-num">{`${e.minutes > 0 ? '+' : e.minutes < 0 ? '−' : ''}${formatMinutes(Math.abs(e.minutes), { short: true })}`}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      {data.pages > 1 ? (
        <InlineStack align="space-between" blockAlign="center">
          <Button onClick={() => setPage((p) => Math.max(1, p - 1))} disabled={page <= 1}>
            Newer
          </Button>
          <Text as="span" tone="subdued" variant="bodySm">{`Page ${data.page} of ${data.pages}`}</Text>
          <Button onClick={() => setPage((p) => Math.min(data.pages, p + 1))} disabled={page >= data.pages}>
            Older
          </Button>
        </InlineStack>
      ) : null}
    </BlockStack>
  );
}
