// Teamspaces in Debian Chromium against the real server and the built front end: the owner creates a
// Teamspace and invites an e-mail; a second person signs up with it, sees the welcome modal and the shared
// space; the owner removes them; they lose access.
import { describe, expect, it } from 'vitest';
import { defaultTeamspaceName } from '../../contract/constants';
import { TEXT } from '../../contract/errors';
import { browserSuite, screenshot, signUpThroughUi, uniqueEmail, type RunningServer } from './support';

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

/** An account made through the API (sign-up + POST /api/users). */
async function apiAccount(server: RunningServer, email: string) {
  const s = await apiJson(server, 'POST', '/api/auth/sign-up', null, { email, password: PASSWORD });
  expect(s.status, JSON.stringify(s.json)).toBe(201);
  const u = await apiJson(server, 'POST', '/api/users', s.json.access_token, { email });
  expect(u.status, JSON.stringify(u.json)).toBe(201);
  return { token: s.json.access_token as string, user: u.json as { id: string; is_superuser: boolean } };
}

async function signIn(server: RunningServer, email: string): Promise<string> {
  const r = await apiJson(server, 'POST', '/api/auth/sign-in', null, { email, password: PASSWORD });
  expect(r.status).toBe(200);
  return r.json.access_token;
}

describe('Teamspaces in the browser', () => {
  const suite = browserSuite({ context: { viewport: { width: 1280, height: 860 } } });
  const newPage = () => suite.newPage();

  it('create, invite, join by sign-up with a welcome, remove, lose access', async () => {
    const { server } = suite;
    // The install's first account is the superuser who grants plans.
    const admin = await apiAccount(server, uniqueEmail('admin'));
    expect(admin.user.is_superuser).toBe(true);

    // The owner signs up in the browser; a trial plan offers the upgrade banner, not "Create Teamspace".
    const ownerEmail = uniqueEmail('owner');
    const friendEmail = uniqueEmail('friend');
    const { page: ownerPage, errors: ownerErrors } = await newPage();
    await signUpThroughUi(ownerPage, server.url, { email: ownerEmail, password: PASSWORD });
    const switcher = ownerPage.getByRole('button', { name: `Teamspace: ${defaultTeamspaceName(ownerEmail)}` });
    await switcher.click();
    const menu = ownerPage.getByTestId('space-switcher-menu');
    await menu.getByText('Upgrade your plan to create Teamspaces and invite your team.').waitFor();
    await screenshot(ownerPage, 'spaces-01-trial-upgrade-banner');
    await ownerPage.keyboard.press('Escape');

    // The superuser grants Business.
    const ownerToken = await signIn(server, ownerEmail);
    const me = await apiJson(server, 'GET', '/api/users/current', ownerToken);
    const grant = await apiJson(server, 'PATCH', `/api/admin/users/${me.json.id}`, admin.token, { plan: 'business' });
    expect(grant.status, JSON.stringify(grant.json)).toBe(200);
    await ownerPage.reload();

    // Create Teamspace: name required, default colour, an editor invited locally, then created.
    await ownerPage.getByRole('button', { name: `Teamspace: ${defaultTeamspaceName(ownerEmail)}` }).click();
    await ownerPage.getByTestId('space-switcher-menu').getByText('Create Teamspace').click();
    const create = ownerPage.getByRole('dialog', { name: 'Create Teamspace' });
    await create.waitFor();
    expect(await create.getByRole('radio', { name: 'ocean' }).getAttribute('aria-checked')).toBe('true');
    await create.getByRole('button', { name: 'Create' }).click();
    await create.getByText(TEXT.fieldRequired).waitFor();
    await create.getByLabel('Teamspace name').fill('Studio Berlin');
    await create.getByRole('radio', { name: 'berry' }).click();
    await create.getByPlaceholder('Add e-mail of a teammate').fill('not-an-email');
    await create.getByRole('button', { name: 'Invite' }).click();
    await create.getByText(TEXT.incorrectEmail).waitFor();
    await create.getByPlaceholder('Add e-mail of a teammate').fill(friendEmail);
    await create.getByRole('button', { name: 'Invite' }).click();
    await create.getByText(friendEmail).waitFor();
    await screenshot(ownerPage, 'spaces-02-create-modal');
    await create.getByRole('button', { name: 'Create' }).click();
    await create.waitFor({ state: 'detached' });
    await ownerPage.getByRole('button', { name: 'Teamspace: Studio Berlin' }).waitFor();
    const studioId = new URL(ownerPage.url()).pathname.split('/')[2];
    expect(studioId).toMatch(/^[0-9a-f-]{36}$/);

    // Settings & members shows the pending invite.
    await ownerPage.getByRole('button', { name: 'Teamspace: Studio Berlin' }).click();
    await ownerPage.getByTestId('space-switcher-menu').getByText('Settings & members').click();
    const dialog = ownerPage.getByRole('dialog', { name: 'Studio Berlin' });
    await dialog.getByTestId('space-invite').getByText(friendEmail).waitFor();
    const box = await dialog.evaluate((el) => {
      const modal = el.querySelector('.Polaris-Modal-Dialog__Modal') ?? el.closest('.Polaris-Modal-Dialog__Modal') ?? el;
      const r = modal.getBoundingClientRect();
      return { w: Math.round(r.width), h: Math.round(r.height) };
    });
    expect(box).toEqual({ w: 540, h: 600 });
    await screenshot(ownerPage, 'spaces-03-dialog-invite-pending');
    await dialog.getByRole('button', { name: 'Close' }).last().click();
    await dialog.waitFor({ state: 'detached' });

    // The invited person signs up with that e-mail: welcome modal, then the shared space.
    const { page: friendPage, errors: friendErrors } = await newPage();
    await signUpThroughUi(friendPage, server.url, { email: friendEmail, password: PASSWORD });
    const welcome = friendPage.getByRole('dialog', { name: 'Welcome to Studio Berlin!' });
    await welcome.waitFor();
    await welcome.getByText(`${ownerEmail} invited you to this Teamspace`, { exact: false }).waitFor();
    await screenshot(friendPage, 'spaces-04-welcome-modal');
    // The welcome is marked seen by a PATCH: wait for its answer, or a reload could cut it off.
    const seenSaved = friendPage.waitForResponse((r) => new URL(r.url()).pathname === '/api/users/current' && r.request().method() === 'PATCH');
    await welcome.getByRole('button', { name: 'Open Teamspace' }).click();
    expect((await seenSaved).status()).toBe(200);
    await friendPage.waitForURL(`${server.url}/spaces/${studioId}`);
    await friendPage.getByRole('button', { name: 'Teamspace: Studio Berlin' }).waitFor();
    // Shown once: the server no longer lists the space as pending (what the modal is drawn from), and the reloaded
    // page, once it shows the space list, has no welcome.
    const friendSession = await signIn(server, friendEmail);
    expect((await apiJson(server, 'GET', '/api/users/current', friendSession)).json.pending_welcome_spaces).toEqual([]);
    await friendPage.reload();
    await friendPage.getByRole('button', { name: 'Teamspace: Studio Berlin' }).waitFor();
    expect(await friendPage.getByRole('dialog', { name: 'Welcome to Studio Berlin!' }).count()).toBe(0);
    // The editor's view of the dialog is read-only.
    await friendPage.getByRole('button', { name: 'Teamspace: Studio Berlin' }).click();
    await friendPage.getByTestId('space-switcher-menu').getByText('Settings & members').click();
    const editorDialog = friendPage.getByRole('dialog', { name: 'Studio Berlin' });
    await editorDialog.getByText('Only the owner can change this Teamspace.').waitFor();
    await editorDialog.getByText('(you)').waitFor();
    await screenshot(friendPage, 'spaces-05-editor-readonly');
    await editorDialog.getByRole('button', { name: 'Close' }).last().click();

    // The owner removes them.
    await ownerPage.getByRole('button', { name: 'Teamspace: Studio Berlin' }).click();
    await ownerPage.getByTestId('space-switcher-menu').getByText('Settings & members').click();
    const ownerDialog = ownerPage.getByRole('dialog', { name: 'Studio Berlin' });
    await ownerDialog.getByRole('button', { name: `Remove ${friendEmail}` }).click();
    const confirm = ownerPage.getByRole('dialog', { name: 'Remove member?' });
    await confirm.getByText(`${friendEmail} will lose access to this Teamspace and its projects.`).waitFor();
    await screenshot(ownerPage, 'spaces-06-remove-confirmation');
    await confirm.getByRole('button', { name: 'Remove' }).click();
    await confirm.waitFor({ state: 'detached' });
    await ownerDialog.getByText(friendEmail).waitFor({ state: 'detached' });
    await ownerDialog.getByText('1 member', { exact: false }).waitFor();
    await screenshot(ownerPage, 'spaces-07-member-removed');

    // They lose access: the API refuses, and the app sends them home to their own space.
    const friendToken = await signIn(server, friendEmail);
    const denied = await apiJson(server, 'GET', `/api/space/${studioId}`, friendToken);
    expect(denied).toEqual({ status: 403, json: { detail: TEXT.noAccess } });
    await friendPage.goto(`${server.url}/spaces/${studioId}`);
    await friendPage.waitForURL((u) => /^\/spaces\/[^/]+$/.test(u.pathname) && !u.pathname.includes(studioId));
    await friendPage.getByRole('button', { name: `Teamspace: ${defaultTeamspaceName(friendEmail)}` }).click();
    const friendMenu = friendPage.getByTestId('space-switcher-menu');
    await friendMenu.getByText(defaultTeamspaceName(friendEmail)).first().waitFor();
    expect(await friendMenu.getByText('Studio Berlin').count()).toBe(0);
    await screenshot(friendPage, 'spaces-08-access-lost');

    expect(ownerErrors).toEqual([]);
    expect(friendErrors).toEqual([]);
  });
});
