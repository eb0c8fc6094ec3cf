import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EMBED_TOKEN_EXPIRY_MARGIN_MS, PARENT_FRAME_TIMEOUT_MS } from '../../contract/constants';
import { TEXT } from '../../contract/errors';
import {
  createParentBridge,
  MSG_REDIRECT,
  MSG_TOKEN_REQUEST,
  MSG_TOKEN_RESPONSE,
  type ParentBridge,
} from '../../src/lib/auth/bridge';
import { createEmbeddedProvider } from '../../src/lib/auth/embedded';
import { fakeFrame, fakeJwt, fakeParent } from './helpers';

const PARENT_ORIGIN = 'https://admin.example';
let now = Date.parse('2025-01-01T00:00:00Z');

function setup(opts: { parentOrigin?: string | null } = {}) {
  const frame = fakeFrame();
  const parent = fakeParent();
  const bridge = createParentBridge({
    self: frame.self,
    parent,
    parentOrigin: opts.parentOrigin === undefined ? PARENT_ORIGIN : opts.parentOrigin,
    allowedRedirectOrigins: ['https://shop.example'],
    now: () => now,
  });
  const reply = (extra: Record<string, unknown>, id = parent.last()?.id) =>
    frame.deliver({ type: MSG_TOKEN_RESPONSE, id, ...extra }, parent, PARENT_ORIGIN);
  return { frame, parent, bridge, reply };
}

const tokenExpiringIn = (ms: number) => fakeJwt({ sub: 'u1', exp: Math.floor((now + ms) / 1000) });

describe('parent-frame bridge', () => {
  let bridges: ParentBridge[] = [];
  beforeEach(() => {
    vi.useFakeTimers();
    now = Date.parse('2025-01-01T00:00:00Z');
  });
  afterEach(() => {
    for (const b of bridges) b.dispose();
    bridges = [];
    vi.useRealTimers();
  });
  const make = (o?: Parameters<typeof setup>[0]) => {
    const s = setup(o);
    bridges.push(s.bridge);
    return s;
  };

  it('asks the parent with a request id and resolves with the token of the matching reply', async () => {
    const { parent, bridge, reply } = make();
    const p = bridge.getSessionToken();
    expect(parent.posted).toHaveLength(1);
    const msg = parent.last()!;
    expect(msg.type).toBe(MSG_TOKEN_REQUEST);
    expect(typeof msg.id).toBe('string');
    expect((msg.id as string).length).toBeGreaterThan(5);
    expect(parent.posted[0].targetOrigin).toBe(PARENT_ORIGIN);
    const token = tokenExpiringIn(60_000);
    reply({ token });
    await expect(p).resolves.toBe(token);
  });

  it('fails with the timeout text when the parent never answers within 3 s, and does not hang', async () => {
    const { bridge } = make();
    const p = bridge.getSessionToken();
    const settled = vi.fn();
    p.catch(settled);
    await vi.advanceTimersByTimeAsync(PARENT_FRAME_TIMEOUT_MS - 1);
    expect(settled).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await expect(p).rejects.toThrow(TEXT.embedTimeout);
    expect(TEXT.embedTimeout).toBe('request timeout');
  });

  it('a late reply after the timeout is ignored and a new request works', async () => {
    const { parent, bridge, reply } = make();
    const first = bridge.getSessionToken();
    first.catch(() => {});
    const firstId = parent.last()!.id;
    await vi.advanceTimersByTimeAsync(PARENT_FRAME_TIMEOUT_MS);
    await expect(first).rejects.toThrow(TEXT.embedTimeout);
    const second = bridge.getSessionToken();
    reply({ token: tokenExpiringIn(60_000) }, firstId);
    const token = tokenExpiringIn(120_000);
    reply({ token });
    await expect(second).resolves.toBe(token);
  });

  it('rejects a second call while one is pending with the busy text', async () => {
    const { bridge, reply } = make();
    const first = bridge.getSessionToken();
    await expect(bridge.getSessionToken()).rejects.toThrow(TEXT.embedBusy);
    expect(TEXT.embedBusy).toBe('Please wait for another async method to return before trying again.');
    const token = tokenExpiringIn(60_000);
    reply({ token });
    await expect(first).resolves.toBe(token);
  });

  it('caches the token and re-requests it once it is within 10 s of its exp', async () => {
    const { parent, bridge, reply } = make();
    const p1 = bridge.getSessionToken();
    const t1 = tokenExpiringIn(EMBED_TOKEN_EXPIRY_MARGIN_MS + 5_000);
    reply({ token: t1 });
    await expect(p1).resolves.toBe(t1);

    // Still more than 10 s before exp: served from the cache, no new message.
    await expect(bridge.getSessionToken()).resolves.toBe(t1);
    expect(parent.posted).toHaveLength(1);

    // 10 s before exp (and later) the token counts as expired.
    now += 5_000;
    const p2 = bridge.getSessionToken();
    expect(parent.posted).toHaveLength(2);
    const t2 = tokenExpiringIn(60_000);
    reply({ token: t2 });
    await expect(p2).resolves.toBe(t2);
  });

  it('re-requests a token that already expires within the margin when received', async () => {
    const { parent, bridge, reply } = make();
    const p1 = bridge.getSessionToken();
    const short = tokenExpiringIn(9_000);
    reply({ token: short });
    await expect(p1).resolves.toBe(short);
    const p2 = bridge.getSessionToken();
    expect(parent.posted).toHaveLength(2);
    reply({ token: tokenExpiringIn(60_000) });
    await p2;
  });

  it('ignores replies with another id and messages from other sources or origins', async () => {
    const { frame, parent, bridge, reply } = make();
    const p = bridge.getSessionToken();
    const settled = vi.fn();
    p.then(settled, settled);
    const id = parent.last()!.id;
    const stranger = fakeParent();
    reply({ token: tokenExpiringIn(60_000) }, 'another-id');
    frame.deliver({ type: MSG_TOKEN_RESPONSE, id, token: tokenExpiringIn(60_000) }, stranger, PARENT_ORIGIN);
    frame.deliver({ type: MSG_TOKEN_RESPONSE, id, token: tokenExpiringIn(60_000) }, parent, 'https://evil.example');
    frame.deliver({ type: 'something-else', id, token: 'x' }, parent, PARENT_ORIGIN);
    await vi.advanceTimersByTimeAsync(10);
    expect(settled).not.toHaveBeenCalled();
    const good = tokenExpiringIn(60_000);
    reply({ token: good });
    await expect(p).resolves.toBe(good);
  });

  it('maps an error reply or a reply without a token to the token-failed text', async () => {
    const { bridge, reply } = make();
    const p1 = bridge.getSessionToken();
    reply({ error: 'session_expired' });
    await expect(p1).rejects.toThrow(TEXT.embedTokenFailed);
    const p2 = bridge.getSessionToken();
    reply({});
    await expect(p2).rejects.toThrow(TEXT.embedTokenFailed);
    const p3 = bridge.getSessionToken();
    reply({ token: '' });
    await expect(p3).rejects.toThrow(TEXT.embedTokenFailed);
  });

  it('maps unsupported auth types to the unsupported text, locally and from the parent', async () => {
    const { bridge, reply } = make();
    await expect(bridge.request('oauth-code')).rejects.toThrow(TEXT.embedUnsupportedAuth);
    const p = bridge.getSessionToken();
    reply({ error: 'unsupported_auth_type' });
    await expect(p).rejects.toThrow(TEXT.embedUnsupportedAuth);
  });

  it('fails with Request failed when there is no parent frame', async () => {
    const frame = fakeFrame();
    const bridge = createParentBridge({ self: frame.self, parent: null });
    bridges.push(bridge);
    await expect(bridge.getSessionToken()).rejects.toThrow(TEXT.embedRequestFailed);
  });

  it('validates redirect URLs', () => {
    const { frame, parent, bridge } = make();
    expect(() => bridge.redirect('http://')).toThrow(TEXT.embedInvalidUrl);
    expect(() => bridge.redirect('javascript:alert(1)')).toThrow(TEXT.embedInvalidUrl);
    expect(() => bridge.redirect('https://elsewhere.example/x')).toThrow(TEXT.embedRedirectNotAllowed);
    bridge.redirect('/embed/account');
    expect(frame.assigned).toEqual(['https://app.example/embed/account']);
    bridge.redirect('https://shop.example/admin/apps');
    expect(parent.last()).toMatchObject({ type: MSG_REDIRECT, url: 'https://shop.example/admin/apps' });
  });
});

describe('embedded auth provider', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shares one pending bridge request between concurrent getToken calls', async () => {
    now = Date.now();
    const { bridge, parent, reply } = setup();
    const provider = createEmbeddedProvider({ bridge, shop: 'shop.example' });
    const a = provider.getToken();
    const b = provider.getToken();
    expect(parent.posted).toHaveLength(1);
    const token = fakeJwt({ sub: 'u1', email: 'me@shop.example', exp: Math.floor(now / 1000) + 600 });
    reply({ token });
    await expect(Promise.all([a, b])).resolves.toEqual([token, token]);
    expect(provider.getEmail()).toBe('me@shop.example');
    expect(provider.isAuthenticated()).toBe(true);
    bridge.dispose();
  });
});
