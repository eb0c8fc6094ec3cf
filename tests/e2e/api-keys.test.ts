// API keys in Debian Chromium against the real server and the built front end: a Business user creates a key on
// the account page (shown once), the key works over HTTP as that user, and once revoked in the page it is refused.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuild, launchBrowser, newContext, screenshot, signUpThroughUi, startServer, uniqueEmail, type RunningServer } from './support';

const PASSWORD = 'secret-pass-1';

async function apiJson(server: RunningServer, method: string, path: string, token: string | null, body?: unknown) {
  const r = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
}

describe('API keys in the browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let adminToken: string;
  const errors: string[] = [];

  beforeAll(async () => {
    ensureBuild();
    server = await startServer();
    // The first account of an install is a superuser: it grants the Business plan to the customer below.
    const admin = uniqueEmail('admin');
    const s = await apiJson(server, 'POST', '/api/auth/sign-up', null, { email: admin, password: PASSWORD });
    adminToken = s.json.access_token;
    expect((await apiJson(server, 'POST', '/api/users', adminToken, { email: admin })).status).toBe(201);
    browser = await launchBrowser();
    context = await newContext(browser, { viewport: { width: 1366, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
  });

  afterAll(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    if (server && errors.length > 0) console.error(server.logs().slice(-4000));
    await server?.stop();
  });

  it('a Business user creates a key, uses it over HTTP, and revokes it', async () => {
    const email = uniqueEmail('apikeys');
    await signUpThroughUi(page, server.url, { email, password: PASSWORD });
    const users = await apiJson(server, 'GET', `/api/admin/users?email=${encodeURIComponent(email)}`, adminToken);
    const id = (users.json as Array<{ id: string; email: string }>).find((u) => u.email === email)!.id;
    expect((await apiJson(server, 'PATCH', `/api/admin/users/${id}`, adminToken, { plan: 'business' })).status).toBe(200);

    await page.goto(`${server.url}/account`);
    const section = page.locator('.Polaris-Layout__AnnotatedSection', { has: page.getByRole('heading', { name: 'API keys' }) });
    await section.getByLabel('Key name').fill('Build server');
    await section.getByRole('button', { name: 'Create key' }).click();
    const shown = section.getByTestId('new-api-key');
    await shown.waitFor();
    const key = (await shown.textContent())!.trim();
    expect(key).toMatch(/^dsk_/);
    await section.getByRole('listitem').filter({ hasText: 'Build server' }).waitFor();
    await screenshot(page, 'api-keys-created');

    const me = await apiJson(server, 'GET', '/api/users/current', key);
    expect(me.status).toBe(200);
    expect(me.json.email).toBe(email);

    await section.getByRole('button', { name: 'Revoke Build server' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await section.getByRole('listitem').filter({ hasText: 'Build server' }).getByText('Revoked').waitFor();
    await screenshot(page, 'api-keys-revoked');
    expect((await apiJson(server, 'GET', '/api/users/current', key)).status).toBe(401);
    expect(errors).toEqual([]);
  });
});
