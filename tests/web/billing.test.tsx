// Billing in the browser (vitest + happy-dom + msw): the buy-minutes modal's rules, prices and checkout; the
// upgrade modal opened by a 403 feature refusal and by a locked sidebar item, with the space-owner check; what a
// 402 opens from the real archived flag; pricing and checkout leaving for the provider's page.
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { paymentRequiredAction } from '../../src/lib/payment';
import { buyMinutesOpenAtom, upgradeModalAtom } from '../../src/lib/state';
import { productRetryDelayMs, shouldRetryProducts } from '../../src/features/billing/api';
import {
  canCheckoutMinutes, hasArchivedSubscription, isBlockedMinutesKey, minutesPrice, nextBilling, parseMinutesInput, paymentContextFrom, planName,
  portalPath, PROMO_ARCHIVED_TEXT, PROMO_TEXT, promoBannerText, returnUrl,
} from '../../src/features/billing/rules';
import { ApiError, api } from '../../src/lib/http';
import { page } from '../../src/lib/page';
import { productsFixture, renderApp, settingsFixture, spaceFixture, useApi, userFixture } from './app-harness';
import { server } from './msw';

// Whole-app renders on a loaded 2-core machine: a generous limit (each waits for its state, never sleeps to pass).
vi.setConfig({ testTimeout: 20_000 });
afterEach(() => vi.restoreAllMocks());
beforeEach(() => {
  server.use(http.get('*/api/space/limits', () => HttpResponse.json({ plan: 'creator', subscription_active: true, spaces_enabled: false, spaces_limit: 1, user_limit: 1, owned_spaces: 1, can_create: false })));
});

describe('buy-minutes rules', () => {
  it('digits only; sign, comma, e and the decimal point are blocked; empty is 0; over 10000 is 10000', () => {
    for (const k of ['-', '+', ',', 'e', 'E', '.']) expect(isBlockedMinutesKey(k), k).toBe(true);
    for (const k of ['0', '7', 'Backspace', 'ArrowLeft']) expect(isBlockedMinutesKey(k), k).toBe(false);
    expect(parseMinutesInput('')).toBe(0);
    expect(parseMinutesInput('250')).toBe(250);
    expect(parseMinutesInput('10000')).toBe(10000);
    expect(parseMinutesInput('10001')).toBe(10000);
    expect(parseMinutesInput('99999999')).toBe(10000);
    expect(parseMinutesInput('-12')).toBe(12);
    expect(parseMinutesInput('1,5')).toBe(15);
  });
  it('price = minutes x unit_amount / 100; checkout disabled at 0 or while loading', () => {
    expect(minutesPrice(250, 200)).toBe(500);
    expect(minutesPrice(3, 149)).toBe(4.47);
    expect(minutesPrice(0, 200)).toBe(0);
    expect(canCheckoutMinutes(0, false)).toBe(false);
    expect(canCheckoutMinutes(500, true)).toBe(false);
    expect(canCheckoutMinutes(500, false)).toBe(true);
  });
  it('the cheaper-plan promo shows above $1 a minute, with its own text for archived subscribers', () => {
    expect(promoBannerText(200, false)).toBe(PROMO_TEXT);
    expect(promoBannerText(150, true)).toBe(PROMO_ARCHIVED_TEXT);
    expect(promoBannerText(100, false)).toBeNull();
    expect(promoBannerText(null, false)).toBeNull();
  });
});

describe('plan name, archived flag, 402 and portal paths', () => {
  const products = productsFixture({ archived: ['price_creator_old'] });
  const sub = (id: string, product = 'prod_creator', o: Record<string, unknown> = {}) =>
    userFixture({ subscription: { ...userFixture({ plan: 'creator' }).subscription!, plan: { id, product_id: product, interval: 'month', recurring: true, tier: 'creator', name: 'Creator' }, ...o } });
  it('planName: the catalogue plan, else Free Plan for trial or free, else Archive Plan', () => {
    expect(planName(userFixture(), products)).toBe('Free Plan');
    expect(planName(sub('price_creator_month'), products)).toBe('Creator');
    expect(planName(userFixture({ subscription: { ...sub('x').subscription!, id: 'free_sub_1' } }), products)).toBe('Free Plan');
    expect(planName(sub('price_gold', 'prod_gold_2019'), products)).toBe('Archive Plan');
  });
  it('a 402 opens buy-minutes only for an active, non-enterprise, archived subscription; enterprise the Unknown Error modal; else pricing', () => {
    expect(hasArchivedSubscription(sub('price_creator_old'), products)).toBe(true);
    expect(hasArchivedSubscription(sub('price_creator_month'), products)).toBe(false);
    expect(paymentRequiredAction(paymentContextFrom(sub('price_creator_old'), products))).toBe('buyMinutes');
    expect(paymentRequiredAction(paymentContextFrom(sub('price_creator_month'), products))).toBe('pricing');
    expect(paymentRequiredAction(paymentContextFrom(userFixture(), products))).toBe('pricing');
    expect(paymentRequiredAction(paymentContextFrom(sub('price_creator_old', 'prod_creator', { payments_collection_paused: true }), products))).toBe('pricing');
    const ent = userFixture({ plan: 'enterprise' });
    expect(paymentRequiredAction(paymentContextFrom(ent, products))).toBe('unknownError');
  });
  it('portal paths, return URLs and next billing', () => {
    expect(portalPath('https://billing.example/p/session/abc', { kind: 'portal' })).toBe('https://billing.example/p/session/abc');
    expect(portalPath('https://billing.example/p/session/abc', { kind: 'billing_details' })).toBe('https://billing.example/p/session/abc/customer/update');
    expect(portalPath('https://billing.example/p/session/abc', { kind: 'plan_preview', subscriptionId: 'sub_1', priceId: 'price_business_month' })).toBe(
      'https://billing.example/p/session/abc/subscriptions/sub_1/preview/price_business_month?quantity=1',
    );
    expect(returnUrl('/spaces/s1?page=2&payment-credits-canceled', 'payment-successful', '/embed', 'https://app.example')).toBe(
      'https://app.example/embed/spaces/s1?page=2&payment-successful',
    );
    const noEnd = userFixture({ subscription: { ...sub('p').subscription!, current_period_end: null, plan: { ...sub('p').subscription!.plan, interval: 'year' } } });
    expect(nextBilling(noEnd, new Date('2026-03-10T00:00:00Z'))!.getFullYear()).toBe(2027);
  });
  it('products: a 429 is retried once; other failures twice, 5 s doubled and capped at 30 s', () => {
    const e = (status: number) => new ApiError({ status, message: 'x' });
    expect(shouldRetryProducts(e(429), 1)).toBe(true);
    expect(shouldRetryProducts(e(429), 2)).toBe(false);
    expect(shouldRetryProducts(e(500), 2)).toBe(true);
    expect(shouldRetryProducts(e(500), 3)).toBe(false);
    expect(shouldRetryProducts(e(404), 1)).toBe(false);
    expect([1, 2, 3, 4].map(productRetryDelayMs)).toEqual([5000, 10000, 20000, 30000]);
  });
});

const subscribed = (o: Record<string, unknown> = {}) => userFixture({ plan: 'creator', ...o });

describe('the buy-minutes modal', () => {
  it('clamps, blocks keys, prices the minutes, and leaves for the checkout with the return flags', async () => {
    const assign = vi.spyOn(page, 'assign').mockImplementation(() => {});
    const bodies: Record<string, unknown>[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    server.use(
      http.post('*/api/payments/create_checkout_session_payment', async ({ request }) => {
        bodies.push((await request.json()) as Record<string, unknown>);
        await held;
        return HttpResponse.json({ checkout_url: 'https://checkout.example/cs_1' });
      }),
    );
    useApi({ user: subscribed(), spaces: [spaceFixture('sp-default', { owner_id: 'u1' })] });
    const app = renderApp({ path: '/spaces/sp-default' });
    await screen.findByText('Translation', undefined, { timeout: 5000 }).catch(() => null);
    act(() => app.store.set(buyMinutesOpenAtom, true));
    const dialog = await screen.findByRole('dialog');
    const input = within(dialog).getByRole('textbox', { name: 'Minutes' }) as HTMLInputElement;
    const checkout = () => within(dialog).getByRole('button', { name: /Checkout/ }) as HTMLButtonElement;
    await waitFor(() => expect(within(dialog).getByText('$200')).toBeTruthy());
    for (const key of ['-', 'e', ',', '+']) {
      const ev = new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true });
      input.dispatchEvent(ev);
      expect(ev.defaultPrevented, key).toBe(true);
    }
    fireEvent.change(input, { target: { value: '12000' } });
    expect(input.value).toBe('10000');
    expect(within(dialog).getByText('$20,000')).toBeTruthy();
    fireEvent.change(input, { target: { value: '' } });
    expect(input.value).toBe('');
    await waitFor(() => expect(checkout().disabled || checkout().getAttribute('aria-disabled') === 'true').toBe(true));
    fireEvent.click(within(dialog).getByRole('button', { name: '2,500' }));
    expect(input.value).toBe('2500');
    expect(within(dialog).getByText('$5,000')).toBeTruthy();
    expect(within(dialog).getByText(PROMO_TEXT)).toBeTruthy();
    fireEvent.click(checkout());
    fireEvent.click(checkout());
    await waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0]).toMatchObject({ id: 'price_minutes', quantity: 2500 });
    expect(String(bodies[0].success_url)).toMatch(/^http:\/\/[^?]+\?(.+&)?payment-successful$/);
    expect(String(bodies[0].cancel_url)).toMatch(/^http:\/\/[^?]+\?(.+&)?payment-credits-canceled$/);
    release();
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://checkout.example/cs_1'));
    expect(bodies).toHaveLength(1);
  });

  it('a 402 opens it for a subscriber of an archived plan, and pricing for a current plan', async () => {
    server.use(http.get('*/api/test/pay', () => HttpResponse.json({ detail: 'Not enough minutes: 4 minutes needed, 3 available' }, { status: 402 })));
    useApi({ user: subscribed({ subscription: { ...subscribed().subscription!, plan: { ...subscribed().subscription!.plan, id: 'price_creator_old' } } }), products: productsFixture({ archived: ['price_creator_old'] }) });
    const app = renderApp({ path: '/spaces/sp-default' });
    await waitFor(() => expect(app.store.get(buyMinutesOpenAtom)).toBe(false));
    // Products are loaded ahead for subscribers; once they are, a 402 knows the plan is archived.
    await waitFor(async () => {
      await api.get('test/pay').catch(() => {});
      expect(app.store.get(buyMinutesOpenAtom)).toBe(true);
    });
    await screen.findByText('Buy additional minutes');
    expect(screen.getByText(PROMO_ARCHIVED_TEXT)).toBeTruthy();
  });
});

describe('upgrade modals', () => {
  const refusal = { detail: 'The Dictionary is not included in your plan: upgrade to Business or above', code: 'feature_not_in_plan', feature: 'glossary', required_plan: 'business' };

  it('a 403 feature refusal opens that feature\'s modal; upgrading goes to pricing', async () => {
    server.use(http.get('*/api/test/gated', () => HttpResponse.json(refusal, { status: 403 })));
    useApi({ user: subscribed(), spaces: [spaceFixture('sp-default', { owner_id: 'u1' })] });
    const app = renderApp({ path: '/spaces/sp-default' });
    await waitFor(() => expect(app.path()).toBe('/spaces/sp-default'));
    await api.get('test/gated').catch(() => {});
    await waitFor(() => expect(app.store.get(upgradeModalAtom)).toEqual({ feature: 'glossary' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('The Dictionary comes with the Business plan and above.')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Upgrade to Business' }));
    await waitFor(() => expect(app.path()).toBe('/pricing'));
  });

  it('in a Teamspace someone else owns, the upgrade button is disabled', async () => {
    useApi({ user: subscribed(), spaces: [spaceFixture('sp-default', { owner_id: 'u1' }), spaceFixture('sp-team', { owner_id: 'someone-else', is_default: false })] });
    const app = renderApp({ path: '/spaces/sp-team' });
    await waitFor(() => expect(app.path()).toBe('/spaces/sp-team'));
    act(() => app.store.set(upgradeModalAtom, { feature: 'lipsync' }));
    const dialog = await screen.findByRole('dialog');
    const button = within(dialog).getByRole('button', { name: 'Upgrade to Creator Pro' }) as HTMLButtonElement;
    expect(button.disabled || button.getAttribute('aria-disabled') === 'true').toBe(true);
    expect(within(dialog).getByText(/Only the owner of this Teamspace can upgrade/)).toBeTruthy();
  });

  it('a visible-but-locked sidebar item opens its modal instead of the page; a feature without content shows nothing', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const features = settingsFixture().scope_settings.available_features;
    const settings = settingsFixture();
    settings.scope_settings.available_features = { ...features, glossary: { enabled: false, visible: true, metadata: { desktop: true } } };
    useApi({ user: subscribed(), settings, spaces: [spaceFixture('sp-default', { owner_id: 'u1' })] });
    const app = renderApp({ path: '/spaces/sp-default' });
    const item = await screen.findByText('Dictionary');
    fireEvent.click(item.closest('[data-item]')!);
    await waitFor(() => expect(app.store.get(upgradeModalAtom)).toEqual({ feature: 'glossary' }));
    expect(app.path()).toBe('/spaces/sp-default');
    await screen.findByRole('dialog');
    act(() => app.store.set(upgradeModalAtom, { feature: 'tus' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(errors).toHaveBeenCalledWith('Upgrade modal without content for feature tus');
  });
});

describe('pricing and checkout', () => {
  it('lists the plans by position with prices; the yearly tab; choosing opens the checkout, which leaves for Stripe', async () => {
    const assign = vi.spyOn(page, 'assign').mockImplementation(() => {});
    const asked: URL[] = [];
    server.use(
      http.get('*/api/payments/create_checkout_session_subscription', ({ request }) => {
        asked.push(new URL(request.url));
        return HttpResponse.json({ checkout_url: 'https://checkout.example/cs_plan' });
      }),
    );
    useApi({ user: userFixture() });
    const app = renderApp({ path: '/pricing?tab=year' });
    await screen.findByText('Creator Pro');
    const names = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(names.slice(0, 4)).toEqual(['Starter', 'Creator', 'Creator Pro', 'Business']);
    expect(screen.getByText('$468 billed annually · $0.39 per minute')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Choose Creator' }));
    await waitFor(() => expect(app.path()).toBe('/checkout?price_id=price_creator_year'));
    await screen.findByText('Order summary');
    expect(screen.getByText('1,200 minutes per year')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Continue to payment' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://checkout.example/cs_plan'));
    expect(asked).toHaveLength(1);
    expect(asked[0].searchParams.get('price_id')).toBe('price_creator_year');
    expect(asked[0].searchParams.get('success_url')).toMatch(/payment-successful$/);
    expect(asked[0].searchParams.get('cancel_url')).toMatch(/payment-subscription-canceled$/);
  });

  it('on a server where the administrator grants plans, the checkout explains it', async () => {
    useApi({ user: userFixture(), products: productsFixture({ checkout: 'admin' }) });
    renderApp({ path: '/checkout?price_id=price_business_month' });
    await screen.findByText('Plans on this server are granted by its administrator');
    expect(screen.queryByRole('button', { name: 'Continue to payment' })).toBeNull();
    expect(screen.getByRole('button', { name: 'Back to plans' })).toBeTruthy();
  });
});
