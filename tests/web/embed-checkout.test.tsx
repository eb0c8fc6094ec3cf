// The embedded build (inside the ad platform's admin, App Bridge): a checkout whose URL is on an origin the server
// does not allow for redirects shows the spec's 'This URL is not allowed for redirection' (issue 26 §4), not
// 'Server error. Please try again later'; the browser goes nowhere.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEXT } from '../../contract/errors';
import { createAppBridgeBridge } from '../../src/lib/auth/bridge';
import { createEmbeddedProvider } from '../../src/lib/auth/embedded';
import type { AnyAuthProvider } from '../../src/lib/auth/types';
import { errorMessage } from '../../src/lib/http';
import { page } from '../../src/lib/page';
import { buyMinutesOpenAtom } from '../../src/lib/state';
import { renderApp, spaceFixture, useApi, userFixture } from './app-harness';
import { server } from './msw';

beforeEach(() => {
  server.use(http.get('*/api/space/limits', () => HttpResponse.json({ plan: 'creator', subscription_active: true, spaces_enabled: false, spaces_limit: 1, user_limit: 1, owned_spaces: 1, can_create: false })));
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** The embedded provider over the real bridge: Stripe's checkout is the one allowed redirect origin. */
function embedded() {
  const assign = vi.fn();
  const bridge = createAppBridgeBridge({
    app: null,
    shop: null,
    allowedOrigins: ['https://checkout.stripe.com'],
    location: { href: window.location.href, origin: window.location.origin, assign },
  });
  // No App Bridge in the test: the session token is a fixed one.
  const provider = createEmbeddedProvider({ bridge: { ...bridge, getSessionToken: async () => 'test-token' }, shop: null });
  return { provider: provider as unknown as AnyAuthProvider, assign };
}

describe('embedded build: checkout redirect to an origin that is not allowed', () => {
  it('errorMessage keeps the embedded texts, other errors stay generic', () => {
    expect(errorMessage(new Error(TEXT.embedRedirectNotAllowed))).toBe(TEXT.embedRedirectNotAllowed);
    expect(errorMessage(new Error(TEXT.embedInvalidUrl))).toBe(TEXT.embedInvalidUrl);
    expect(errorMessage(new Error('x is undefined'))).toBe(TEXT.serverError);
  });

  it('the plan checkout says so', async () => {
    const leave = vi.spyOn(page, 'assign').mockImplementation(() => {});
    server.use(
      http.get('*/api/payments/create_checkout_session_subscription', () => HttpResponse.json({ checkout_url: 'https://pay.elsewhere.example/cs_plan' })),
    );
    useApi({ user: userFixture() });
    const { provider, assign } = embedded();
    renderApp({ path: '/checkout?price_id=price_creator_year', provider });
    await screen.findByText('Order summary', undefined, { timeout: 5000 });
    fireEvent.click(screen.getByRole('button', { name: 'Continue to payment' }));
    await screen.findByText(TEXT.embedRedirectNotAllowed);
    expect(screen.queryByText(TEXT.serverError)).toBeNull();
    expect(assign).not.toHaveBeenCalled();
    expect(leave).not.toHaveBeenCalled();
  });

  it('the buy-minutes checkout says so', async () => {
    vi.spyOn(page, 'assign').mockImplementation(() => {});
    server.use(
      http.post('*/api/payments/create_checkout_session_payment', () => HttpResponse.json({ checkout_url: 'https://pay.elsewhere.example/cs_1' })),
    );
    useApi({ user: userFixture({ plan: 'creator' }), spaces: [spaceFixture('sp-default', { owner_id: 'u1' })] });
    const { provider, assign } = embedded();
    const app = renderApp({ path: '/spaces/sp-default', provider });
    act(() => app.store.set(buyMinutesOpenAtom, true));
    const dialog = await screen.findByRole('dialog', undefined, { timeout: 5000 });
    fireEvent.click(within(dialog).getByRole('button', { name: '2,500' }));
    const checkout = within(dialog).getByRole('button', { name: /Checkout/ });
    await waitFor(() => expect(checkout.getAttribute('aria-disabled') === 'true' || (checkout as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(checkout);
    await within(dialog).findByText(TEXT.embedRedirectNotAllowed);
    expect(within(dialog).queryByText(TEXT.serverError)).toBeNull();
    expect(assign).not.toHaveBeenCalled();
  });
});
