// /pricing: the plans (minutes, features, Teamspace and voice-clone limits) by billing interval.
// Query: tab=month|year (interval) or tab=lip_sync (highlights plans with lip-sync); opened with router state
// { from } carrying the previous path.
import { Badge, BlockStack, Box, Button, ButtonGroup, Card, InlineGrid, InlineStack, List, Text } from '@shopify/polaris';
import { useEffect, useMemo } from 'react';
import { useLocation, useSearch } from 'wouter';
import { SUPPORT_EMAIL } from '../../../contract/constants';
import { analytics } from '../../lib/analytics';
import { planTierOf, useCurrentUser } from '../account/api';
import { PageFrame } from '../../ui/page';
import { planCards, priceIdOf, type Interval } from './plans';

function fromState(): string | null {
  const s = window.history.state as { from?: unknown } | null;
  return typeof s?.from === 'string' ? s.from : null;
}

export default function PricingPage() {
  const search = useSearch();
  const params = useMemo(() => new URLSearchParams(search), [search]);
  const [, navigate] = useLocation();
  const { data: user } = useCurrentUser();
  const current = planTierOf(user);
  const tab = params.get('tab');
  const interval: Interval = tab === 'year' ? 'year' : 'month';
  const highlightLipsync = tab === 'lip_sync';
  const from = fromState();

  useEffect(() => {
    analytics.subscriptionPageOpened(from ?? 'direct');
  }, [from]);

  const setInterval = (i: Interval) => {
    const q = new URLSearchParams(params);
    q.set('tab', i);
    navigate(`/pricing?${q.toString()}`, { replace: true, state: window.history.state });
  };

  return (
    <PageFrame
      title="Plans"
      subtitle="Translate any video length into 129 languages. Unused minutes roll over while your subscription is active."
      backAction={from ? { content: 'Back', onAction: () => navigate(from) } : undefined}
      fullWidth
    >
      <BlockStack gap="400">
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
        <InlineGrid columns={{ xs: 1, sm: 2, lg: 5 }} gap="400">
          {planCards().map((p) => {
            const isCurrent = p.tier === current;
            return (
              <Card key={p.tier} background={highlightLipsync && p.lipsync ? 'bg-surface-info' : undefined}>
                <BlockStack gap="300">
                  <InlineStack align="space-between" blockAlign="center">
                    <Text as="h2" variant="headingMd">
                      {p.name}
                    </Text>
                    {isCurrent ? <Badge tone="success">Current plan</Badge> : null}
                  </InlineStack>
                  <Text as="p" variant="headingLg">
                    {p.tier === 'enterprise' ? 'Custom minutes' : `${interval === 'year' ? p.monthlyMinutes * 12 : p.monthlyMinutes} minutes`}
                  </Text>
                  <Text as="p" tone="subdued" variant="bodySm">
                    {p.tier === 'enterprise' ? 'volume agreed with our team' : interval === 'year' ? 'per year, billed annually' : 'per month'}
                  </Text>
                  <List type="bullet">
                    <List.Item>{p.teamspaceMembers}</List.Item>
                    <List.Item>{p.voiceClones}</List.Item>
                    {p.features.map((f) => (
                      <List.Item key={f}>{f}</List.Item>
                    ))}
                  </List>
                  <Box paddingBlockStart="200">
                    {p.tier === 'enterprise' ? (
                      <Button fullWidth url={`mailto:${SUPPORT_EMAIL}?subject=${encodeURIComponent('Enterprise plan')}`}>
                        Contact sales
                      </Button>
                    ) : (
                      <Button
                        fullWidth
                        variant={isCurrent ? 'secondary' : 'primary'}
                        disabled={isCurrent}
                        onClick={() => navigate(`/checkout?price_id=${priceIdOf(p.tier, interval)}`, { state: { from: '/pricing' } })}
                      >
                        {isCurrent ? 'Your plan' : `Choose ${p.name}`}
                      </Button>
                    )}
                  </Box>
                </BlockStack>
              </Card>
            );
          })}
        </InlineGrid>
      </BlockStack>
    </PageFrame>
  );
}
