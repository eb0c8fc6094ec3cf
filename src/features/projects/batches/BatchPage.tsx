// The batch page (issue 31): progress per video and language, failures with their reason and a Retry, Cancel,
// and every finished dub as one ZIP.
import { Badge, BlockStack, Button, Card, InlineStack, ProgressBar, Text } from '@shopify/polaris';
import { useState } from 'react';
import { useLocation, useParams } from 'wouter';
import { TEXT } from '../../../../contract/errors';
import type { BatchLanguage } from '../../../../contract/schemas/batch';
import { errorMessage } from '../../../lib/http';
import { PageFrame } from '../../../ui/page';
import { cancelBatch, downloadBatchZip, retryBatchItem, useBatch } from './api';

const TONE: Record<BatchLanguage['state'], 'success' | 'critical' | 'info' | 'attention' | undefined> = {
  done: 'success', ready: 'success', failed: 'critical', running: 'info', pending: undefined,
};
const STATE_LABEL: Record<BatchLanguage['state'], string> = {
  done: 'Dubbed', ready: 'Translated', failed: 'Failed', running: 'In progress', pending: 'Waiting',
};

export default function BatchPage() {
  const { spaceId, batchId } = useParams<{ spaceId: string; batchId: string }>();
  const [, navigate] = useLocation();
  const { data: b, error, mutate } = useBatch(batchId);
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const act = async (what: string, fn: () => Promise<unknown>) => {
    setBusy(what);
    setActionError(null);
    try {
      await fn();
      await mutate();
    } catch (e) {
      setActionError(errorMessage(e));
    } finally {
      setBusy(null);
    }
  };
  const back = { content: 'Translation', onAction: () => navigate(`/spaces/${spaceId}`) };
  if (error) return <PageFrame title="Batch" backAction={back}><Text as="p" tone="critical">{errorMessage(error)}</Text></PageFrame>;
  if (!b) return <PageFrame title="Batch" backAction={back}><Text as="p">Loading…</Text></PageFrame>;
  const settled = b.counts.done + b.counts.failed;
  const percent = b.counts.total > 0 ? Math.round((100 * settled) / b.counts.total) : 100;
  return (
    <PageFrame
      title={b.name}
      backAction={back}
      primaryAction={{
        content: TEXT.batchDownload, disabled: b.counts.done === 0 || busy !== null, loading: busy === 'zip',
        onAction: () => void act('zip', () => downloadBatchZip(b.id, `${b.name}.zip`)),
      }}
      secondaryActions={b.status === 'running' ? [{ content: TEXT.batchCancel, destructive: true, loading: busy === 'cancel', onAction: () => void act('cancel', () => cancelBatch(b.id)) }] : []}
    >
      <BlockStack gap="400">
        <Card>
          <BlockStack gap="200">
            <InlineStack gap="200" blockAlign="center" wrap>
              <Badge tone={b.status === 'completed' ? 'success' : b.status === 'cancelled' ? 'critical' : 'info'}>
                {b.status === 'running' ? 'Running' : b.status === 'completed' ? 'Completed' : 'Cancelled'}
              </Badge>
              <Text as="span" variant="bodySm" tone="subdued">
                {b.items.length} videos · {b.counts.done} of {b.counts.total} done · {b.counts.failed} failed{b.generate ? ' · dubbed when ready' : ''}
              </Text>
            </InlineStack>
            <ProgressBar progress={percent} size="small" ariaLabelledBy="batch-progress" />
            <span id="batch-progress" className="ds-visually-hidden" style={{ position: 'absolute', left: -9999 }}>Batch progress {percent}%</span>
            {actionError && <Text as="p" tone="critical">{actionError}</Text>}
          </BlockStack>
        </Card>
        {b.items.map((item) => {
          const failed = item.languages.some((l) => l.state === 'failed');
          return (
            <Card key={item.id}>
              <BlockStack gap="200">
                <InlineStack align="space-between" blockAlign="center" gap="200" wrap>
                  <Text as="h2" variant="headingSm" breakWord>
                    {item.position + 1}. {item.name}
                  </Text>
                  {failed && b.status !== 'cancelled' && (
                    <Button size="slim" loading={busy === item.id} onClick={() => void act(item.id, () => retryBatchItem(b.id, item.id))} accessibilityLabel={`Retry ${item.name}`}>
                      {TEXT.batchRetry}
                    </Button>
                  )}
                </InlineStack>
                {item.languages.map((l) => (
                  <BlockStack key={l.dst_lang} gap="100">
                    <InlineStack gap="200" blockAlign="center" wrap>
                      <Text as="span" fontWeight="semibold">{l.dst_lang.toUpperCase()}</Text>
                      <Badge tone={TONE[l.state]}>{STATE_LABEL[l.state]}</Badge>
                      {l.state === 'running' && <Text as="span" variant="bodySm" tone="subdued">{l.progress}%</Text>}
                      {l.project_id && (
                        <Button variant="plain" url={`/spaces/${spaceId}/project/${l.project_id}`} accessibilityLabel={`Open ${item.name} in ${l.dst_lang.toUpperCase()}`}>
                          Open
                        </Button>
                      )}
                    </InlineStack>
                    {l.error && <Text as="p" tone="critical" variant="bodySm" breakWord>{l.error}</Text>}
                  </BlockStack>
                ))}
              </BlockStack>
            </Card>
          );
        })}
      </BlockStack>
    </PageFrame>
  );
}
