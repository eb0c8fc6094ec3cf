// The embedded build in Debian Chromium, framed by tests/e2e/parent.html: a test admin page that plays the ad
// platform's side of App Bridge (over https, on its own origin) and mints session tokens as the platform does.
// Covers: the first sign-in creating the account on first sight with storage and cookies unavailable in the
// iframe, the frame-ancestors policy, a token renewal after expiry, a silent and a refusing platform, a token
// for another app key, and redirects out of the iframe to allowed and forbidden URLs.
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTeamspaceName, PARENT_FRAME_TIMEOUT_MS, EMBED_TOKEN_EXPIRY_MARGIN_MS } from '../../contract/constants';
import { TEXT } from '../../contract/errors';
import {
  ensureBuild,
  launchBrowser,
  screenshot,
  startParentServer,
  startServer,
  type ParentPageOptions,
  type ParentServer,
  type RunningServer,
} from './support';

const KEY = 'e2e-embedded-app-key';
const SECRET = 'e2e-embedded-app-secret-0123456789abcdef';
const SHOP = 'e2e-embedded-shop.example.com';

interface PlatformState {
  initialized: boolean;
  tokenRequests: number;
  tokens: { token: string; iat: number; exp: number; at: number }[];
  redirects: { type: string; url: string | null; path: string | null; newContext: boolean }[];
  apiKeys: string[];
}

interface ApiCall {
  url: string;
  authorization: string | undefined;
  cookie: string | undefined;
  at: number;
  status?: number;
}

describe('embedded build inside the platform admin', () => {
  let server: RunningServer;
  let admin: ParentServer;
  let strangerAdmin: ParentServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  let n = 0;

  beforeAll(async () => {
    ensureBuild();
    admin = await startParentServer();
    strangerAdmin = await startParentServer();
    server = await startServer({
      env: {
        EMBED_APP_KEY: KEY,
        EMBED_APP_SECRET: SECRET,
        EMBED_ADMIN_ORIGINS: admin.origin,
        EMBED_REDIRECT_ORIGINS: 'https://checkout.stripe.com, https://*.billing.example',
      },
    });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
    await admin?.close();
    await strangerAdmin?.close();
  });

  /** Opens the admin page framing the app; records the app's API calls. */
  async function open(opts: Partial<ParentPageOptions> = {}, via: ParentServer = admin) {
    // Self-signed admin certificate; inside the app frame storage throws and cookies are dropped, the way
    // browsers treat a third-party iframe when third-party cookies are blocked.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ignoreHTTPSErrors: true });
    contexts.push(context);
    await context.addInitScript(() => {
      if (!location.pathname.startsWith('/embed')) return;
      const deny = () => {
        throw new DOMException('Access is denied for this document.', 'SecurityError');
      };
      Object.defineProperty(window, 'localStorage', { configurable: true, get: deny });
      Object.defineProperty(window, 'sessionStorage', { configurable: true, get: deny });
      Object.defineProperty(Document.prototype, 'cookie', { configurable: true, get: () => '', set: () => {} });
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const calls: ApiCall[] = [];
    const byRequest = new Map<Request, ApiCall>();
    page.on('request', (req) => {
      if (!req.url().startsWith(`${server.url}/api/`)) return;
      const h = req.headers();
      const call: ApiCall = { url: req.url(), authorization: h.authorization, cookie: h.cookie, at: Date.now() };
      calls.push(call);
      byRequest.set(req, call);
    });
    page.on('response', (res) => {
      const call = byRequest.get(res.request());
      if (call) call.status = res.status();
    });
    n += 1;
    const url = via.pageUrl({
      appUrl: `${server.url}/embed/`,
      key: KEY,
      secret: SECRET,
      shop: SHOP,
      sub: `admin-user-${Date.now().toString(36)}-${n}`,
      ...opts,
    });
    await page.goto(url);
    const frame = page.frameLocator('iframe#app');
    const platform = () => page.evaluate(() => (window as unknown as { __platform: PlatformState }).__platform);
    const appFrame = () => page.frames().find((f) => f.url().startsWith(`${server.url}/embed/`));
    return { page, frame, errors, calls, platform, appFrame };
  }

  async function waitForHome(frame: ReturnType<Page['frameLocator']>) {
    // Inside the admin the app shows no sidebar of its own: the slim bar with the Teamspace switcher.
    await frame.getByRole('button', { name: /^Teamspace: / }).first().waitFor({ timeout: 30_000 });
    await frame.getByRole('heading', { name: 'Translation' }).waitFor();
  }

  const bearer = (call: ApiCall) => call.authorization?.replace(/^Bearer /, '');

  it('first sign-in creates the account on first sight, with no cookie or storage in the iframe', async () => {
    const sub = `first-${Date.now().toString(36)}`;
    const { page, frame, errors, calls, platform, appFrame } = await open({ sub });
    await waitForHome(frame);
    // The account is the shop user's, created on the first request. Inside the shop's admin the app opens on the
    // shop's Teamspace (named after the shop until its Admin API tells the shop's name).
    const email = `${sub}@${SHOP}`;
    await frame.getByRole('button', { name: `Teamspace: ${SHOP.split('.')[0]}` }).first().waitFor();
    const state = await platform();
    expect(state.initialized).toBe(true);
    expect(state.apiKeys).toEqual([KEY]);
    expect(state.tokenRequests).toBeGreaterThanOrEqual(1);
    // Every API call carried a token the platform minted, and no cookie.
    const minted = new Set(state.tokens.map((t) => t.token));
    expect(calls.length).toBeGreaterThan(1);
    for (const call of calls) {
      expect(minted.has(bearer(call) ?? '')).toBe(true);
      expect(call.cookie).toBeUndefined();
    }
    const current = calls.find((c) => c.url.includes('/api/users/current'));
    expect(current?.status).toBe(200);
    // Storage really was unavailable inside the frame.
    const storage = await appFrame()!.evaluate(() => {
      try {
        return typeof window.localStorage.getItem('x');
      } catch (e) {
        return (e as Error).name;
      }
    });
    expect(storage).toBe('SecurityError');
    await screenshot(page, 'embedded-first-sign-in');

    // The same shop user again, in a fresh browser: the same account, not a second one.
    const firstUser = await (await fetch(`${server.url}/api/users/current`, { headers: { authorization: `Bearer ${state.tokens.at(-1)!.token}` } })).json();
    // Their own first Teamspace is named after them, and stays theirs.
    const spaces = (await (await fetch(`${server.url}/api/space/list`, { headers: { authorization: `Bearer ${state.tokens.at(-1)!.token}` } })).json()) as Array<{ name: string; is_default: boolean; shop_domain?: string | null }>;
    expect(spaces.map((x) => [x.name, x.is_default, x.shop_domain ?? null])).toEqual([
      [defaultTeamspaceName(email), true, null],
      [SHOP.split('.')[0], false, SHOP],
    ]);
    const again = await open({ sub });
    await waitForHome(again.frame);
    const secondToken = (await again.platform()).tokens.at(-1)!.token;
    const secondUser = await (await fetch(`${server.url}/api/users/current`, { headers: { authorization: `Bearer ${secondToken}` } })).json();
    expect(secondUser.id).toBe(firstUser.id);
    expect(secondUser.email).toBe(email);
    expect(errors).toEqual([]);
  });

  it('is served with a frame-ancestors policy: the allowed admin frames it, another origin cannot', async () => {
    const res = await fetch(`${server.url}/embed/`);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp.endsWith(`; frame-ancestors ${admin.origin}`)).toBe(true);
    expect(csp).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).toContain(`<meta name="embed-app-key" content="${KEY}" />`);

    const context = await browser.newContext({ ignoreHTTPSErrors: true });
    contexts.push(context);
    const page = await context.newPage();
    const refused = page.waitForEvent('console', {
      predicate: (m) => m.text().includes('frame-ancestors') && m.text().includes(server.url),
      timeout: 30_000,
    });
    await page.goto(strangerAdmin.pageUrl({ appUrl: `${server.url}/embed/`, key: KEY, secret: SECRET, shop: SHOP }));
    await refused;
    const state = await page.evaluate(() => (window as unknown as { __platform: PlatformState }).__platform);
    expect(state.initialized).toBe(false);
    expect(state.tokenRequests).toBe(0);
  });

  it('renews the session token once it is within 10 s of expiry, and API calls use the new one', async () => {
    // 12 s tokens: usable for 2 s, then treated as expired.
    const ttl = EMBED_TOKEN_EXPIRY_MARGIN_MS / 1000 + 2;
    const { page, frame, calls, platform, errors } = await open({ ttl });
    await waitForHome(frame);
    // Wait until the latest token is inside its expiry margin; that token is the old one.
    const handle = await page.waitForFunction(
      (margin) => {
        const p = (window as unknown as { __platform: PlatformState }).__platform;
        const last = p.tokens[p.tokens.length - 1];
        return !!last && Date.now() > last.exp * 1000 - margin + 100 ? { token: last.token, exp: last.exp, requests: p.tokenRequests } : false;
      },
      EMBED_TOKEN_EXPIRY_MARGIN_MS,
      { polling: 100, timeout: 30_000 },
    );
    const old = (await handle.jsonValue()) as { token: string; exp: number; requests: number };
    // Any API call now needs a token: searching the translation list asks the server again.
    await frame.getByPlaceholder('Search by name').fill('renewal-check');
    const isCheck = (c: ApiCall) => c.url.includes('/api/project/paginated') && c.url.includes('name=renewal-check');
    await expect.poll(() => calls.some((c) => isCheck(c) && c.status === 200), { timeout: 30_000 }).toBe(true);
    const after = await platform();
    expect(after.tokenRequests).toBeGreaterThan(old.requests);
    // Tokens minted after the old one, in the platform's minting order (two minted within one second share an expiry
    // stamp, so the stamp cannot order them: under load a renewal can land in the old token's second).
    const oldAt = after.tokens.findIndex((t) => t.token === old.token);
    expect(oldAt).toBeGreaterThanOrEqual(0);
    const renewed = after.tokens.slice(oldAt + 1);
    expect(renewed.length).toBeGreaterThanOrEqual(1);
    // The frame's requests arrive in the order it sent them: the search and everything after it was sent once
    // the old token was inside its margin, so each must carry a renewed token. (Requests sent just before the
    // search may still be reported after it by the clock, so order is used, not time.)
    const later = calls.slice(calls.findIndex(isCheck));
    expect(later.length).toBeGreaterThan(0);
    const fresh = new Set(renewed.map((t) => t.token));
    for (const call of later) {
      expect(bearer(call)).not.toBe(old.token);
      expect(fresh.has(bearer(call) ?? '')).toBe(true);
    }
    await expect.poll(() => later.every((c) => c.status === 200)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('a platform that never answers: the request times out after 3 s, the error shows, and Refresh asks again', async () => {
    const { page, frame, platform, calls } = await open({ mode: 'silent' });
    await frame.getByRole('heading', { name: TEXT.genericTitle }).waitFor({ timeout: 30_000 });
    await frame.getByText(TEXT.embedTimeout, { exact: true }).waitFor();
    const first = await platform();
    expect(first.initialized).toBe(true);
    expect(first.tokenRequests).toBe(1);
    // Nothing reached the API without a token.
    expect(calls).toEqual([]);
    await screenshot(page, 'embedded-platform-silent');
    // Refresh reloads the frame (the launch parameters are gone from its address and storage is blocked: the
    // admin is found again from the frame's ancestor) and asks again.
    await frame.getByRole('button', { name: TEXT.refreshPage }).click();
    await page.waitForFunction(() => (window as unknown as { __platform: PlatformState }).__platform.tokenRequests >= 2, null, {
      timeout: 30_000,
    });
    await frame.getByText(TEXT.embedTimeout, { exact: true }).waitFor({ timeout: PARENT_FRAME_TIMEOUT_MS * 5 });
  });

  it('a platform that answers without a token: the spec text shows', async () => {
    const { page, frame } = await open({ mode: 'refuse' });
    await frame.getByText(TEXT.embedTokenFailed, { exact: true }).waitFor({ timeout: 30_000 });
    await screenshot(page, 'embedded-platform-refuses');
  });

  it('a token for another app key is refused by the server and the error shows', async () => {
    const { page, frame, calls, platform, errors } = await open({ tokenKey: 'another-app-key' });
    await frame.getByRole('heading', { name: TEXT.genericTitle }).waitFor({ timeout: 30_000 });
    await frame.getByText('Invalid token', { exact: true }).waitFor();
    const state = await platform();
    const current = calls.find((c) => c.url.includes('/api/users/current'));
    expect(current).toBeTruthy();
    expect(state.tokens.map((t) => t.token)).toContain(bearer(current!));
    await expect.poll(() => current!.status).toBe(401);
    expect(calls.every((c) => c.status === undefined || c.status === 401)).toBe(true);
    await screenshot(page, 'embedded-wrong-app-key');
    expect(errors).toEqual([]);
  });

  it('redirects out of the iframe through App Bridge to allowed URLs and refuses others', async () => {
    const { page, frame, platform, appFrame, errors } = await open();
    await waitForHome(frame);
    const home = appFrame()!.url();
    const clickLink = async (href: string, target?: string) => {
      await appFrame()!.evaluate(
        ([h, t]) => {
          document.getElementById('probe-link')?.remove();
          const a = document.createElement('a');
          a.id = 'probe-link';
          a.href = h;
          if (t) a.target = t;
          a.textContent = 'Probe link';
          a.style.cssText = 'position:fixed;bottom:8px;right:8px;z-index:100000;background:#fff;padding:4px';
          document.body.append(a);
        },
        [href, target ?? ''] as const,
      );
      await frame.locator('#probe-link').click();
    };
    const redirects = async () => (await platform()).redirects;

    // A checkout URL (allowed by EMBED_REDIRECT_ORIGINS): the admin window is sent there.
    await clickLink('https://checkout.stripe.com/c/pay/cs_test_a1b2c3');
    await expect.poll(redirects).toEqual([{ type: 'REMOTE', url: 'https://checkout.stripe.com/c/pay/cs_test_a1b2c3', path: null, newContext: false }]);
    // A wildcard origin, in a new window.
    await clickLink('https://portal.billing.example/session/42', '_blank');
    await expect.poll(async () => (await redirects()).at(-1)).toEqual({
      type: 'REMOTE',
      url: 'https://portal.billing.example/session/42',
      path: null,
      newContext: true,
    });
    const count = (await redirects()).length;

    // Anything else is refused with the spec's text; the admin is not asked and the app stays where it was.
    await clickLink('https://evil.example/phish');
    await frame.getByText(TEXT.embedRedirectNotAllowed).first().waitFor();
    await screenshot(page, 'embedded-redirect-refused');
    expect((await redirects()).length).toBe(count);
    expect(appFrame()!.url()).toBe(home);
    expect(errors).toEqual([]);
  });
});
