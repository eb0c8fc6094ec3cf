// First run and support in Debian Chromium against the real server and the built front end: a new trial user
// gets the first tour step, closes it, reloads and does not see it again; writes to support from the widget;
// the superuser answers in the admin inbox; the user sees the answer in the widget. A trial user of the
// demo_project group opens the demo from its cover (dubbed by the server at no cost, the same project on a second
// click); the e-mail changes through the confirm-email dialog and the link it e-mails.
import { describe, expect, it } from 'vitest';
import { SUPPORT_CHAT_SIZE } from '../../contract/constants';
import { startSmtpSink, type SmtpSink } from '../server/smtp-sink';
import { browserSuite, screenshot, signUpThroughUi, uniqueEmail } from './support';

const PASSWORD = 'secret-pass-1';

describe('onboarding tour and support chat in the browser', () => {
  const suite = browserSuite({ context: { viewport: { width: 1366, height: 900 } }, consoleErrors: true });
  const newPage = () => suite.newPage();

  it('tour once, support question, staff answer, answer seen', async () => {
    const { server } = suite;
    // The first account of an install is the superuser (staff).
    const staff = await newPage();
    const staffEmail = uniqueEmail('staff');
    await signUpThroughUi(staff.page, server.url, { email: staffEmail, password: PASSWORD });

    const { page, errors } = await newPage();
    const email = uniqueEmail('newbie');
    await signUpThroughUi(page, server.url, { email, password: PASSWORD });

    // A new account starts with the demo (issue 34): its step comes first, then the one beside "Translate video".
    const demo = page.locator('[data-tour-step="demoProjectWelcome_v1"]');
    await demo.waitFor();
    await demo.getByRole('button', { name: 'Got it' }).click();
    await demo.waitFor({ state: 'detached' });
    const first = page.locator('[data-tour-step="translateMyOwnVideoButton_v1"]');
    await first.waitFor().catch(async (e) => {
      await screenshot(page, 'onboarding-tour-no-first-step');
      throw new Error(`${String(e)}\npage errors:\n${errors.join('\n')}`);
    });
    expect(await first.getByRole('heading').textContent()).toBe('Translate your own video');
    const button = await page.getByRole('button', { name: 'Translate video' }).first().boundingBox();
    const card = await first.boundingBox();
    expect(card && button && card.y >= button.y + button.height - 1).toBe(true);
    await screenshot(page, 'onboarding-tour-first-step');
    const saved = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/users/current' && r.request().method() === 'PATCH');
    await first.getByRole('button', { name: 'Got it' }).click();
    expect((await saved).status()).toBe(200);
    // The next step (Settings & members) takes its place.
    await first.waitFor({ state: 'detached' });
    await page.locator('[data-tour-step="manageTeamspace_v1"]').waitFor({ timeout: 30_000 }).catch(async (e) => {
      await screenshot(page, 'onboarding-tour-after-close');
      throw new Error(`${String(e)}\npage errors:\n${errors.join('\n')}`);
    });
    expect(await first.count()).toBe(0);

    await page.reload();
    await page.getByRole('button', { name: 'Translate video' }).first().waitFor();
    await page.locator('[data-tour-step="manageTeamspace_v1"]').waitFor();
    expect(await page.locator('[data-tour-step="translateMyOwnVideoButton_v1"]').count()).toBe(0);

    // Support chat: the widget panel is 408 x 638 on a wide screen.
    await page.getByRole('button', { name: 'Open support chat' }).click();
    const panel = page.getByRole('dialog', { name: 'Support chat' });
    await panel.waitFor();
    const box = await panel.boundingBox();
    expect(box && Math.round(box.width)).toBe(SUPPORT_CHAT_SIZE.width);
    expect(box && Math.round(box.height)).toBe(SUPPORT_CHAT_SIZE.height);
    await panel.getByLabel('Your message').fill('How do I dub my video into Spanish?');
    await panel.getByRole('button', { name: 'Send' }).click();
    await panel.locator('[data-from="user"]', { hasText: 'How do I dub my video into Spanish?' }).waitFor();
    await screenshot(page, 'support-widget-question');

    // Staff answer in the inbox.
    await staff.page.goto(`${server.url}/admin/support`);
    const thread = staff.page.getByRole('button', { name: new RegExp(email.replace(/[.+]/g, '\\$&')) });
    await thread.click();
    const messages = staff.page.getByTestId('inbox-messages');
    await messages.getByText('How do I dub my video into Spanish?').waitFor();
    expect(await messages.textContent()).toContain(`Page: /spaces/`);
    await staff.page.getByLabel('Answer').fill('Choose Translate video, pick Spanish and press Start translation.');
    await staff.page.getByRole('button', { name: 'Send answer' }).click();
    await messages.getByText('Choose Translate video, pick Spanish').waitFor();
    await screenshot(staff.page, 'support-admin-inbox');

    // The user sees the answer in the open widget.
    await panel.locator('[data-from="staff"]', { hasText: 'Choose Translate video, pick Spanish and press Start translation.' }).waitFor();
    await screenshot(page, 'support-widget-answer');
    expect(errors).toEqual([]);
    expect(staff.errors).toEqual([]);
  }, 400_000);
});

describe('demo project and e-mail change in the browser', () => {
  let sink: SmtpSink;
  const suite = browserSuite({
    before: async () => {
      sink = await startSmtpSink();
    },
    // The embedded worker runs: the demo is transcribed, translated and dubbed by this server.
    server: () => ({ env: { EMBEDDED_WORKER: '1', SMTP_URL: sink.url } }),
    after: async () => {
      await sink?.close();
    },
    context: { viewport: { width: 1366, height: 900 } },
  });

  async function apiAs(email: string) {
    const { server } = suite;
    const t = await fetch(`${server.url}/api/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    const { access_token: token } = (await t.json()) as { access_token: string };
    return async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${server.url}${path}`, {
        method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
      });
      return { status: r.status, json: (await r.json()) as Record<string, unknown> };
    };
  }

  it('a trial user of the demo group opens the dubbed demo from its cover; the e-mail changes through the link', async () => {
    const { server } = suite;
    // The first account is staff; the second a new trial user.
    const staff = await suite.newPage();
    await signUpThroughUi(staff.page, server.url, { email: uniqueEmail('staff'), password: PASSWORD });
    await staff.page.close();
    const { page, errors } = await suite.newPage();
    const email = uniqueEmail('demo');
    await signUpThroughUi(page, server.url, { email, password: PASSWORD });
    const api = await apiAs(email);
    expect((await api('POST', '/api/users/feature_group', { name: 'demo_project', option: { id: 'demo' } })).status).toBe(200);

    // The demo view with its covers, and the demo step of the tour beside it.
    await page.reload();
    const view = page.locator('[data-tour="demo-view"]');
    const covers = view.getByRole('list', { name: 'Demo languages' });
    await covers.waitFor({ timeout: 60_000 });
    const spanish = covers.locator('[data-lang="es"]');
    await spanish.locator('img').evaluate((img: HTMLImageElement) => (img.complete ? null : new Promise((r) => (img.onload = r))));
    expect(await spanish.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(100);
    await page.locator('[data-tour-step="demoProjectWelcome_v1"]').waitFor();
    await screenshot(page, 'demo-view');

    // Open it in Spanish: the editor of a project the server transcribes, translates and dubs at no cost.
    const before = (await api('GET', `/api/space/list`)).json as unknown as { id: string; is_default: boolean }[];
    const spaceId = before.find((s) => s.is_default)!.id;
    const creditsBefore = (await api('GET', `/api/space/${spaceId}/credits`)).json;
    await spanish.getByRole('button', { name: 'Open the demo in Spanish' }).click();
    await page.waitForURL(/\/spaces\/[^/]+\/project\/[^/?#]+/);
    const projectId = /\/project\/([^/?#]+)/.exec(page.url())![1]!;
    const deadline = Date.now() + 240_000;
    let status = '';
    while (Date.now() < deadline) {
      status = String((await api('GET', `/api/project/${projectId}`)).json.status);
      if (status === 'merging_done' || /failed/.test(status)) break;
      // Polling the server's state: each round reads it again; the pause only spaces the requests.
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(status).toBe('merging_done');
    expect((await api('GET', `/api/space/${spaceId}/credits`)).json).toEqual(creditsBefore);
    await page.reload();
    await page.locator('.ed-page').waitFor({ timeout: 60_000 });
    await screenshot(page, 'demo-project-editor');

    // A second click opens the same project.
    await page.goto(`${server.url}/spaces/${spaceId}`);
    const again = page.locator('[data-tour="demo-view"] [data-lang="es"]');
    await again.getByText('Ready').waitFor();
    await again.getByRole('button', { name: 'Open the demo in Spanish' }).click();
    await page.waitForURL(new RegExp(`/project/${projectId}`));

    // The e-mail change: the confirm-email dialog, the link by e-mail, the e-mail changed when it is followed.
    await page.goto(`${server.url}/account`);
    await page.getByRole('button', { name: 'Change' }).click();
    const dialog = page.getByRole('dialog', { name: 'Change your e-mail' });
    const newEmail = uniqueEmail('moved');
    await dialog.getByLabel('New e-mail', { exact: true }).fill(newEmail);
    await dialog.getByLabel('Confirm new e-mail', { exact: true }).fill(`x${newEmail}`);
    await dialog.getByText("Email addresses don't match").waitFor();
    expect(await dialog.getByRole('button', { name: 'Send confirmation link' }).isDisabled()).toBe(true);
    await screenshot(page, 'confirm-email-dialog-mismatch');
    await dialog.getByLabel('Confirm new e-mail', { exact: true }).fill(newEmail.toUpperCase());
    await screenshot(page, 'confirm-email-dialog-valid');
    await dialog.getByRole('button', { name: 'Send confirmation link' }).click();
    await page.getByText(`Waiting for confirmation: we sent a link to ${newEmail}`).waitFor();
    const mail = sink.messages.find((m) => m.to.includes(newEmail));
    expect(mail).toBeTruthy();
    const link = /(http:\/\/127\.0\.0\.1:\d+\/account\?confirm_email=[\w-]+)/.exec(mail!.data.replace(/=\r?\n/g, '').replace(/=3D/gi, '='))![1]!;
    await page.goto(link);
    await page.getByText(`Your e-mail is now ${newEmail}. Sign in with it from now on.`).waitFor();
    await screenshot(page, 'confirm-email-done');
    // Following it again is a clear error.
    await page.goto(link);
    await page.getByText('This confirmation link was already used').waitFor();
    expect(errors).toEqual([]);
  }, 500_000);
});
