// /checkout?price_id=<price>: the order summary of the chosen plan, an optional promotion code, and the way to pay:
// Stripe Checkout (the browser leaves for it and comes back with ?payment-successful or
// ?payment-subscription-canceled), the self-service local checkout (granted at once), or, on a server where the
// administrator grants plans, what to do instead.
import { Banner, BlockStack, Button, Card, InlineStack, Text, TextField } from '@shopify/polaris';
import { useMemo, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import type { PromotionCode } from '../../../contract/schemas/payments';
import { useCurrentUser } from '../../lib/api/use-current-user';
import { analytics } from '../../lib/analytics';
import { errorMessage } from '../../lib/http';
import { routerBase } from '../../lib/page';
import { EmptyStateCard, PageFrame } from '../../ui/page';
import { SpinnerPage } from '../../ui/spinner-page';
import { checkPromotionCode, subscriptionCheckout, useProducts } from './api';
import { leaveApp } from './leave';
import { findPriceId } from './PricingPage';
import { formatMoney, hasActiveSubscription, returnUrl } from './rules';
import { formatNumber } from '../../lib/format';

function fromState(): string | null {
  const s = window.history.state as { from?: unknown } | null;
  return typeof s?.from === 'string' && !s.from.startsWith('/checkout') && !s.from.startsWith('/pricing') ? s.from : null;
}

function discountText(p: PromotionCode): string {
  const c = p.coupon;
  const off = c.percent_off ? `${c.percent_off}% off` : c.amount_off ? `${formatMoney(c.amount_off / 100, c.currency ?? 'usd')} off` : 'A discount';
  const when = c.duration === 'forever' ? 'on every payment' : c.duration === 'once' ? 'on the first payment' : `for ${c.duration_in_months ?? 'several'} months`;
  return `${off} ${when}`;
}

export default function CheckoutPage() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const { data: products, error, isLoading } = useProducts();
  const { data: user } = useCurrentUser();
  const priceId = useMemo(() => new URLSearchParams(search).get('price_id'), [search]);
  const choice = findPriceId(products, priceId);
  const [code, setCode] = useState('');
  const [promo, setPromo] = useState<PromotionCode | null>(null);
  const [promoError, setPromoError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const [paying, setPaying] = useState(false);
  const [payError, setPayError] = useState<string | null>(null);
  const toPlans = () => navigate('/pricing', { state: { from: fromState() ?? '/' } });

  if (isLoading && !products) return <SpinnerPage />;
  if (error) {
    return (
      <PageFrame title="Checkout" backAction={{ content: 'Plans', onAction: toPlans }}>
        <Banner tone="critical">The plans could not be loaded. Please try again later.</Banner>
      </PageFrame>
    );
  }
  if (!choice || !products) {
    return (
      <PageFrame title="Checkout" backAction={{ content: 'Plans', onAction: toPlans }}>
        <EmptyStateCard heading="Choose a plan first" action={{ content: 'See plans', onAction: toPlans }}>
          <Text as="p">Pick a plan and billing interval on the plans page to see your order here.</Text>
        </EmptyStateCard>
      </PageFrame>
    );
  }
  const { plan, interval } = choice;
  const price = plan.prices.find((p) => p.id === priceId)!;
  const minutes = interval === 'year' ? plan.metadata.monthly_minutes * 12 : plan.metadata.monthly_minutes;
  const mode = products.checkout;
  const subscribed = hasActiveSubscription(user) && user?.subscription?.provider === 'stripe';

  async function applyCode() {
    setChecking(true);
    setPromoError(null);
    try {
      setPromo(await checkPromotionCode(code.trim()));
    } catch (e) {
      setPromo(null);
      setPromoError(errorMessage(e));
    } finally {
      setChecking(false);
    }
  }

  async function pay() {
    if (paying) return;
    setPaying(true);
    setPayError(null);
    try {
      const back = fromState() ?? '/';
      const origin = window.location.origin;
      analytics.beginCheckout([{ item_id: price.id, item_name: `${plan.name} ${interval === 'year' ? 'Annual' : 'Monthly'}`, price: (price.unit_amount ?? 0) / 100, quantity: 1 }], price.currency.toUpperCase());
      const r = await subscriptionCheckout({
        price_id: price.id,
        success_url: returnUrl(back, 'payment-successful', routerBase(), origin),
        cancel_url: returnUrl(`/pricing?price_id=${encodeURIComponent(price.id)}`, 'payment-subscription-canceled', routerBase(), origin),
        promotion_code: promo?.id,
      });
      leaveApp(r.checkout_url);
    } catch (e) {
      setPayError(errorMessage(e));
      setPaying(false);
    }
  }

  return (
    <PageFrame title="Checkout" narrowWidth backAction={{ content: 'Plans', onAction: toPlans }}>
      <BlockStack gap="400">
        <Card>
          <BlockStack gap="300">
            <Text as="h2" variant="headingMd">
              Order summary
            </Text>
            <InlineStack align="space-between">
              <Text as="span">{plan.name}</Text>
              <Text as="span">{interval === 'year' ? 'Annually' : 'Monthly'}</Text>
            </InlineStack>
            <InlineStack align="space-between">
              <Text as="span" tone="subdued">
                Minutes
              </Text>
              <Text as="span">{`${formatNumber(minutes)} minutes per ${interval}`}</Text>
            </InlineStack>
            {price.unit_amount != null ? (
              <InlineStack align="space-between">
                <Text as="span" fontWeight="semibold">
                  Total
                </Text>
                <Text as="span" fontWeight="semibold">{`${formatMoney(price.unit_amount / 100, price.currency)} / ${interval}`}</Text>
              </InlineStack>
            ) : null}
            {mode === 'stripe' ? (
              <InlineStack gap="200" blockAlign="end" wrap={false}>
                <div style={{ flex: 1 }}>
                  <TextField label="Promotion code" value={code} onChange={setCode} autoComplete="off" error={promoError ?? undefined} />
                </div>
                <Button onClick={() => void applyCode()} loading={checking} disabled={code.trim() === ''}>
                  Apply
                </Button>
              </InlineStack>
            ) : null}
            {promo ? <Banner tone="success">{`${promo.code}: ${discountText(promo)}`}</Banner> : null}
            {mode === 'admin' ? (
              <Banner tone="info" title="Plans on this server are granted by its administrator">
                <Text as="p">{`Ask your administrator to grant you the ${plan.name} plan (${interval === 'year' ? 'yearly' : 'monthly'}). No payment is taken on this server.`}</Text>
              </Banner>
            ) : null}
            {subscribed ? <Banner tone="warning">You already have a subscription: change your plan from Manage subscription on your account page.</Banner> : null}
            {payError ? <Banner tone="critical">{payError}</Banner> : null}
            {mode === 'admin' ? (
              <InlineStack gap="200" align="end">
                {user?.is_superuser ? <Button onClick={() => navigate('/admin/customers')}>Open admin</Button> : null}
                <Button variant="primary" onClick={toPlans}>
                  Back to plans
                </Button>
              </InlineStack>
            ) : (
              <Button variant="primary" fullWidth loading={paying} disabled={paying || subscribed} onClick={() => void pay()}>
                {mode === 'free' ? `Start ${plan.name}` : 'Continue to payment'}
              </Button>
            )}
          </BlockStack>
        </Card>
      </BlockStack>
    </PageFrame>
  );
}
