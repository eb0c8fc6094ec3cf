// The support chat widget (spec section 2): a launcher at the bottom right that opens a panel, 408 x 638 px on
// wide screens (full width on narrow ones). The user writes to support with the page and project attached and
// reads staff answers here; an unread answer shows a badge on the launcher.
import { Badge, Button, Icon, InlineStack, Spinner, Text, TextField } from '@shopify/polaris';
import { ChatIcon, XIcon } from '@shopify/polaris-icons';
import { useEffect, useRef, useState } from 'react';
import { useSWRConfig } from 'swr';
import { useLocation } from 'wouter';
import { SUPPORT_CHAT_SIZE } from '../../../contract/constants';
import { errorMessage } from '../../lib/http';
import { formatDateTime } from '../../lib/format';
import { SUPPORT_THREAD_KEY, sendSupportMessage, useSupportThread } from './api';
import './support.css';

function time(iso: string): string {
  return formatDateTime(iso);
}

export function SupportWidget({ supportEmail }: { supportEmail: string }) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [location] = useLocation();
  const { data } = useSupportThread(open);
  const { mutate } = useSWRConfig();
  const listRef = useRef<HTMLDivElement>(null);
  const messages = data?.messages ?? [];
  const unread = open ? 0 : (data?.thread?.unread ?? 0);

  useEffect(() => {
    const el = listRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [messages.length, open]);

  async function send() {
    const body = text.trim();
    if (!body || sending) return;
    setSending(true);
    setError(null);
    try {
      const conv = await sendSupportMessage(body, location);
      setText('');
      await mutate(`${SUPPORT_THREAD_KEY}?read=1`, conv, { revalidate: false });
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setSending(false);
    }
  }

  return (
    <div className="ds-support">
      {open ? (
        <section
          className="ds-support__panel"
          role="dialog"
          aria-label="Support chat"
          style={{ ['--ds-support-w' as string]: `${SUPPORT_CHAT_SIZE.width}px`, ['--ds-support-h' as string]: `${SUPPORT_CHAT_SIZE.height}px` }}
        >
          <header className="ds-support__head">
            <Text as="h2" variant="headingMd">
              Support
            </Text>
            <button type="button" className="ds-support__close" aria-label="Close support chat" onClick={() => setOpen(false)}>
              <Icon source={XIcon} />
            </button>
          </header>
          <div className="ds-support__list" ref={listRef} aria-live="polite" data-testid="support-messages">
            {!data ? (
              <InlineStack align="center">
                <Spinner size="small" accessibilityLabel="Loading messages" />
              </InlineStack>
            ) : messages.length === 0 ? (
              <Text as="p" tone="subdued">
                Ask us anything about your videos, plans or the editor. We answer here and by e-mail. The page you are on
                is attached to your message.
              </Text>
            ) : (
              messages.map((m) => (
                <div key={m.id} className={`ds-support__msg ${m.from_staff ? 'is-staff' : 'is-user'}`} data-from={m.from_staff ? 'staff' : 'user'}>
                  <Text as="p" variant="bodySm" tone="subdued">
                    {m.from_staff ? 'Support' : 'You'} · {time(m.created_at)}
                    {m.project_name ? ` · ${m.project_name}` : ''}
                  </Text>
                  <Text as="p">{m.body}</Text>
                </div>
              ))
            )}
          </div>
          <div className="ds-support__compose">
            <TextField
              label="Your message"
              labelHidden
              placeholder="Write to support"
              multiline={3}
              maxLength={5000}
              autoComplete="off"
              value={text}
              onChange={setText}
              disabled={sending}
              error={error ?? undefined}
            />
            <InlineStack align="space-between" blockAlign="center">
              {supportEmail ? (
                <a href={`mailto:${supportEmail}`} className="ds-support__mail">
                  {supportEmail}
                </a>
              ) : (
                <span />
              )}
              <Button variant="primary" onClick={() => void send()} loading={sending} disabled={!text.trim()}>
                Send
              </Button>
            </InlineStack>
          </div>
        </section>
      ) : null}
      <button
        type="button"
        className="ds-support__launcher"
        aria-label={open ? 'Close support chat' : 'Open support chat'}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <Icon source={open ? XIcon : ChatIcon} />
        {unread > 0 ? (
          <span className="ds-support__badge">
            <Badge tone="critical">{`${unread} new`}</Badge>
          </span>
        ) : null}
      </button>
    </div>
  );
}
