// The account page's API keys (spec section 7 settings/api/credentials): create a named key (shown once, with a
// copy button), list the keys with their prefix, creation and last use, and revoke one. The plan must include the
// API (Business and above): otherwise the section says so and links to the plans.
import { Badge, Banner, BlockStack, Box, Button, Card, InlineStack, Modal, Text, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useLocation } from 'wouter';
import type { ApiCredential, CreatedApiCredential } from '../../../contract/schemas/api';
import { errorMessage } from '../../lib/http';
import { useSnackbar } from '../../ui/snackbars';
import { useToast } from '../../ui/toasts';
import { formatDateTime } from '../../lib/format';
import { apiKeysApi, useApiKeys } from './api';

function when(iso: string | null): string {
  if (!iso) return 'never';
  return formatDateTime(iso) || iso;
}

function KeyRow({ k, onRevoke }: { k: ApiCredential; onRevoke: (k: ApiCredential) => void }) {
  return (
    <Box paddingBlock="200" borderBlockStartWidth="025" borderColor="border-secondary">
      <InlineStack align="space-between" blockAlign="center" gap="300" wrap={false}>
        <BlockStack gap="100">
          <InlineStack gap="200" blockAlign="center">
            <Text as="span" fontWeight="semibold">
              {k.name}
            </Text>
            {k.revoked_at ? <Badge tone="critical">Revoked</Badge> : null}
          </InlineStack>
          <Text as="span" tone="subdued" variant="bodySm">
            <code>{k.prefix}…</code> · created {when(k.created_at)} · last used {when(k.last_used_at)}
          </Text>
        </BlockStack>
        {k.revoked_at ? null : (
          <Button tone="critical" variant="plain" onClick={() => onRevoke(k)} accessibilityLabel={`Revoke ${k.name}`}>
            Revoke
          </Button>
        )}
      </InlineStack>
    </Box>
  );
}

export function ApiKeysSection() {
  const { data, mutate } = useApiKeys();
  const [, navigate] = useLocation();
  const toast = useToast();
  const snackbar = useSnackbar();
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiCredential | null>(null);
  const [revoking, setRevoking] = useState<ApiCredential | null>(null);
  const [busy, setBusy] = useState(false);

  if (!data) return null;

  async function create() {
    if (name.trim() === '') {
      setNameError('Field is required');
      return;
    }
    setCreating(true);
    try {
      const k = await apiKeysApi.create(name.trim());
      setCreated(k);
      setName('');
      await mutate();
    } catch (e) {
      snackbar.show(errorMessage(e));
    } finally {
      setCreating(false);
    }
  }

  async function copy(key: string) {
    try {
      await navigator.clipboard.writeText(key);
      toast.show('API key copied');
    } catch {
      snackbar.show('Copy failed: select the key and copy it by hand');
    }
  }

  async function revoke() {
    if (!revoking) return;
    setBusy(true);
    try {
      await apiKeysApi.revoke(revoking.id);
      toast.show('API key revoked');
      setRevoking(null);
      await mutate();
    } catch (e) {
      snackbar.show(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Card>
      <BlockStack gap="400">
        {!data.enabled ? (
          <Banner tone="info" title="The API is included in Business and above" action={{ content: 'See plans', onAction: () => navigate('/pricing', { state: { from: '/account' } }) }}>
            <p>Keys you created stop working until your plan includes the API again. You can still revoke them here.</p>
          </Banner>
        ) : (
          <InlineStack gap="200" blockAlign="end" wrap={false}>
            <Box width="100%">
              <TextField
                label="Key name"
                placeholder="For example: Production server"
                value={name}
                onChange={(v) => {
                  setName(v);
                  setNameError(undefined);
                }}
                error={nameError}
                autoComplete="off"
                maxLength={100}
              />
            </Box>
            <Button variant="primary" loading={creating} onClick={() => void create()}>
              Create key
            </Button>
          </InlineStack>
        )}
        {created ? (
          <Banner tone="success" title={`Key "${created.name}" created`} onDismiss={() => setCreated(null)}>
            <BlockStack gap="200">
              <p>Copy it now: it is shown only once. Send it as Authorization: Bearer &lt;key&gt;.</p>
              <InlineStack gap="200" blockAlign="center" wrap={false}>
                <Box background="bg-surface-secondary" padding="200" borderRadius="200" width="100%">
                  <code data-testid="new-api-key" style={{ wordBreak: 'break-all' }}>
                    {created.key}
                  </code>
                </Box>
                <Button onClick={() => void copy(created.key)}>Copy</Button>
              </InlineStack>
            </BlockStack>
          </Banner>
        ) : null}
        {data.data.length === 0 ? (
          <Text as="p" tone="subdued">
            No API keys yet.
          </Text>
        ) : (
          <div role="list" aria-label="API keys">
            {data.data.map((k) => (
              <div role="listitem" key={k.id}>
                <KeyRow k={k} onRevoke={setRevoking} />
              </div>
            ))}
          </div>
        )}
        <Text as="p" tone="subdued" variant="bodySm">
          The API reference is at <a href="/api/docs">/api/docs</a>.
        </Text>
      </BlockStack>
      <Modal
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title={`Revoke "${revoking?.name ?? ''}"?`}
        primaryAction={{ content: 'Revoke key', destructive: true, loading: busy, onAction: () => void revoke() }}
        secondaryActions={[{ content: 'Cancel', onAction: () => setRevoking(null), disabled: busy }]}
      >
        <Modal.Section>
          <Text as="p">Programs using this key stop working at once. This cannot be undone.</Text>
        </Modal.Section>
      </Modal>
    </Card>
  );
}
