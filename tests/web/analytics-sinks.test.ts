// The analytics sinks, all off by default and on by configuration: the tag-manager data layer, the
// product-analytics sink (batches of 50, a 5 s flush, identification by id + e-mail + email type) and session
// replay (1% of sessions, 30 min idle time-out, 24 h at most, batches of 1000 flushed every 10 s, gzip bodies);
// a failing or blocked service changes nothing for the caller. The local debug flag logs events.
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { analytics, startTagManager, TAG_MANAGER_DEFAULT_URL, track } from '../../src/lib/analytics';
import { SESSION_REPLAY, sessionReplayFromEnv, startSessionReplay } from '../../src/lib/session-replay';
import { PRODUCT_ANALYTICS, productAnalyticsFromEnv, startProductAnalytics } from '../../src/lib/product-analytics';

afterEach(() => vi.useRealTimers());

describe('product analytics sink', () => {
  it('is off unless configured', () => {
    expect(productAnalyticsFromEnv({})).toBeNull();
    const s = productAnalyticsFromEnv({ VITE_PRODUCT_ANALYTICS_URL: 'http://127.0.0.1:9/collect' });
    expect(s).not.toBeNull();
    s?.stop();
  });

  it('sends 50 events a batch, the rest on the 5 s flush, identified by id, e-mail and email type', async () => {
    vi.useFakeTimers();
    const bodies: { events: Record<string, unknown>[] }[] = [];
    const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
      bodies.push(JSON.parse(String(init?.body)));
      return new Response(null, { status: 200 });
    });
    const sink = startProductAnalytics({ url: 'http://collector.test/batch', fetch: fetch as unknown as typeof globalThis.fetch });
    sink.identify({ id: 'u1', email: 'ana@example.com', email_type: 'password' });
    for (let i = 0; i < 53; i++) analytics.subscriptionPageOpened(`s${i}`);
    await vi.waitFor(() => expect(bodies).toHaveLength(1));
    expect(bodies[0].events).toHaveLength(PRODUCT_ANALYTICS.batchSize);
    expect(bodies[0].events[0]).toMatchObject({ event: 'subscriptionPageOpened', user_id: 'u1', user_properties: { email: 'ana@example.com', email_type: 'password' } });
    await vi.advanceTimersByTimeAsync(PRODUCT_ANALYTICS.flushMs);
    expect(bodies).toHaveLength(2);
    expect(bodies[1].events).toHaveLength(3);
    expect(PRODUCT_ANALYTICS.timeoutMs).toBe(90_000);
    sink.stop();
  });

  it('a failing or throwing service changes nothing for the user', async () => {
    window.dataLayer = [];
    const failing = startProductAnalytics({ url: 'http://collector.test/down', batchSize: 1, fetch: (async () => { throw new TypeError('blocked by client'); }) as typeof fetch });
    expect(() => track('signUpPageShown', {})).not.toThrow();
    await expect(failing.flush()).resolves.toBeUndefined();
    failing.stop();
    // The tag-manager data layer still got the event.
    const layer = (globalThis as unknown as { dataLayer: { event?: string }[] }).dataLayer;
    expect(layer.some((e) => e.event === 'signUpPageShown')).toBe(true);
  });
});

describe('tag-manager data layer', () => {
  it('is off by default: nothing is created or pushed; a configured container turns it on and loads its script', () => {
    delete (window as { dataLayer?: unknown[] }).dataLayer;
    analytics.signUpPageShown();
    expect(window.dataLayer).toBeUndefined();
    expect(startTagManager({})).toBe(false);
    expect(window.dataLayer).toBeUndefined();

    // The page's <head> as the loader sees it (the test DOM does not fetch scripts).
    const appended: HTMLScriptElement[] = [];
    const doc = { createElement: (t: string) => document.createElement(t), head: { appendChild: (el: HTMLScriptElement) => appended.push(el) } } as unknown as Document;
    expect(startTagManager({ VITE_TAG_MANAGER_ID: 'GTM-TEST1' }, doc)).toBe(true);
    expect(window.dataLayer?.[0]).toMatchObject({ event: 'gtm.js' });
    const script = appended[0]!;
    expect(script.src).toBe(`${TAG_MANAGER_DEFAULT_URL}?id=GTM-TEST1`);
    expect(script.async).toBe(true);
    analytics.subscriptionPageOpened('sidebar');
    expect(window.dataLayer).toContainEqual({ event: 'subscriptionPageOpened', source: 'sidebar' });
    delete (window as { dataLayer?: unknown[] }).dataLayer;
  });

  it('the local debug flag logs each event', () => {
    const log = vi.spyOn(console, 'debug').mockImplementation(() => {});
    analytics.login('password');
    expect(log).not.toHaveBeenCalled();
    localStorage.setItem('analytics_debug', '1');
    analytics.login('password');
    expect(log).toHaveBeenCalledWith('[analytics]', expect.objectContaining({ event: 'login', properties: { method: 'password' } }));
    log.mockRestore();
  });
});

/** A small deterministic generator (LCG) for sampling over many sessions. */
function seeded(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

function memoryStore(): Pick<Storage, 'getItem' | 'setItem'> & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return { data, getItem: (k) => data.get(k) ?? null, setItem: (k, v) => void data.set(k, v) };
}

type ReplayBody = { session_id: string; user: unknown; events: { type: string; t: number; data: Record<string, unknown> }[] };

function collector() {
  const bodies: ReplayBody[] = [];
  const headers: Record<string, string>[] = [];
  const fetch = vi.fn(async (_url: string | URL | Request, init?: RequestInit) => {
    const h = init?.headers as Record<string, string>;
    headers.push(h);
    const raw = Buffer.from(init?.body as ArrayBuffer);
    bodies.push(JSON.parse((h['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')));
    return new Response(null, { status: 200 });
  });
  return { bodies, headers, fetch: fetch as unknown as typeof globalThis.fetch };
}

describe('session replay', () => {
  it('is off unless configured', () => {
    expect(sessionReplayFromEnv({})).toBeNull();
    expect(SESSION_REPLAY).toMatchObject({ sampleRate: 0.01, maxSessionMs: 24 * 3600_000, idleTimeoutMs: 30 * 60_000, batchSize: 1000, flushMs: 10_000 });
  });

  it('records 1% of sessions', () => {
    const random = seeded(42);
    let sampled = 0;
    const N = 20_000;
    for (let i = 0; i < N; i++) {
      const r = startSessionReplay({ url: 'http://replay.test/u', random, storage: memoryStore(), fetch: (async () => new Response()) as typeof fetch });
      if (r.sampled) sampled++;
      r.stop();
    }
    expect(sampled / N).toBeGreaterThan(0.008);
    expect(sampled / N).toBeLessThan(0.012);
  });

  it('an unsampled session sends nothing and listens to nothing', async () => {
    const c = collector();
    const r = startSessionReplay({ url: 'http://replay.test/u', random: () => 0.5, storage: memoryStore(), fetch: c.fetch });
    expect(r.sampled).toBe(false);
    document.body.click();
    await r.flush();
    expect(c.fetch).not.toHaveBeenCalled();
    r.stop();
  });

  it('a recorded session: gzip batches of 1000 and a 10 s flush; clicks and inputs by element path, never what is typed', async () => {
    vi.useFakeTimers();
    const c = collector();
    const r = startSessionReplay({ url: 'http://replay.test/u', random: () => 0.001, storage: memoryStore(), fetch: c.fetch });
    expect(r.sampled).toBe(true);
    r.identify({ id: 'u1', email: 'ana@example.com', email_type: 'password' });
    const input = document.createElement('input');
    input.id = 'search';
    input.value = 'my secret words';
    document.body.appendChild(input);
    input.dispatchEvent(new Event('change', { bubbles: true }));
    const button = document.createElement('button');
    button.setAttribute('data-item', 'settings_members');
    document.body.appendChild(button);
    for (let i = 0; i < 1100; i++) button.click();
    await vi.waitFor(() => expect(c.bodies).toHaveLength(1));
    expect(c.headers[0]).toMatchObject({ 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(c.bodies[0]!.events).toHaveLength(1000);
    expect(c.bodies[0]!.user).toEqual({ id: 'u1', email: 'ana@example.com', email_type: 'password' });
    expect(c.bodies[0]!.events[0]!.type).toBe('meta');
    expect(c.bodies[0]!.events.find((e) => e.type === 'input')!.data).toEqual({ path: 'input#search' });
    expect(c.bodies[0]!.events.find((e) => e.type === 'click')!.data.path).toMatch(/button\[data-item=settings_members\]$/);
    expect(JSON.stringify(c.bodies)).not.toContain('secret');
    await vi.advanceTimersByTimeAsync(SESSION_REPLAY.flushMs);
    await vi.waitFor(() => expect(c.bodies).toHaveLength(2));
    expect(c.bodies[1]!.events.length).toBeGreaterThan(90);
    r.stop();
    input.remove();
    button.remove();
  });

  it('30 minutes idle start a new session (sampled afresh); nothing is recorded past 24 hours', async () => {
    let t = 1_000_000;
    const store = memoryStore();
    const c = collector();
    const draws = [0.001, 0.001, 0.001];
    const r = startSessionReplay({ url: 'http://replay.test/u', random: () => draws.shift() ?? 0.001, now: () => t, storage: store, fetch: c.fetch });
    const first = r.sessionId;
    document.body.click();
    t += SESSION_REPLAY.idleTimeoutMs - 1000;
    document.body.click();
    expect(r.sessionId).toBe(first);
    t += SESSION_REPLAY.idleTimeoutMs + 1;
    document.body.click();
    expect(r.sessionId).not.toBe(first);
    await r.flush();
    const ids = new Set(c.bodies.map((b) => b.session_id));
    expect(ids).toEqual(new Set([first, r.sessionId]));
    // Keep the session alive for a day: after 24 h nothing more is recorded.
    const start = t;
    while (t - start < SESSION_REPLAY.maxSessionMs) {
      t += 20 * 60_000;
      document.body.click();
    }
    await r.flush();
    const before = c.bodies.reduce((n, b) => n + b.events.length, 0);
    t += 60_000;
    document.body.click();
    await r.flush();
    expect(c.bodies.reduce((n, b) => n + b.events.length, 0)).toBe(before);
    r.stop();
  });

  it('a failing or blocked endpoint changes nothing for the user', async () => {
    const r = startSessionReplay({
      url: 'http://replay.test/down', random: () => 0, storage: memoryStore(),
      fetch: (async () => { throw new TypeError('Failed to fetch (blocked by client)'); }) as typeof fetch,
    });
    const clicked = vi.fn();
    const b = document.createElement('button');
    b.addEventListener('click', clicked);
    document.body.appendChild(b);
    expect(() => b.click()).not.toThrow();
    expect(clicked).toHaveBeenCalledTimes(1);
    await expect(r.flush()).resolves.toBeUndefined();
    r.stop();
    b.remove();
  });
});
