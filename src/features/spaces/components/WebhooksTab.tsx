// The Teamspace dialog's Webhooks tab (owner): add an endpoint (URL + events; the signing secret shown once),
// list endpoints with their state, enable one disabled after repeated failures, delete one, and see the
// latest deliveries with each attempt's status and latency.
import { Badge, Banner, BlockStack, Box, Button, Checkbox, InlineStack, Text, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { WEBHOOK_EVENT_LABELS, WEBHOOK_EVENTS, type WebhookEndpoint, type WebhookEndpointWithSecret, type WebhookEvent } from '../../../../contract/schemas/api';
import { errorMessage } from '../../../lib/http';
import { useDeliveries, useWebhooks, webhooksApi } from '../webhooks-api';

function Deliveries({ spaceId, id }: { spaceId: string; id: string }) {
  const { data } = useDeliveries(spaceId, id);
  if (!data) return null;
  if (data.data.length === 0) return <Text as="p" tone="subdued" variant="bodySm">No deliveries yet.</Text>;
  return (
    <ul aria-label="Deliveries" style={{ margin: 0, paddingLeft: '1rem' }}>
      {data.data.slice(0, 10).map((d) => {
        const last = d.attempts[d.attempts.length - 1];
        return (
          <li key={d.id}>
            <Text as="span" variant="bodySm">
              {WEBHOOK_EVENT_LABELS[d.event_type]}: {d.state}
              {last ? ` · ${d.attempts.length} attempt${d.attempts.length === 1 ? '' : 's'}, last ${last.status_code ?? 'no answer'} in ${last.latency_ms} ms` : ''}
              {last?.error ? ` (${last.error})` : ''}
            </Text>
          </li>
        );
      })}
    </ul>
  );
}

function EndpointRow({ spaceId, e, onChanged }: { spaceId: string; e: WebhookEndpoint; onChanged(): void }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setErr(null);
    try {
      await fn();
      onChanged();
    } catch (x) {
      setErr(errorMessage(x));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Box paddingBlock="200" borderBlockStartWidth="025" borderColor="border-secondary">
      <BlockStack gap="100">
        <InlineStack align="space-between" blockAlign="center" gap="200" wrap={false}>
          <Text as="span" fontWeight="semibold" breakWord>
            {e.url}
          </Text>
          {e.enabled ? <Badge tone="success">Enabled</Badge> : <Badge tone="critical">Disabled</Badge>}
        </InlineStack>
        <Text as="span" tone="subdued" variant="bodySm">
          {e.events.map((x) => WEBHOOK_EVENT_LABELS[x]).join(', ')}
        </Text>
        {e.disabled_reason ? <Text as="p" tone="critical" variant="bodySm">{e.disabled_reason}</Text> : null}
        {err ? <Text as="p" tone="critical" variant="bodySm">{err}</Text> : null}
        <InlineStack gap="300">
          {!e.enabled ? (
            <Button variant="plain" loading={busy} onClick={() => void run(() => webhooksApi.update(spaceId, e.id, { enabled: true }))}>
              Enable again
            </Button>
          ) : null}
          <Button variant="plain" onClick={() => setOpen(!open)} ariaExpanded={open}>
            {open ? 'Hide deliveries' : 'Deliveries'}
          </Button>
          <Button variant="plain" tone="critical" disabled={busy} onClick={() => void run(() => webhooksApi.remove(spaceId, e.id))} accessibilityLabel={`Delete ${e.url}`}>
            Delete
          </Button>
        </InlineStack>
        {open ? <Deliveries spaceId={spaceId} id={e.id} /> : null}
      </BlockStack>
    </Box>
  );
}

export function WebhooksTab({ spaceId }: { spaceId: string }) {
  const { data, error, mutate } = useWebhooks(spaceId);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>(['transcript.ready', 'dub.ready', 'job.failed']);
  const [adding, setAdding] = useState(false);
  const [formError, setFormError] = useState<string | null>(null);
  const [created, setCreated] = useState<WebhookEndpointWithSecret | null>(null);

  const add = async () => {
    if (url.trim() === '') return setFormError('Field is required');
    if (events.length === 0) return setFormError('Choose at least one event');
    setAdding(true);
    setFormError(null);
    try {
      setCreated(await webhooksApi.create(spaceId, { url: url.trim(), events }));
      setUrl('');
      await mutate();
    } catch (e) {
      setFormError(errorMessage(e));
    } finally {
      setAdding(false);
    }
  };

  if (error) return <Banner tone="critical">{errorMessage(error)}</Banner>;
  return (
    <BlockStack gap="300">
      <Text as="p" tone="subdued">
        We POST signed events (Standard Webhooks) to these URLs when the Teamspace's projects change.
      </Text>
      <TextField label="Endpoint URL" placeholder="https://example.com/webhooks/dubbing" value={url} onChange={setUrl} autoComplete="off" error={formError ?? undefined} />
      <InlineStack gap="300">
        {WEBHOOK_EVENTS.map((ev) => (
          <Checkbox
            key={ev}
            label={WEBHOOK_EVENT_LABELS[ev]}
            checked={events.includes(ev)}
            onChange={(on) => setEvents(on ? [...events, ev] : events.filter((x) => x !== ev))}
          />
        ))}
      </InlineStack>
      <InlineStack>
        <Button onClick={() => void add()} loading={adding}>
          Add endpoint
        </Button>
      </InlineStack>
      {created ? (
        <Banner tone="success" title="Endpoint added" onDismiss={() => setCreated(null)}>
          <p>
            Its signing secret (shown here once; verify the webhook-signature header with it):{' '}
            <code data-testid="webhook-secret" style={{ wordBreak: 'break-all' }}>{created.secret}</code>
          </p>
        </Banner>
      ) : null}
      <div role="list" aria-label="Webhook endpoints">
        {(data?.data ?? []).map((e) => (
          <div role="listitem" key={e.id}>
            <EndpointRow spaceId={spaceId} e={e} onChanged={() => void mutate()} />
          </div>
        ))}
      </div>
    </BlockStack>
  );
}
