// Support inbox (superusers): every user's conversation, open ones (waiting for staff) first by default; open one
// to read it with the page and project the user attached, and answer. The user sees the answer in the widget
// and by e-mail when SMTP is configured.
import { Badge, Banner, BlockStack, Button, Card, EmptyState, InlineGrid, InlineStack, Select, Text, TextField } from '@shopify/polaris';
import { formatDateTime } from '../../lib/format';
import { useState } from 'react';
import { useSWRConfig } from 'swr';
import { ADMIN_LIST_LIMIT } from '../../../contract/constants';
import { call, clientWith } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';
import { errorMessage } from '../../lib/http';
import { EMPTY_ILLUSTRATION } from '../../ui/illustrations';
import { useToast } from '../../ui/toasts';

const INBOX_POLL_MS = 5000;
const stamp = (iso: string) => formatDateTime(iso);

function ThreadView({ id }: { id: string }) {
  const thread = { params: { path: { id } } };
  const key = apiKey('/api/admin/support/threads/{id}', thread);
  const { data, error } = useApiGet('/api/admin/support/threads/{id}', thread, { refreshInterval: INBOX_POLL_MS });
  const { mutate } = useSWRConfig();
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [sendError, setSendError] = useState<string | null>(null);
  const toast = useToast();
  async function reply() {
    const body = text.trim();
    if (!body || sending) return;
    setSending(true);
    setSendError(null);
    try {
      const r = await call(clientWith({ spaceId: false }).POST('/api/admin/support/threads/{id}/messages', { params: { path: { id } }, body: { body } }));
      setText('');
      await mutate(key, r, { revalidate: false });
      await mutate((k) => typeof k === 'string' && k.startsWith('/api/admin/support/threads?'));
      toast.show(r.emailed ? 'Answer sent and e-mailed' : 'Answer sent');
    } catch (e) {
      setSendError(errorMessage(e));
    } finally {
      setSending(false);
    }
  }
  if (error) return <Banner tone="critical">{error.message}</Banner>;
  if (!data?.thread) return null;
  return (
    <Card>
      <BlockStack gap="300">
        <Text as="h2" variant="headingMd">
          {data.thread.user_email}
        </Text>
        <div className="ds-inbox__messages" data-testid="inbox-messages">
          {data.messages.map((m) => (
            <div key={m.id} className={`ds-inbox__msg ${m.from_staff ? 'is-staff' : 'is-user'}`}>
              <Text as="p" variant="bodySm" tone="subdued">
                {m.from_staff ? `Support (${m.author_email ?? 'staff'})` : m.author_email} · {stamp(m.created_at)}
              </Text>
              <Text as="p">{m.body}</Text>
              {m.page || m.project_name ? (
                <Text as="p" variant="bodySm" tone="subdued">
                  {m.page ? `Page: ${m.page}` : ''}
                  {m.project_name ? ` · Project: ${m.project_name}` : ''}
                </Text>
              ) : null}
            </div>
          ))}
        </div>
        <TextField label="Answer" multiline={4} autoComplete="off" value={text} onChange={setText} disabled={sending} error={sendError ?? undefined} maxLength={5000} />
        <InlineStack align="end">
          <Button variant="primary" onClick={() => void reply()} loading={sending} disabled={!text.trim()}>
            Send answer
          </Button>
        </InlineStack>
      </BlockStack>
    </Card>
  );
}

export function SupportInbox() {
  const [status, setStatus] = useState<'' | 'open' | 'answered'>('open');
  const [email, setEmail] = useState('');
  const [limit, setLimit] = useState(ADMIN_LIST_LIMIT);
  const [selected, setSelected] = useState<string | null>(null);
  const q = new URLSearchParams();
  if (status) q.set('status', status);
  if (email.trim()) q.set('email', email.trim());
  q.set('limit', String(limit));
  const { data, error } = useApiGet('/api/admin/support/threads', { params: { query: Object.fromEntries(q) } }, { refreshInterval: INBOX_POLL_MS, keepPreviousData: true });
  const threads = data ?? [];
  return (
    <BlockStack gap="400">
      <Card>
        <InlineGrid columns={{ xs: 1, md: 2 }} gap="300">
          <TextField label="Email" value={email} onChange={setEmail} autoComplete="off" clearButton onClearButtonClick={() => setEmail('')} />
          <Select
            label="Conversations"
            value={status}
            onChange={(v) => setStatus(v as typeof status)}
            options={[
              { label: 'Waiting for an answer', value: 'open' },
              { label: 'Answered', value: 'answered' },
              { label: 'All', value: '' },
            ]}
          />
        </InlineGrid>
      </Card>
      {error ? <Banner tone="critical">{error.message}</Banner> : null}
      <InlineGrid columns={{ xs: 1, md: ['oneThird', 'twoThirds'] }} gap="400">
        <Card padding="0">
          {threads.length === 0 ? (
            <EmptyState heading="No conversations" image={EMPTY_ILLUSTRATION}>
              <Text as="p">Messages users write from the support chat appear here.</Text>
            </EmptyState>
          ) : (
            <ul className="ds-inbox__threads" aria-label="Conversations">
              {threads.map((t) => (
                <li key={t.id}>
                  <button type="button" className={`ds-inbox__thread${selected === t.id ? ' is-selected' : ''}`} onClick={() => setSelected(t.id)}>
                    <InlineStack align="space-between" blockAlign="center" wrap={false}>
                      <Text as="span" variant="bodyMd" fontWeight="semibold" truncate>
                        {t.user_email}
                      </Text>
                      {t.unread > 0 ? <Badge tone="attention">{`${t.unread} new`}</Badge> : <Badge>{t.status === 'open' ? 'Open' : 'Answered'}</Badge>}
                    </InlineStack>
                    <Text as="span" variant="bodySm" tone="subdued" truncate>
                      {t.last_message ?? ''}
                    </Text>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </Card>
        {selected ? <ThreadView id={selected} /> : null}
      </InlineGrid>
      <InlineStack>
        <Button disabled={threads.length < limit} onClick={() => setLimit(limit + ADMIN_LIST_LIMIT)}>
          Show more
        </Button>
      </InlineStack>
    </BlockStack>
  );
}
