// Issue 32 part 5, the embedded build in a shop Teamspace: the plans page buys through the platform (its
// confirmation page opened with the App Bridge redirect), and extra minutes past the cap say so with the link to
// raise it.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAppBridgeBridge } from '../../src/lib/auth/bridge';
import { createEmbeddedProvider } from '../../src/lib/auth/embedded';
import type { AnyAuthProvider } from '../../src/lib/auth/types';
import { buyMinutesOpenAtom } from '../../src/lib/state';
import { renderApp, spaceFixture, useApi, userFixture } from './app-harness';
import { server } from './msw';

const PLATFORM = 'https://admin.shop.example';
const status = (subscription: unknown = null) => ({
  shop: true, currency: 'USD', prices: { starter: 19, creator: 49, creator_pro: 99, business: 299 }, minute_price: 1.5, capped_amount: 30, subscription,
});

beforeEach(() => {
  server.use(http.get('*/api/space/limits', () => HttpResponse.json({ plan: 'trial', subscription_active: false, spaces_enabled: false, spaces_limit: 1, user_limit: 1, owned_spaces: 1, can_create: false })));
});
afterEach(() => {
  vi.restoreAllMocks();
});

function embedded() {
  const assign = vi.fn();
  const bridge = createAppBridgeBridge({
    app: null,
    shop: null,
    allowedOrigins: [PLATFORM],
    location: { href: window.location.href, origin: window.location.origin, assign },
  });
  const provider = createEmbeddedProvider({ bridge: { ...bridge, getSessionToken: async () => 'test-token' }, shop: null });
  // No App Bridge in the test: the platform's Redirect is what the app asks for.
  const redirect = vi.spyOn(provider, 'redirect').mockImplementation(() => {});
  return { provider: provider as unknown as AnyAuthProvider, assign: redirect };
}

describe('embedded build, shop Teamspace: billing through the platform', () => {
  it('choosing a plan opens the platform confirmation page, not the checkout', async () => {
    const subscribe = vi.fn();
    const sync = vi.fn();
    server.use(
      http.get('*/api/shop/billing/status', () => HttpResponse.json(status())),
      http.post('*/api/shop/billing/sync', () => {
        sync();
        return HttpResponse.json(status());
      }),
      http.post('*/api/shop/billing/subscribe', async ({ request }) => {
        subscribe(new URL(request.url).searchParams.get('space_id'), await request.json());
        return HttpResponse.json({ confirmation_url: `${PLATFORM}/charges/7/confirm`, subscription_id: 'gid://shopify/AppSubscription/7' });
      }),
    );
    useApi({ user: userFixture({ id: 'u1' }), spaces: [spaceFixture('sp-default', { owner_id: 'u1' })] });
    const { provider, assign: redirect } = embedded();
    renderApp({ path: '/pricing', provider });
    await screen.findByText('$49.00 / 30 days', undefined, { timeout: 5000 });
    expect(sync).toHaveBeenCalled();
    const buttons = screen.getAllByRole('button', { name: 'Choose' });
    fireEvent.click(buttons[1]!);
    await vi.waitFor(() => expect(redirect).toHaveBeenCalledWith(`${PLATFORM}/charges/7/confirm`, {}));
    expect(subscribe).toHaveBeenCalledWith('sp-default', { tier: 'creator' });
  });

  it('extra minutes past the cap: the message and the link to raise it', async () => {
    server.use(
      http.get('*/api/shop/billing/status', () => HttpResponse.json(status({ id: 'gid://shopify/AppSubscription/7', tier: 'creator', status: 'ACTIVE', amount: 49, capped_amount: 30 }))),
      http.post('*/api/shop/billing/minutes', () =>
        HttpResponse.json(
          { detail: 'The spending limit for extra minutes is reached: 15.00 USD of 30.00 USD used this billing period, and these minutes cost 45.00 USD. Raise the limit to buy them.', code: 'usage_cap_reached', raise_cap_url: `${PLATFORM}/charges/7/confirm_update` },
          { status: 402 },
        )),
    );
    useApi({ user: userFixture({ id: 'u1' }), spaces: [spaceFixture('sp-default', { owner_id: 'u1' })] });
    const { provider, assign: redirect } = embedded();
    const app = renderApp({ path: '/spaces/sp-default', provider });
    act(() => app.store.set(buyMinutesOpenAtom, true));
    const dialog = await screen.findByRole('dialog', undefined, { timeout: 5000 });
    fireEvent.click(await within(dialog).findByRole('button', { name: /Buy for \$45\.00/ }));
    await within(dialog).findByText(/The spending limit for extra minutes is reached/);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Raise the spending limit' }));
    await vi.waitFor(() => expect(redirect).toHaveBeenCalledWith(`${PLATFORM}/charges/7/confirm_update`, {}));
  });
});
