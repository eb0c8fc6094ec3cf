// The product never depends on analytics: with every sink failing at once (a sink that throws, a tag manager
// whose data layer throws, product analytics and session replay whose endpoints are blocked), the app still
// renders, navigates and answers clicks, and the events were still offered to the sinks.
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { addAnalyticsSink, type AnalyticsMessage } from '../../src/lib/analytics';
import { startProductAnalytics } from '../../src/lib/product-analytics';
import { startSessionReplay } from '../../src/lib/session-replay';
import { renderApp, useApi, userFixture } from './app-harness';
import { server } from './msw';

vi.setConfig({ testTimeout: 20_000 });

const stops: Array<() => void> = [];
afterEach(() => {
  for (const s of stops.splice(0)) s();
  delete (window as { dataLayer?: unknown }).dataLayer;
});

describe('failing analytics', () => {
  it('changes nothing for the user', async () => {
    const blocked = vi.fn(async () => {
      throw new TypeError('Failed to fetch (blocked by client)');
    }) as unknown as typeof fetch;
    const seen: AnalyticsMessage[] = [];
    stops.push(addAnalyticsSink((m) => void seen.push(m)));
    stops.push(addAnalyticsSink(() => {
      throw new Error('sink down');
    }));
    (window as unknown as { dataLayer: unknown }).dataLayer = { push: () => { throw new Error('tag manager down'); } };
    const pa = startProductAnalytics({ url: 'http://analytics.test/batch', batchSize: 1, fetch: blocked });
    stops.push(() => pa.stop());
    const replay = startSessionReplay({ url: 'http://replay.test/upload', random: () => 0, batchSize: 1, fetch: blocked });
    stops.push(() => replay.stop());
    // An analytics host that does answer, but with errors, for anything that reaches the network.
    server.use(
      http.post('http://analytics.test/*', () => HttpResponse.error()),
      http.get('*/api/space/limits', () => HttpResponse.json({ plan: 'trial', subscription_active: false, spaces_enabled: false, spaces_limit: 0, user_limit: 0, owned_spaces: 1, can_create: false })),
    );

    useApi({ user: userFixture() });
    const app = renderApp({ path: '/pricing' });
    expect(await screen.findByText('Creator Pro')).toBeTruthy();
    await waitFor(() => expect(seen.some((m) => m.event === 'subscriptionPageOpened')).toBe(true));
    // The page still works: the yearly prices are a click away, and navigation goes on.
    fireEvent.click(screen.getByRole('button', { name: 'Yearly' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Yearly' }).getAttribute('aria-pressed')).toBe('true'));
    await pa.flush();
    await replay.flush();
    expect(blocked).toHaveBeenCalled();
    expect(app.path()).toBe('/pricing?tab=year');
  });
});
