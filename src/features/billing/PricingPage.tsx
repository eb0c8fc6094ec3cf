// /pricing (spec section 2): the plans of the catalogue (GET /api/payments/products, sorted by metadata.position)
// by billing interval. Query: tab=month|year (interval) or tab=lip_sync (plans with lip-sync highlighted), price_id
// (that plan and interval preselected); opened with router state { from } carrying the previous path.
// Choosing a plan: /checkout for a new subscriber; a subscriber changes plan in the Billing Portal's plan-update
// preview (Stripe) or at once (self-service local), with the page reloaded 1 s after the change.
import { Badge, Banner, BlockStack, Box, Button, ButtonGroup, Card, InlineGrid, InlineStack, List, SkeletonBodyText, Text } from '@shopify/polaris';
import { useEffect, useMemo, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { PLAN_CHANGE_RELOAD_MS } from '../../../contract/constants';
import type { PlanProduct, ProductsResponse } from '../../../contract/schemas/payments';
import type { User } from '../../../contract/schemas/user';
import { useCurrentUser } from '../../lib/api/use-current-user';
import { analytics } from '../../lib/analytics';
import { errorMessage } from '../../lib/http';
import { currentAppPath, page } from '../../lib/page';
import { PageFrame } from '../../ui/page';
import { useSnackbar } from '../../ui/snackbars';
import { useToast } from '../../ui/toasts';
import { billingPortal, changePlan, useProducts } from './api';
import { BuyMinutesDialog } from './BuyMinutesModal';
import { ShopPricing, useShopBilling } from './ShopBilling';
import { leaveApp } from './leave';
import { askAdministrator } from './api';
import { useSettings } from '../../lib/api/use-settings';
import { languagesClaim } from '../../lib/claims';
import { formatNumber } from '../../lib/format';
import { planCards } from './plans';
import { balanceFlags, formatMoney, hasActiveSubscription, minutesPriceOf, planOfSubscription, planPrice, planPricePerMinute, portalPath, promoBannerText } from './rules';

type Interval = 'month' | 'year';

function fromState(): string | null {
  const s = window.history.state as { from?: unknown } | null;
  return typeof s?.from === 'string' ? s.from : null;
}

/** The plan and interval a price id names in the catalogue. */
export function findPriceId(products: ProductsResponse | undefined, priceId: string | null): { plan: PlanProduct; interval: Interval } | null {
  if (!products || !priceId) return null;
  for (const plan of products.plans) {
    const p = plan.prices.find((x) => x.id === priceId);
    if (p?.interval) return { plan, interval: p.interval };
  }
  return null;
}

const FEATURES = new Map(planCards().map((c) => [c.tier as string, c]));

export default function PricingPage() {
  // In the embedded build, a shop Teamspace's plan is bought through the platform (./ShopBilling.tsx).
  const shop = useShopBilling();
  const [, go] = useLocation();
  if (shop.loading) return <PageFrame title="Plans"><SkeletonBodyText lines={6} /></PageFrame>;
  if (shop.status && shop.spaceId) {
    const back = fromState();
    return <ShopPricing status={shop.status} spaceId={shop.spaceId} onBack={back ? () => go(back) : undefined} />;
  }
  return <CheckoutPricingPage />;
}

function CheckoutPricingPage() {
  const search = useSearch();
  const params = useMemo(() => new URLSearchParams(search), [search]);
  const [, navigate] = useLocation();
  const { data: user } = useCurrentUser();
  const { data: products, error, isLoading } = useProducts();
  const toast = useToast();
  const snackbar = useSnackbar();
  const [busy, setBusy] = useState<string | null>(null);
  const [buying, setBuying] = useState(false);
  const tab = params.get('tab');
  const preselected = findPriceId(products, params.get('price_id'));
  const interval: Interval = tab === 'year' || tab === 'month' ? tab : (preselected?.interval ?? 'month');
  const highlightLipsync = tab === 'lip_sync';
  const from = fromState();
  const flags = balanceFlags(user, products);
  const current = planOfSubscription(user, products);
  const subscribed = !!user?.subscription && hasActiveSubscription(user);
  const { settings } = useSettings();
  const [asked, setAsked] = useState<string | null>(null);
  // "Ask my administrator" (plans granted on this server): a message in the staff's support inbox.
  const ask = async (plan: PlanProduct) => {
    setBusy(plan.id);
    try {
      await askAdministrator(`Please grant me the ${plan.name} plan.`, currentAppPath());
      setAsked(plan.id);
      toast.show('Your administrator has your request');
    } catch (e) {
      snackbar.show(errorMessage(e));
    } finally {
      setBusy(null);
    }
  };

  useEffect(() => {
    analytics.subscriptionPageOpened(from ?? 'direct');
  }, [from]);

  const setInterval = (i: Interval) => {
    const q = new URLSearchParams(params);
    q.set('tab', i);
    navigate(`/pricing?${q.toString()}`, { replace: true, state: window.history.state });
  };

  async function choose(plan: PlanProduct, priceId: string) {
    if (busy) return;
    // A subscriber changes plan; everyone else goes to the checkout summary.
    if (subscribed && user?.subscription && products) {
      setBusy(priceId);
      try {
        if (products.checkout === 'stripe') {
          const portal = await billingPortal(window.location.href);
          leaveApp(portalPath(portal.billing_portal_url, { kind: 'plan_preview', subscriptionId: user.subscription.id, priceId }));
          return;
        }
        await changePlan(priceId);
        toast.show(`Your plan is now ${plan.name}`);
        setTimeout(() => page.reload(), PLAN_CHANGE_RELOAD_MS);
      } catch (e) {
        snackbar.show(errorMessage(e));
        setBusy(null);
      }
      return;
    }
    navigate(`/checkout?price_id=${encodeURIComponent(priceId)}`, { state: { from: from ?? currentAppPath() } });
  }

  const pack = minutesPriceOf(products);
  const promo = promoBannerText(pack?.unit_amount, flags.hasArchivedSubscription);

  return (
    <PageFrame
      title="Plans"
      subtitle={`${languagesClaim(settings?.languages.translation.length)} Unused minutes roll over while your subscription is active.`}
      backAction={from ? { content: 'Back', onAction: () => navigate(from) } : undefined}
      fullWidth
    >
      <BlockStack gap="400">
        {products?.checkout === 'admin' ? (
          <Banner tone="info" title="Plans on this server are granted by its administrator">
            <Text as="p">Choose the plan you need and ask your administrator to grant it. Nothing is charged here.</Text>
          </Banner>
        ) : null}
        {products?.checkout === 'free' ? (
          <Banner tone="info" title="Plans are free on this server">
            <Text as="p">Your administrator lets you choose a plan without payment.</Text>
          </Banner>
        ) : null}
        {user?.subscription && flags.hasArchivedSubscription && promo ? <Banner tone="success" title={promo} /> : null}
        {error ? <Banner tone="critical">The plans could not be loaded. Please try again later.</Banner> : null}
        <InlineStack align="center">
          <ButtonGroup variant="segmented">
            <Button pressed={interval === 'month'} onClick={() => setInterval('month')}>
              Monthly
            </Button>
            <Button pressed={interval === 'year'} onClick={() => setInterval('year')}>
              Yearly
            </Button>
          </ButtonGroup>
        </InlineStack>
        {isLoading && !products ? (
          <Card>
            <SkeletonBodyText lines={6} />
          </Card>
        ) : null}
        <InlineGrid columns={{ xs: 1, sm: 2, lg: Math.max(1, Math.min(5, products?.plans.filter((p) => p.tier !== 'custom').length ?? 5)) }} gap="400">
          {(products?.plans ?? [])
            .filter((p) => p.tier !== 'custom' && !p.is_archived)
            .map((p) => (
              <PlanCard
                key={p.id}
                plan={p}
                interval={interval}
                products={products!}
                user={user}
                current={current?.id === p.id && subscribed}
                currentPrice={user?.subscription?.plan.id ?? null}
                highlighted={(highlightLipsync && !!FEATURES.get(p.tier)?.lipsync) || preselected?.plan.id === p.id}
                busy={busy}
                onChoose={(priceId) => void choose(p, priceId)}
                salesEmail={settings?.support?.email ?? null}
                onAsk={products?.checkout === 'admin' && !(current?.id === p.id && subscribed) ? () => void ask(p) : undefined}
                asked={asked === p.id}
              />
            ))}
        </InlineGrid>
        {flags.canBuyMinutes ? (
          <Card>
            <InlineStack align="space-between" blockAlign="center" gap="400">
              <BlockStack gap="100">
                <Text as="h2" variant="headingMd">
                  Need more minutes this month?
                </Text>
                <Text as="p" tone="subdued">
                  {pack?.unit_amount ? `Extra minutes cost ${formatMoney(pack.unit_amount / 100, pack.currency)} each and never expire.` : 'Add minutes to your Teamspace.'}
                </Text>
              </BlockStack>
              <Button onClick={() => setBuying(true)}>Buy minutes</Button>
            </InlineStack>
          </Card>
        ) : null}
      </BlockStack>
      {buying ? <BuyMinutesDialog onClose={() => setBuying(false)} /> : null}
    </PageFrame>
  );
}

function PlanCard(props: {
  plan: PlanProduct;
  interval: Interval;
  products: ProductsResponse;
  user: User | undefined;
  current: boolean;
  currentPrice: string | null;
  highlighted: boolean;
  busy: string | null;
  onChoose(priceId: string): void;
  /** Where "Contact sales" writes (none configured: the button is left out). */
  salesEmail: string | null;
  /** Plans granted by the administrator: ask them for this one. */
  onAsk?: () => void;
  asked?: boolean;
}) {
  const { plan, interval, products } = props;
  const card = FEATURES.get(plan.tier);
  const price = planPrice(plan, interval);
  const enterprise = plan.category === 'enterprise';
  const perMinute = price ? planPricePerMinute(plan, price) : null;
  const samePrice = props.current && price?.id === props.currentPrice;
  const minutes = interval === 'year' ? plan.metadata.monthly_minutes * 12 : plan.metadata.monthly_minutes;
  return (
    <Card background={props.highlighted ? 'bg-surface-info' : undefined}>
      <BlockStack gap="300">
        <InlineStack align="space-between" blockAlign="center">
          <Text as="h2" variant="headingMd">
            {plan.name}
          </Text>
          {props.current ? <Badge tone="success">Current plan</Badge> : null}
        </InlineStack>
        {enterprise ? (
          <Text as="p" variant="headingLg">
            Custom
          </Text>
        ) : price?.unit_amount != null ? (
          <BlockStack gap="050">
            <Text as="p" variant="headingLg">
              {`${formatMoney(price.unit_amount / 100 / (interval === 'year' ? 12 : 1), price.currency)} / month`}
            </Text>
            <Text as="p" tone="subdued" variant="bodySm">
              {interval === 'year' ? `${formatMoney(price.unit_amount / 100, price.currency)} billed annually` : 'billed monthly'}
              {perMinute ? ` · ${formatMoney(Math.round(perMinute * 100) / 100, price.currency)} per minute` : ''}
            </Text>
          </BlockStack>
        ) : (
          <Text as="p" variant="headingLg">
            {products.checkout === 'free' ? 'Free here' : 'Granted by your administrator'}
          </Text>
        )}
        <Text as="p" fontWeight="semibold">
          {enterprise ? 'Minutes agreed with our team' : `${formatNumber(minutes)} minutes ${interval === 'year' ? 'per year' : 'per month'}`}
        </Text>
        {card ? (
          <List type="bullet">
            <List.Item>{card.teamspaceMembers}</List.Item>
            <List.Item>{card.voiceClones}</List.Item>
            {card.features.map((f) => (
              <List.Item key={f}>{f}</List.Item>
            ))}
          </List>
        ) : null}
        <Box paddingBlockStart="200">
          {props.onAsk ? (
            <Button fullWidth variant="primary" onClick={props.onAsk} disabled={props.asked} loading={props.busy === plan.id}>
              {props.asked ? 'Request sent' : 'Ask my administrator'}
            </Button>
          ) : enterprise ? (
            props.salesEmail ? (
              <Button fullWidth url={`mailto:${props.salesEmail}?subject=${encodeURIComponent('Enterprise plan')}`}>
                Contact sales
              </Button>
            ) : null
          ) : !price ? (
            <Button fullWidth disabled>
              {`No ${interval === 'year' ? 'yearly' : 'monthly'} price`}
            </Button>
          ) : (
            <Button
              fullWidth
              variant={samePrice ? 'secondary' : 'primary'}
              disabled={samePrice || (props.busy !== null && props.busy !== price.id)}
              loading={props.busy === price.id}
              onClick={() => props.onChoose(price.id)}
            >
              {samePrice ? 'Your plan' : props.current ? `Switch to ${interval === 'year' ? 'yearly' : 'monthly'}` : props.currentPrice && props.user?.subscription ? `Change to ${plan.name}` : `Choose ${plan.name}`}
            </Button>
          )}
        </Box>
      </BlockStack>
    </Card>
  );
}
