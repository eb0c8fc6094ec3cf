// API keys in Debian Chromium against the real server and the built front end: a Business user creates a key on
// the account page (shown once), the key works over HTTP as that user, and once revoked in the page it is refused.
import { describe, expect, it } from 'vitest';
import { apiJson, browserSuite, createSuperuser, screenshot, signUpThroughUi, uniqueEmail } from './support';

const PASSWORD = 'secret-pass-1';

describe('API keys in the browser', () => {
  const suite = browserSuite({ context: { viewport: { width: 1366, height: 900 } } });

  it('a Business user creates a key, uses it over HTTP, and revokes it', async () => {
    const { server } = suite;
    const { page, errors } = await suite.newPage();
    const adminToken = await createSuperuser(server);
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
