// /checkout?price_id=<plan>_<interval>: the order summary of the chosen plan. Payment itself is handled by the
// billing provider once it is configured on the server.
import { Banner, BlockStack, Button, Card, InlineStack, Text } from '@shopify/polaris';
import { useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import { PageFrame, EmptyStateCard } from '../../ui/page';
import { PLAN_LABELS, parsePriceId, planCards } from './plans';

export default function CheckoutPage() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const choice = useMemo(() => parsePriceId(new URLSearchParams(search).get('price_id')), [search]);
  const card = choice ? planCards().find((c) => c.tier === choice.tier) : undefined;

  if (!choice || !card) {
    return (
      <PageFrame title="Checkout" backAction={{ content: 'Plans', onAction: () => navigate('/pricing') }}>
        <EmptyStateCard heading="Choose a plan first" action={{ content: 'See plans', onAction: () => navigate('/pricing') }}>
          <Text as="p">Pick a plan and billing interval on the plans page to see your order here.</Text>
        </EmptyStateCard>
      </PageFrame>
    );
  }

  const minutes = choice.interval === 'year' ? card.monthlyMinutes * 12 : card.monthlyMinutes;
  return (
    <PageFrame title="Checkout" narrowWidth backAction={{ content: 'Plans', onAction: () => navigate('/pricing') }}>
      <Card>
        <BlockStack gap="300">
          <Text as="h2" variant="headingMd">
            Order summary
          </Text>
          <InlineStack align="space-between">
            <Text as="span">{PLAN_LABELS[choice.tier]}</Text>
            <Text as="span">{choice.interval === 'year' ? 'Annually' : 'Monthly'}</Text>
          </InlineStack>
          <InlineStack align="space-between">
            <Text as="span" tone="subdued">
              Minutes
            </Text>
            <Text as="span">{`${minutes} per ${choice.interval}`}</Text>
          </InlineStack>
          <Banner tone="info">Online payment is not set up on this server yet. Contact your administrator to change plans.</Banner>
          <Button variant="primary" disabled fullWidth>
            Continue to payment
          </Button>
        </BlockStack>
      </Card>
    </PageFrame>
  );
}
