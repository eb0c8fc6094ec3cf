// Foundation flow in Debian Chromium against the real server and the built front ends:
// sign up in the standalone build and land in My Teamspace; the embedded build inside the test admin page
// (tests/e2e/parent.html, the platform's side of App Bridge) gets a session token and shows the same home.
// More of the embedded build: tests/e2e/embedded.test.ts.
import { describe, expect, it } from 'vitest';
import { defaultTeamspaceName } from '../../contract/constants';
import { TEXT } from '../../contract/errors';
import { browserSuite, screenshot, signUpThroughUi, startParentServer, uniqueEmail, type ParentServer } from './support';

const EMBED_KEY = 'e2e-app-key';
const EMBED_SECRET = 'e2e-app-secret-that-is-long-enough-0123456789';

describe('foundation in the browser', () => {
  let admin: ParentServer;
  const suite = browserSuite({
    before: async () => {
      admin = await startParentServer();
    },
    server: () => ({ env: { EMBED_APP_KEY: EMBED_KEY, EMBED_APP_SECRET: EMBED_SECRET, EMBED_ADMIN_ORIGINS: admin.origin } }),
    after: async () => {
      await admin?.close();
    },
    // The admin page is https with a self-signed certificate.
    context: { viewport: { width: 1280, height: 800 }, ignoreHTTPSErrors: true },
  });
  const newPage = (viewport?: { width: number; height: number }) => suite.newPage(viewport ? { viewport } : {});

  it('redirects a signed-out visitor to /auth keeping the origin', async () => {
    const { server } = suite;
    const { page, errors } = await newPage();
    await page.goto(`${server.url}/glossaries`);
    await page.waitForURL(/\/auth\?origin=%2Fglossaries$/);
    await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
    await screenshot(page, 'standalone-auth');
    expect(errors).toEqual([]);
  });

  it('signs up in the standalone build and lands in the first Teamspace, named after the user', async () => {
    const { server } = suite;
    const { page, errors } = await newPage();
    const email = uniqueEmail('standalone');
    await signUpThroughUi(page, server.url, { email, password: 'secret-pass-1' });
    expect(new URL(page.url()).pathname).toMatch(/^\/spaces\/[^/]+$/);
    const sidebar = page.getByTestId('sidebar');
    await sidebar.getByText(defaultTeamspaceName(email)).first().waitFor();
    await sidebar.getByText(email).waitFor();
    await page.getByRole('heading', { name: 'Translation' }).waitFor();
    await screenshot(page, 'standalone-home');

    // The session survives a reload, and an unprefixed route goes to the same space.
    const home = new URL(page.url()).pathname;
    await page.goto(`${server.url}/voices`);
    await page.waitForURL(`${server.url}${home}/voices`);
    await page.goto(`${server.url}/`);
    await page.waitForURL(`${server.url}${home}`);

    // Collapsing the sidebar is remembered across reloads (60 px, 208 px when locked).
    // The width animates (CSS transition): wait for the state, never read it mid-way.
    await page.waitForFunction(() => document.querySelector('[data-testid=sidebar]')?.getBoundingClientRect().width === 208);
    await page.getByRole('button', { name: 'Collapse sidebar' }).click();
    await page.mouse.move(900, 400);
    await page.waitForFunction(() => document.querySelector('[data-testid=sidebar]')?.getBoundingClientRect().width === 60);
    await page.reload();
    await sidebar.waitFor();
    await page.mouse.move(900, 400);
    expect(await sidebar.getAttribute('data-locked')).toBe('false');
    await screenshot(page, 'standalone-home-collapsed');

    await page.goto(`${server.url}/account`);
    await page.getByText(email).first().waitFor();
    await screenshot(page, 'standalone-account');

    await page.goto(`${server.url}/no/such/page`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('the embedded build gets a session token from the platform through App Bridge and shows the same home', async () => {
    const { server } = suite;
    const { page, errors } = await newPage({ width: 1400, height: 860 });
    await page.goto(
      admin.pageUrl({
        appUrl: `${server.url}/embed/`,
        key: EMBED_KEY,
        secret: EMBED_SECRET,
        shop: 'e2e-shop.example.com',
        sub: `user-${Date.now()}`,
        email: uniqueEmail('embedded'),
      }),
    );
    const frame = page.frameLocator('iframe#app');
    await frame.getByRole('button', { name: /^Teamspace: / }).first().waitFor({ timeout: 30_000 });
    await frame.getByRole('heading', { name: 'Translation' }).waitFor();
    const platform = await page.evaluate(() => (window as unknown as { __platform: { tokenRequests: number; apiKeys: string[] } }).__platform);
    expect(platform.tokenRequests).toBeGreaterThanOrEqual(1);
    expect(platform.apiKeys).toEqual([EMBED_KEY]);
    const appFrame = page.frames().find((f) => f.url().includes('/embed/'));
    expect(appFrame).toBeTruthy();
    // The frame's URL reaches the test by its own browser event: poll it rather than read it once.
    await expect.poll(() => new URL(appFrame!.url()).pathname).toMatch(/^\/embed\/spaces\/[^/]+$/);
    await screenshot(page, 'embedded-home');
    expect(errors).toEqual([]);
  });

  it('the embedded build shows an error when the platform never answers', async () => {
    const { server } = suite;
    const { page } = await newPage();
    await page.goto(admin.pageUrl({ appUrl: `${server.url}/embed/`, key: EMBED_KEY, secret: EMBED_SECRET, mode: 'silent' }));
    const frame = page.frameLocator('iframe#app');
    await frame.getByRole('heading', { name: TEXT.genericTitle }).waitFor({ timeout: 30_000 });
    await frame.getByText(TEXT.embedTimeout, { exact: true }).waitFor();
    await screenshot(page, 'embedded-parent-silent');
  });
});
