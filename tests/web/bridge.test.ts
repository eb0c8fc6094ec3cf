// The embedded build's bridge: the spec's rules around App Bridge's getSessionToken (3 s timeout, 10 s expiry
// margin, one request in flight, the spec's error texts), then the real @shopify/app-bridge client over a fake
// admin window (its wire format, error actions, the Redirect action and the allowed origins), and the embedded
// provider on top.
import { createAppWrapper, type ClientApplication } from '@shopify/app-bridge/client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EMBED_TOKEN_EXPIRY_MARGIN_MS, PARENT_FRAME_TIMEOUT_MS } from '../../contract/constants';
import { TEXT } from '../../contract/errors';
import { createAppBridgeBridge, createSessionTokens, embedErrorText, type ParentBridge } from '../../src/lib/auth/bridge';
import { createEmbeddedProvider } from '../../src/lib/auth/embedded';
import { fakeJwt } from './helpers';

const T0 = Date.parse('2025-01-01T00:00:00Z');
let now = T0;
const tokenExpiringIn = (ms: number, sub = 'u1') => fakeJwt({ sub, exp: Math.floor((now + ms) / 1000) });

/** A token source the test answers by hand. */
function manualSource() {
  const calls: { resolve(t: string): void; reject(e: unknown): void }[] = [];
  const fetchToken = vi.fn(
    () =>
      new Promise<string>((resolve, reject) => {
        calls.push({ resolve, reject });
      }),
  );
  return { fetchToken, calls, last: () => calls[calls.length - 1] };
}

beforeEach(() => {
  vi.useFakeTimers();
  now = T0;
});
afterEach(() => {
  vi.useRealTimers();
});

describe('session token rules', () => {
  const make = () => {
    const src = manualSource();
    const tokens = createSessionTokens({ fetchToken: src.fetchToken, now: () => now });
    return { src, tokens };
  };

  it('asks the platform once and serves the cached token until 10 s before its exp', async () => {
    const { src, tokens } = make();
    const p = tokens.getSessionToken();
    const token = tokenExpiringIn(60_000);
    src.last().resolve(token);
    await expect(p).resolves.toBe(token);
    expect(src.fetchToken).toHaveBeenCalledTimes(1);

    now = T0 + 60_000 - EMBED_TOKEN_EXPIRY_MARGIN_MS - 1;
    await expect(tokens.getSessionToken()).resolves.toBe(token);
    expect(src.fetchToken).toHaveBeenCalledTimes(1);

    // 10 s before exp the token counts as expired: a new one is asked for.
    now = T0 + 60_000 - EMBED_TOKEN_EXPIRY_MARGIN_MS;
    const renewed = tokens.getSessionToken();
    expect(src.fetchToken).toHaveBeenCalledTimes(2);
    const next = tokenExpiringIn(60_000, 'u1-next');
    src.last().resolve(next);
    await expect(renewed).resolves.toBe(next);
  });

  it('fails with "request timeout" when the platform does not answer within 3 s, and a late answer changes nothing', async () => {
    const { src, tokens } = make();
    const p = tokens.getSessionToken();
    const settled = vi.fn();
    p.then(settled, settled);
    await vi.advanceTimersByTimeAsync(PARENT_FRAME_TIMEOUT_MS - 1);
    expect(settled).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await expect(p).rejects.toThrow(TEXT.embedTimeout);
    expect(TEXT.embedTimeout).toBe('request timeout');

    // The late reply is not cached; the next call asks again (nothing is stuck in flight).
    src.calls[0].resolve(tokenExpiringIn(60_000));
    await vi.advanceTimersByTimeAsync(0);
    const again = tokens.getSessionToken();
    expect(src.fetchToken).toHaveBeenCalledTimes(2);
    const token = tokenExpiringIn(60_000, 'second');
    src.last().resolve(token);
    await expect(again).resolves.toBe(token);
  });

  it('shares one request between concurrent callers, for success and for failure', async () => {
    const { src, tokens } = make();
    const all = Array.from({ length: 5 }, () => tokens.getSessionToken());
    expect(src.fetchToken).toHaveBeenCalledTimes(1);
    const token = tokenExpiringIn(60_000);
    src.last().resolve(token);
    await expect(Promise.all(all)).resolves.toEqual(Array(5).fill(token));

    tokens.clearToken();
    const failing = Array.from({ length: 3 }, () => tokens.getSessionToken());
    expect(src.fetchToken).toHaveBeenCalledTimes(2);
    src.last().reject(Object.assign(new Error('APP::ERROR::FAILED_AUTHENTICATION: Failed to retrieve a session token'), { type: 'APP::ERROR::FAILED_AUTHENTICATION' }));
    const results = await Promise.allSettled(failing);
    expect(results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual(Array(3).fill(TEXT.embedTokenFailed));
    // After the failure the next call asks again.
    void tokens.getSessionToken().catch(() => {});
    expect(src.fetchToken).toHaveBeenCalledTimes(3);
  });

  it('the raw request refuses a second one in flight and any other auth type, with the spec texts', async () => {
    const { src, tokens } = make();
    const first = tokens.request('session-token');
    await expect(tokens.request('session-token')).rejects.toThrow(TEXT.embedBusy);
    expect(TEXT.embedBusy).toBe('Please wait for another async method to return before trying again.');
    await expect(tokens.request('authorization-code')).rejects.toThrow(TEXT.embedUnsupportedAuth);
    expect(TEXT.embedUnsupportedAuth).toBe('Unsupported auth type...');
    // getSessionToken joins the raw request in flight instead of failing.
    const joined = tokens.getSessionToken();
    expect(src.fetchToken).toHaveBeenCalledTimes(1);
    const token = tokenExpiringIn(60_000);
    src.last().resolve(token);
    await expect(first).resolves.toBe(token);
    await expect(joined).resolves.toBe(token);
  });

  it('maps every failure to the spec texts', async () => {
    const cases: [() => Promise<string>, string][] = [
      [() => Promise.resolve(''), TEXT.embedTokenFailed],
      [() => Promise.resolve(undefined as unknown as string), TEXT.embedTokenFailed],
      [() => Promise.reject(Object.assign(new Error('x'), { type: 'APP::ERROR::FAILED_AUTHENTICATION' })), TEXT.embedTokenFailed],
      [() => Promise.reject(Object.assign(new Error('x'), { type: 'APP::ERROR::PERMISSION' })), TEXT.embedTokenFailed],
      [() => Promise.reject(Object.assign(new Error('x'), { type: 'APP::ERROR::UNSUPPORTED_OPERATION' })), TEXT.embedUnsupportedAuth],
      [() => Promise.reject(new TypeError('postMessage failed')), TEXT.embedRequestFailed],
      [
        () => {
          throw new Error('sync failure');
        },
        TEXT.embedRequestFailed,
      ],
      [() => Promise.reject(new Error(TEXT.embedRequestFailed)), TEXT.embedRequestFailed],
    ];
    for (const [fetchToken, text] of cases) {
      const tokens = createSessionTokens({ fetchToken, now: () => now });
      await expect(tokens.getSessionToken()).rejects.toThrow(text);
    }
    expect(embedErrorText('request timeout')).toBe(TEXT.embedTimeout);
    expect(TEXT.embedTokenFailed).toBe('failed to get session token. please try again later');
  });

  it('uses a token without exp, or one already inside the margin, for one request only', async () => {
    const { src, tokens } = make();
    const noExp = fakeJwt({ sub: 'u1' });
    const a = tokens.getSessionToken();
    src.last().resolve(noExp);
    await expect(a).resolves.toBe(noExp);
    const b = tokens.getSessionToken();
    expect(src.fetchToken).toHaveBeenCalledTimes(2);
    const short = tokenExpiringIn(EMBED_TOKEN_EXPIRY_MARGIN_MS - 1000);
    src.last().resolve(short);
    await expect(b).resolves.toBe(short);
    void tokens.getSessionToken().catch(() => {});
    expect(src.fetchToken).toHaveBeenCalledTimes(3);
  });
});

// ---- the real App Bridge client over a fake admin window -------------------------------------------------

const APP_ORIGIN = 'https://app.example';
const ADMIN_HOST = 'admin.example.com/store/demo';
const ADMIN_ORIGIN = 'https://admin.example.com';
const API_KEY = 'app-key-1';

interface Posted {
  message: { type: string; source?: { apiKey?: string; host?: string }; payload?: { type?: string; group?: string; payload?: Record<string, unknown> } };
  targetOrigin: string;
}

/** The admin window (window.top) as App Bridge sees it: records what the app posts, answers on demand. */
function fakeAdmin() {
  const posted: Posted[] = [];
  const admin = {
    postMessage(message: unknown, targetOrigin: string) {
      posted.push({ message: JSON.parse(JSON.stringify(message)) as Posted['message'], targetOrigin });
    },
  };
  const send = (data: unknown) => window.dispatchEvent(new MessageEvent('message', { data, source: admin as unknown as Window, origin: ADMIN_ORIGIN }));
  const dispatches = (type: string) => posted.filter((p) => p.message.type === 'dispatch' && p.message.payload?.type === type);
  return {
    admin,
    posted,
    dispatches,
    respond: (payload: Record<string, unknown>) =>
      send({ type: 'dispatch', payload: { type: 'APP::SESSION_TOKEN::RESPOND', group: 'SessionToken', payload } }),
    error: (type: string, action?: unknown) =>
      send({ type: 'dispatch', payload: { type, group: 'Error', payload: { type, message: 'refused', action } } }),
  };
}

describe('App Bridge bridge', () => {
  const bridges: ParentBridge[] = [];
  afterEach(() => {
    for (const b of bridges.splice(0)) b.dispose();
  });

  function setup(opts: { app?: 'none'; allowedOrigins?: string[]; shop?: string | null } = {}) {
    const platform = fakeAdmin();
    const app: ClientApplication | null =
      opts.app === 'none'
        ? null
        : createAppWrapper(platform.admin as unknown as Window, APP_ORIGIN)({ apiKey: API_KEY, host: btoa(ADMIN_HOST).replace(/=+$/, ''), forceRedirect: false });
    const assigned: string[] = [];
    const opened: string[] = [];
    const bridge = createAppBridgeBridge({
      app,
      shop: opts.shop === undefined ? 'demo.myshop.example' : opts.shop,
      allowedOrigins: opts.allowedOrigins ?? ['https://checkout.stripe.com', 'https://*.billing.example'],
      location: { href: `${APP_ORIGIN}/embed/spaces/1`, origin: APP_ORIGIN, assign: (u) => void assigned.push(u) },
      openWindow: (u) => void opened.push(u),
      now: () => now,
    });
    bridges.push(bridge);
    return { platform, bridge, app, assigned, opened };
  }

  it('asks for a session token with an App Bridge dispatch to the admin origin and resolves with the answer', async () => {
    const { platform, bridge, app } = setup();
    expect(app!.hostOrigin).toBe(ADMIN_ORIGIN);
    const p = bridge.getSessionToken();
    const [request] = platform.dispatches('APP::SESSION_TOKEN::REQUEST');
    expect(request.targetOrigin).toBe(ADMIN_ORIGIN);
    expect(request.message.source).toMatchObject({ apiKey: API_KEY, host: ADMIN_HOST });
    expect(request.message.payload?.group).toBe('SessionToken');
    const token = tokenExpiringIn(60_000);
    platform.respond({ sessionToken: token });
    await expect(p).resolves.toBe(token);
  });

  it('concurrent API calls make one App Bridge request', async () => {
    const { platform, bridge } = setup();
    const all = Promise.all([bridge.getSessionToken(), bridge.getSessionToken(), bridge.getSessionToken()]);
    expect(platform.dispatches('APP::SESSION_TOKEN::REQUEST')).toHaveLength(1);
    const token = tokenExpiringIn(60_000);
    platform.respond({ sessionToken: token });
    await expect(all).resolves.toEqual([token, token, token]);
  });

  it('an admin that never answers: "request timeout" after 3 s', async () => {
    const { bridge } = setup();
    const p = bridge.getSessionToken();
    const check = expect(p).rejects.toThrow(TEXT.embedTimeout);
    await vi.advanceTimersByTimeAsync(PARENT_FRAME_TIMEOUT_MS);
    await check;
  });

  it('after a timeout the next request asks again and gets the answer (no stale App Bridge listener swallows it)', async () => {
    const { platform, bridge } = setup();
    const first = bridge.getSessionToken();
    const check = expect(first).rejects.toThrow(TEXT.embedTimeout);
    await vi.advanceTimersByTimeAsync(PARENT_FRAME_TIMEOUT_MS);
    await check;
    const second = bridge.getSessionToken();
    expect(platform.dispatches('APP::SESSION_TOKEN::REQUEST')).toHaveLength(2);
    const token = tokenExpiringIn(60_000);
    platform.respond({ sessionToken: token });
    await expect(second).resolves.toBe(token);
    // One listener for the answer at a time: every subscribe to RESPOND was followed by its unsubscribe.
    const count = (type: string) =>
      platform.posted.filter((p) => p.message.type === type && p.message.payload?.type === 'APP::SESSION_TOKEN::RESPOND').length;
    expect(count('subscribe')).toBe(1);
    expect(count('unsubscribe')).toBe(1);
  });

  it('an answer without a token, or an error action, fails with the spec text instead of throwing in the listener', async () => {
    const { platform, bridge } = setup();
    const a = bridge.getSessionToken();
    platform.respond({});
    await expect(a).rejects.toThrow(TEXT.embedTokenFailed);

    const b = bridge.getSessionToken();
    platform.error('APP::ERROR::FAILED_AUTHENTICATION', { type: 'APP::SESSION_TOKEN::REQUEST' });
    await expect(b).rejects.toThrow(TEXT.embedTokenFailed);
    // An error about something else is logged, and a token request in flight goes on.
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const c = bridge.getSessionToken();
    platform.error('APP::ERROR::INVALID_ACTION', { type: 'APP::NAVIGATION::REDIRECT::REMOTE' });
    expect(spy).toHaveBeenCalled();
    const token = tokenExpiringIn(60_000);
    platform.respond({ sessionToken: token });
    await expect(c).resolves.toBe(token);
    spy.mockRestore();
  });

  it('redirects through Redirect REMOTE to the admin, the shop and the allowed origins; refuses the rest', () => {
    const { platform, bridge, assigned, opened } = setup();
    const remote = () => platform.dispatches('APP::NAVIGATION::REDIRECT::REMOTE').map((p) => p.message.payload?.payload);

    bridge.redirect('https://checkout.stripe.com/c/pay/cs_test_1');
    bridge.redirect('https://portal.billing.example/p/1', { newContext: true });
    bridge.redirect(`${ADMIN_ORIGIN}/store/demo/settings`);
    bridge.redirect('https://demo.myshop.example/products');
    expect(remote()).toEqual([
      expect.objectContaining({ url: 'https://checkout.stripe.com/c/pay/cs_test_1' }),
      expect.objectContaining({ url: 'https://portal.billing.example/p/1', newContext: true }),
      expect.objectContaining({ url: 'https://admin.example.com/store/demo/settings' }),
      expect.objectContaining({ url: 'https://demo.myshop.example/products' }),
    ]);
    expect(remote()[0]).not.toHaveProperty('newContext');
    for (const p of platform.dispatches('APP::NAVIGATION::REDIRECT::REMOTE')) expect(p.targetOrigin).toBe(ADMIN_ORIGIN);

    const before = platform.posted.length;
    expect(() => bridge.redirect('https://evil.example/phish')).toThrow(TEXT.embedRedirectNotAllowed);
    expect(() => bridge.redirect('https://billing.example/')).toThrow(TEXT.embedRedirectNotAllowed);
    expect(() => bridge.redirect('http://checkout.stripe.com/')).toThrow(TEXT.embedRedirectNotAllowed);
    expect(() => bridge.redirect('javascript:alert(1)')).toThrow(TEXT.embedInvalidUrl);
    expect(() => bridge.redirect('http://[bad')).toThrow(TEXT.embedInvalidUrl);
    expect(platform.posted.length).toBe(before);

    // Same origin: the frame itself navigates (or opens a tab); the admin is not asked.
    bridge.redirect('/embed/account');
    bridge.redirect(`${APP_ORIGIN}/embed/pricing`, { newContext: true });
    expect(assigned).toEqual([`${APP_ORIGIN}/embed/account`]);
    expect(opened).toEqual([`${APP_ORIGIN}/embed/pricing`]);
    expect(platform.posted.length).toBe(before);
  });

  it('without App Bridge (no app key or host) token requests and allowed redirects fail with "Request failed"', async () => {
    const { bridge } = setup({ app: 'none' });
    await expect(bridge.getSessionToken()).rejects.toThrow(TEXT.embedRequestFailed);
    expect(() => bridge.redirect('https://checkout.stripe.com/x')).toThrow(TEXT.embedRequestFailed);
    expect(() => bridge.redirect('https://evil.example/')).toThrow(TEXT.embedRedirectNotAllowed);
    expect(TEXT.embedRequestFailed).toBe('Request failed');
  });

  it('the embedded provider hands out the bridge token, forgets it on sign-out and redirects through it', async () => {
    const { platform, bridge } = setup();
    const provider = createEmbeddedProvider({ bridge, shop: 'demo.myshop.example' });
    expect(provider.kind).toBe('embedded');
    expect(provider.isAuthenticated()).toBe(true);
    const token = fakeJwt({ sub: 'u1', email: 'owner@demo.example', exp: Math.floor((now + 60_000) / 1000) });
    const p = Promise.all([provider.getToken(), provider.getToken()]);
    platform.respond({ sessionToken: token });
    await expect(p).resolves.toEqual([token, token]);
    expect(provider.getEmail()).toBe('owner@demo.example');
    expect(platform.dispatches('APP::SESSION_TOKEN::REQUEST')).toHaveLength(1);

    const changed = vi.fn();
    provider.subscribe(changed);
    await provider.signOut();
    expect(changed).toHaveBeenCalledTimes(1);
    expect(provider.getEmail()).toBeNull();
    void provider.getToken().catch(() => {});
    expect(platform.dispatches('APP::SESSION_TOKEN::REQUEST')).toHaveLength(2);

    provider.redirect('https://checkout.stripe.com/pay', { newContext: true });
    expect(platform.dispatches('APP::NAVIGATION::REDIRECT::REMOTE').at(-1)?.message.payload?.payload).toMatchObject({
      url: 'https://checkout.stripe.com/pay',
      newContext: true,
    });
  });
});
