// Billing through the platform (issue 32 part 5): in the embedded build, a shop Teamspace buys its plan with the
// platform's app subscription (the merchant approves it on the platform's page, opened with navigateExternal) and
// extra minutes as usage charges within the subscription's cap. The standalone build never shows this.
import { Badge, Banner, BlockStack, Button, Card, InlineGrid, InlineStack, List, Modal, Text, TextField } from '@shopify/polaris';
import { useAtomValue } from 'jotai';
import { useEffect, useRef, useState } from 'react';
import useSWR, { useSWRConfig } from 'swr';
import { BUY_MINUTES_MAX } from '../../../contract/constants';
import type { ShopBillingStatus, ShopMinutesResponse, ShopSubscribeResponse } from '../../../contract/schemas/shop-billing';
import { SHOP_SOLD_TIERS } from '../../../contract/schemas/shop-billing';
import { getAuthProvider } from '../../lib/auth/active';
import { isEmbeddedProvider } from '../../lib/auth/types';
import { CURRENT_USER_KEY, useCurrentUser } from '../../lib/api/use-current-user';
import { creditsKey } from '../../lib/api/use-credits';
import { firstSpace, SPACE_LIST_KEY, useSpaces } from '../../lib/api/use-spaces';
import { formatNumber } from '../../lib/format';
import { call, clientWith } from '../../lib/api/client';
import { errorMessage, isApiError } from '../../lib/http';
import { currentSpaceIdAtom } from '../../lib/state';
import { PageFrame } from '../../ui/page';
import { leaveApp } from './leave';
import { planCards } from './plans';

const money = (n: number, currency: string) => new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(n);

// space_id is sent as the query of each call (the shop's Teamspace), never added from the current space.
const quiet = () => clientWith({ spaceId: false, effects: false });
const inSpace = (spaceId: string) => ({ params: { query: { space_id: spaceId } } });

function fetchStatus(spaceId: string): Promise<ShopBillingStatus> {
  return call(quiet().GET('/api/shop/billing/status', inSpace(spaceId)));
}
function syncStatus(spaceId: string): Promise<ShopBillingStatus> {
  return call(quiet().POST('/api/shop/billing/sync', inSpace(spaceId)));
}
type SoldTier = (typeof SHOP_SOLD_TIERS)[number];
function subscribe(spaceId: string, tier: SoldTier): Promise<ShopSubscribeResponse> {
  return call(clientWith({ spaceId: false }).POST('/api/shop/billing/subscribe', { ...inSpace(spaceId), body: { tier } }));
}
function buyMinutes(spaceId: string, body: { quantity: number; request_id: string }): Promise<ShopMinutesResponse> {
  return call(quiet().POST('/api/shop/billing/minutes', { ...inSpace(spaceId), body }));
}

/**
 * The platform's billing of the current space, in the embedded build only: null in the standalone build, while it
 * loads, or when the server has no platform billing (the checkout stays).
 */
export function useShopBilling(): { status: ShopBillingStatus | null; spaceId: string | null; loading: boolean } {
  const embedded = isEmbeddedProvider(getAuthProvider());
  const { data: spaces } = useSpaces(embedded);
  const current = useAtomValue(currentSpaceIdAtom);
  const spaceId = current ?? firstSpace(spaces)?.id ?? null;
  const { data, isLoading } = useSWR(embedded && spaceId ? ['shop-billing', spaceId] : null, ([, id]: [string, string]) => fetchStatus(id), {
    revalidateOnFocus: false,
    shouldRetryOnError: false,
  });
  return { status: data?.shop ? data : null, spaceId, loading: embedded && (isLoading || (!spaces && !current)) };
}

/** The plans page of a shop Teamspace. */
export function ShopPricing({ status, spaceId, onBack }: { status: ShopBillingStatus; spaceId: string; onBack?: () => void }) {
  const { data: user } = useCurrentUser();
  const { data: spaces } = useSpaces();
  const { mutate } = useSWRConfig();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [buying, setBuying] = useState(false);
  const space = spaces?.find((s) => s.id === spaceId);
  const owner = !!space && !!user && space.owner_id === user.id;
  const cards = new Map(planCards().map((c) => [c.tier as string, c]));
  const current = status.subscription;

  // Back from the platform's confirmation page: ask the platform now rather than wait for its webhook.
  const synced = useRef(false);
  useEffect(() => {
    if (synced.current) return;
    synced.current = true;
    void syncStatus(spaceId)
      .then((s) => mutate(['shop-billing', spaceId], s, { revalidate: false }))
      .then(() => Promise.all([mutate(CURRENT_USER_KEY), mutate(SPACE_LIST_KEY), mutate(creditsKey(spaceId))]))
      .catch(() => undefined);
  }, [spaceId, mutate]);

  async function choose(tier: SoldTier) {
    setBusy(tier);
    setError(null);
    try {
      const r = await subscribe(spaceId, tier);
      leaveApp(r.confirmation_url);
    } catch (e) {
      setError(errorMessage(e));
      setBusy(null);
    }
  }

  return (
    <PageFrame title="Plans" subtitle="Billed by your store's platform every 30 days, with your other app charges." backAction={onBack ? { content: 'Back', onAction: onBack } : undefined} fullWidth>
      <BlockStack gap="400">
        {!owner ? <Banner tone="info">Only the owner of this Teamspace can change its plan or buy minutes.</Banner> : null}
        {error ? <Banner tone="critical">{error}</Banner> : null}
        <InlineGrid columns={{ xs: 1, sm: 2, md: 4 }} gap="400">
          {SHOP_SOLD_TIERS.map((tier) => {
            const card = cards.get(tier);
            const price = status.prices[tier];
            const isCurrent = current?.tier === tier;
            return (
              <Card key={tier}>
                <BlockStack gap="300">
                  <InlineStack align="space-between" blockAlign="center">
                    <Text as="h3" variant="headingMd">{card?.name ?? tier}</Text>
                    {isCurrent ? <Badge tone="success">Current plan</Badge> : null}
                  </InlineStack>
                  <Text as="p" variant="headingLg">{price !== undefined ? `${money(price, status.currency)} / 30 days` : 'Not sold here'}</Text>
                  <Text as="p">{`${formatNumber(card?.monthlyMinutes ?? 0)} minutes a month`}</Text>
                  {card ? (
                    <List>
                      <List.Item>{card.teamspaceMembers}</List.Item>
                      <List.Item>{card.voiceClones}</List.Item>
                      {card.features.slice(0, 4).map((f) => <List.Item key={f}>{f}</List.Item>)}
                    </List>
                  ) : null}
                  <Button
                    variant="primary"
                    disabled={!owner || isCurrent || price === undefined || (busy !== null && busy !== tier)}
                    loading={busy === tier}
                    onClick={() => void choose(tier)}
                  >
                    {isCurrent ? 'Current plan' : 'Choose'}
                  </Button>
                </BlockStack>
              </Card>
            );
          })}
        </InlineGrid>
        <Card>
          <BlockStack gap="200">
            <Text as="h3" variant="headingMd">Extra minutes</Text>
            <Text as="p">
              {`${money(status.minute_price, status.currency)} a minute, charged with your plan, up to ${money(current?.capped_amount ?? status.capped_amount, status.currency)} every 30 days.`}
            </Text>
            <InlineStack>
              <Button disabled={!owner || !current} onClick={() => setBuying(true)}>Buy minutes</Button>
            </InlineStack>
            {!current ? <Text as="p" tone="subdued">Choose a plan first.</Text> : null}
          </BlockStack>
        </Card>
      </BlockStack>
      {buying ? <ShopBuyMinutesDialog status={status} spaceId={spaceId} onClose={() => setBuying(false)} /> : null}
    </PageFrame>
  );
}

/** Extra minutes for a shop Teamspace: one usage charge within the cap; past the cap, the link to raise it. */
export function ShopBuyMinutesDialog({ status, spaceId, onClose }: { status: ShopBillingStatus; spaceId: string; onClose(): void }) {
  const { mutate } = useSWRConfig();
  const [text, setText] = useState('30');
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<{ text: string; raiseUrl: string | null } | null>(null);
  const [done, setDone] = useState<string | null>(null);
  // One id per purchase: a retry of the same purchase is charged once.
  const requestId = useRef(crypto.randomUUID());
  const minutes = Math.min(BUY_MINUTES_MAX, Number(text.replace(/\D+/g, '')) || 0);
  const total = Math.round(minutes * status.minute_price * 100) / 100;

  async function buy() {
    if (minutes <= 0 || loading) return;
    setLoading(true);
    setError(null);
    try {
      const r = await buyMinutes(spaceId, { quantity: minutes, request_id: requestId.current });
      requestId.current = crypto.randomUUID();
      setDone(`${formatNumber(r.minutes)} minutes added for ${money(r.amount, r.currency)}`);
      // The balance in the header and on the pages (the space's credits, and the space list).
      await Promise.all([mutate(CURRENT_USER_KEY), mutate(SPACE_LIST_KEY), mutate(creditsKey(spaceId))]);
    } catch (e) {
      const body = isApiError(e) && e.body && typeof e.body === 'object' ? (e.body as { raise_cap_url?: unknown }) : null;
      setError({ text: errorMessage(e), raiseUrl: typeof body?.raise_cap_url === 'string' ? body.raise_cap_url : null });
    } finally {
      setLoading(false);
    }
  }

  // The platform's page to approve a higher cap (App Bridge redirect); a refused redirect is said in the dialog.
  function raise(url: string) {
    try {
      leaveApp(url);
    } catch (e) {
      setError({ text: errorMessage(e), raiseUrl: null });
    }
  }

  return (
    <Modal
      open
      onClose={onClose}
      title="Buy additional minutes"
      primaryAction={{ content: `Buy for ${money(total, status.currency)}`, onAction: () => void buy(), disabled: minutes <= 0, loading }}
      secondaryActions={[{ content: 'Close', onAction: onClose }]}
    >
      <Modal.Section>
        <BlockStack gap="300">
          <TextField
            label="Minutes"
            type="text"
            inputMode="numeric"
            autoComplete="off"
            value={text}
            onChange={(v) => setText(v.replace(/\D+/g, ''))}
            helpText={`${money(status.minute_price, status.currency)} a minute, charged by the platform with your plan`}
          />
          {done ? <Banner tone="success">{done}</Banner> : null}
          {error ? (
            <Banner
              tone="critical"
              action={error.raiseUrl ? { content: 'Raise the spending limit', onAction: () => raise(error.raiseUrl!) } : undefined}
            >
              {error.text}
            </Banner>
          ) : null}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
