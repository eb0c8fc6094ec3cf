// The account page's plan and billing (spec sections 2, 3, 9): the plan name by the planName rule, its state, next
// billing, Manage subscription (the Billing Portal; on a local server the self-service cancel/undo or the
// administrator), billing details, the latest payment (items ending in the period, with quantities), buy minutes.
import { Badge, Banner, BlockStack, Button, Card, InlineStack, Text } from '@shopify/polaris';
import { useState } from 'react';
import { useSWRConfig } from 'swr';
import { useLocation } from 'wouter';
import { PLAN_CHANGE_RELOAD_MS } from '../../../contract/constants';
import { CURRENT_USER_KEY, useCurrentUser } from '../../lib/api/use-current-user';
import { errorMessage } from '../../lib/http';
import { page } from '../../lib/page';
import { useSnackbar } from '../../ui/snackbars';
import { useSpaces as useSpaceList } from '../../lib/api/use-spaces';
import { billingPortal, cancelSubscription, undoCancellation, useLatestPayment, useProducts } from './api';
import { BuyMinutesDialog } from './BuyMinutesModal';
import { MinutesHistory } from './MinutesHistory';
import { formatMinutes, formatNumber } from '../../lib/format';
import { useSetAtom } from 'jotai';
import { getMoreMinutesAtom } from '../../lib/state';
import { leaveApp } from './leave';
import { balanceFlags, formatDay, formatMoney, nextBilling, paymentIssueText, planName, portalPath } from './rules';

function stateBadge(status: string, cancel: boolean, paused: boolean, ended: boolean) {
  if (paused || status === 'paused') return <Badge tone="attention">Paused</Badge>;
  if (status === 'past_due' || status === 'unpaid') return <Badge tone="critical">Payment due</Badge>;
  if (status === 'canceled' || ended) return <Badge>Ended</Badge>;
  if (cancel) return <Badge tone="warning">Cancels at period end</Badge>;
  return <Badge tone="success">Active</Badge>;
}

export function SubscriptionSection() {
  const { data: user } = useCurrentUser();
  const { data: products } = useProducts();
  const { data: latest } = useLatestPayment();
  const { data: spaces } = useSpaceList();
  const { mutate } = useSWRConfig();
  const [, navigate] = useLocation();
  const snackbar = useSnackbar();
  const [busy, setBusy] = useState<string | null>(null);
  const [buying, setBuying] = useState(false);
  const setMore = useSetAtom(getMoreMinutesAtom);
  if (!user) return null;
  const sub = user.subscription;
  const flags = balanceFlags(user, products);
  const name = planName(user, products);
  const next = nextBilling(user);
  const ended = !!sub?.current_period_end && Date.parse(sub.current_period_end) <= Date.now();
  const stripe = sub?.provider === 'stripe' || products?.checkout === 'stripe';
  const issue = paymentIssueText(sub?.payment_issue);
  const own = spaces?.find((s) => s.is_default && s.owner_id === user.id);
  const left = own ? Math.max(0, own.credits.minutes.total - own.credits.minutes.used) : null;

  async function portal(kind: 'portal' | 'billing_details') {
    setBusy(kind);
    try {
      const r = await billingPortal(window.location.href);
      leaveApp(portalPath(r.billing_portal_url, { kind }));
    } catch (e) {
      snackbar.show(errorMessage(e));
      setBusy(null);
    }
  }
  async function setCancel(cancel: boolean) {
    setBusy(cancel ? 'cancel' : 'undo');
    try {
      const s = await (cancel ? cancelSubscription() : undoCancellation());
      await mutate(CURRENT_USER_KEY, { ...user!, subscription: s }, { revalidate: false });
      setTimeout(() => page.reload(), PLAN_CHANGE_RELOAD_MS);
    } catch (e) {
      snackbar.show(errorMessage(e));
    } finally {
      setBusy(null);
    }
  }

  return (
    <Card>
      <BlockStack gap="300">
        <InlineStack align="space-between" blockAlign="center">
          <Text as="span" tone="subdued">
            Plan
          </Text>
          <InlineStack gap="200" blockAlign="center">
            <Text as="span" fontWeight="semibold">
              {name}
            </Text>
            {sub ? stateBadge(sub.status, sub.cancel_at_period_end, sub.payments_collection_paused, ended) : <Badge tone="info">Trial</Badge>}
          </InlineStack>
        </InlineStack>
        {sub ? (
          <InlineStack align="space-between">
            <Text as="span" tone="subdued">
              Billing
            </Text>
            <Text as="span">{sub.plan.interval === 'year' ? 'Annually' : 'Monthly'}</Text>
          </InlineStack>
        ) : null}
        {left !== null ? (
          <InlineStack align="space-between">
            <Text as="span" tone="subdued">
              Minutes
            </Text>
            <BlockStack gap="050" inlineAlign="end">
              <span data-testid="account-minutes">
                <Text as="span" fontWeight="semibold">{`${formatMinutes(left)} left`}</Text>
              </span>
              <Text as="span" tone="subdued" variant="bodySm">{`${formatMinutes(own!.credits.minutes.used)} used of ${formatMinutes(own!.credits.minutes.total)} received`}</Text>
            </BlockStack>
          </InlineStack>
        ) : null}
        {next && !ended ? (
          <InlineStack align="space-between">
            <Text as="span" tone="subdued">
              {sub?.cancel_at_period_end ? 'Plan ends on' : 'Next billing'}
            </Text>
            <Text as="span">{formatDay(next)}</Text>
          </InlineStack>
        ) : null}
        {latest && latest.items.length > 0 ? (
          <InlineStack align="space-between" blockAlign="start">
            <Text as="span" tone="subdued">
              Latest payment
            </Text>
            <div data-testid="latest-payment">
            <BlockStack gap="050" inlineAlign="end">
              {latest.items.map((i, k) => (
                <Text as="span" key={k}>{`${i.item_name} × ${formatNumber(i.quantity)}`}</Text>
              ))}
              {latest.amount != null && latest.currency ? (
                <Text as="span" tone="subdued" variant="bodySm">
                  {`${formatMoney(latest.amount / 100, latest.currency)}${latest.created_date ? ` on ${formatDay(new Date(latest.created_date))}` : ''}`}
                </Text>
              ) : latest.created_date ? (
                <Text as="span" tone="subdued" variant="bodySm">{formatDay(new Date(latest.created_date))}</Text>
              ) : null}
            </BlockStack>
            </div>
          </InlineStack>
        ) : null}
        {issue ? (
          <Banner tone="critical" action={stripe ? { content: 'Update payment method', onAction: () => void portal('portal') } : undefined}>
            {issue}
          </Banner>
        ) : null}
        {!stripe && sub && products?.checkout === 'admin' ? (
          <Text as="p" tone="subdued">
            Your plan is managed by the administrator of this server.
          </Text>
        ) : null}
        <InlineStack gap="200" align="end">
          {flags.canBuyMinutes ? <Button onClick={() => setBuying(true)}>Buy minutes</Button> : null}
          {products?.checkout === 'admin' ? <Button onClick={() => setMore(true)}>Ask my administrator</Button> : null}
          <Button onClick={() => navigate('/pricing', { state: { from: '/account' } })}>{sub ? 'Change plan' : 'Upgrade'}</Button>
          {stripe && user.customer_id ? (
            <>
              <Button onClick={() => void portal('billing_details')} loading={busy === 'billing_details'}>
                Billing details
              </Button>
              <Button variant="primary" onClick={() => void portal('portal')} loading={busy === 'portal'}>
                Manage subscription
              </Button>
            </>
          ) : null}
          {!stripe && sub && products?.checkout === 'free' && !ended ? (
            sub.cancel_at_period_end ? (
              <Button variant="primary" onClick={() => void setCancel(false)} loading={busy === 'undo'}>
                Keep my plan
              </Button>
            ) : (
              <Button tone="critical" onClick={() => void setCancel(true)} loading={busy === 'cancel'}>
                Cancel at period end
              </Button>
            )
          ) : null}
          {stripe && sub?.cancel_at_period_end && !ended ? (
            <Button onClick={() => void setCancel(false)} loading={busy === 'undo'}>
              Keep my plan
            </Button>
          ) : null}
        </InlineStack>
        {own ? (
          <BlockStack gap="200">
            <Text as="h3" variant="headingSm">
              Minutes history
            </Text>
            <MinutesHistory spaceId={own.id} />
          </BlockStack>
        ) : null}
      </BlockStack>
      {buying ? <BuyMinutesDialog onClose={() => setBuying(false)} /> : null}
    </Card>
  );
}
