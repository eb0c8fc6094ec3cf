// Foundation flow in Debian Chromium against the real server and the built front ends:
// sign up in the standalone build and land in My Teamspace; the embedded build inside the test parent frame
// gets a session token over postMessage and shows the same home.
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TEAMSPACE_NAME } from '../../contract/constants';
import { TEXT } from '../../contract/errors';
import {
  ensureBuild,
  launchBrowser,
  screenshot,
  serveParentPage,
  signUpThroughUi,
  startServer,
  uniqueEmail,
  type RunningServer,
} from './support';

const EMBED_KEY = 'e2e-app-key';
const EMBED_SECRET = 'e2e-app-secret-that-is-long-enough-0123456789';

describe('foundation in the browser', () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    ensureBuild();
    server = await startServer({ env: { EMBED_APP_KEY: EMBED_KEY, EMBED_APP_SECRET: EMBED_SECRET } });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  async function newPage(viewport = { width: 1280, height: 800 }) {
    const context = await browser.newContext({ viewport });
    contexts.push(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    return { page, errors };
  }

  it('redirects a signed-out visitor to /auth keeping the origin', async () => {
    const { page, errors } = await newPage();
    await page.goto(`${server.url}/glossaries`);
    await page.waitForURL(/\/auth\?origin=%2Fglossaries$/);
    await page.getByRole('heading', { name: 'Sign in to your account' }).waitFor();
    await screenshot(page, 'standalone-auth');
    expect(errors).toEqual([]);
  });

  it('signs up in the standalone build and lands in My Teamspace', async () => {
    const { page, errors } = await newPage();
    const email = uniqueEmail('standalone');
    await signUpThroughUi(page, server.url, { email, password: 'secret-pass-1' });
    expect(new URL(page.url()).pathname).toMatch(/^\/spaces\/[^/]+$/);
    const sidebar = page.getByTestId('sidebar');
    await sidebar.getByText(DEFAULT_TEAMSPACE_NAME).first().waitFor();
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
    expect(await sidebar.evaluate((el) => el.getBoundingClientRect().width)).toBe(208);
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

  it('the embedded build gets a session token from the parent frame and shows the same home', async () => {
    const parent = await serveParentPage({
      appUrl: `${server.url}/embed/`,
      key: EMBED_KEY,
      secret: EMBED_SECRET,
      shop: 'e2e-shop.example.com',
      sub: `user-${Date.now()}`,
      email: uniqueEmail('embedded'),
    });
    try {
      const { page, errors } = await newPage({ width: 1400, height: 860 });
      await page.goto(parent.url);
      const frame = page.frameLocator('iframe#app');
      await frame.getByTestId('sidebar').getByText(DEFAULT_TEAMSPACE_NAME).first().waitFor({ timeout: 30_000 });
      await frame.getByRole('heading', { name: 'Translation' }).waitFor();
      const requests = await page.evaluate(() => (window as unknown as { __tokenRequests: number }).__tokenRequests);
      expect(requests).toBeGreaterThanOrEqual(1);
      const appFrame = page.frames().find((f) => f.url().includes('/embed/'));
      expect(appFrame).toBeTruthy();
      expect(new URL(appFrame!.url()).pathname).toMatch(/^\/embed\/spaces\/[^/]+$/);
      await screenshot(page, 'embedded-home');
      expect(errors).toEqual([]);
    } finally {
      await parent.close();
    }
  });

  it('the embedded build shows an error when the parent frame never answers', async () => {
    const parent = await serveParentPage({ appUrl: `${server.url}/embed/`, key: EMBED_KEY, secret: EMBED_SECRET, mode: 'silent' });
    try {
      const { page } = await newPage();
      await page.goto(parent.url);
      const frame = page.frameLocator('iframe#app');
      await frame.getByRole('heading', { name: TEXT.genericTitle }).waitFor({ timeout: 30_000 });
      await screenshot(page, 'embedded-parent-silent');
    } finally {
      await parent.close();
    }
  });
});
