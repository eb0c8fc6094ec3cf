// A paying user's first hour (issue 34), walked in Debian Chromium as a person does it, in order, against one
// server and one browser: sign up in the form and see the list (three sizes, three times in a row); edit, wait,
// reload and see the edit; leave with "Save and leave"; upload a wrong file and an empty one; pay and see the
// result; run out of minutes; invite a teammate without e-mail and join through the link; the embedded build
// inside the test admin page; axe on every main page; no horizontal overflow at 360, 390, 820 and 1440 px.
// Screenshots go to test-artifacts/first-hour-*.png. Which test covers which numbered item of the issue is said in
// each test's name ([1] ... [13]).
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEmptyFile, makeSpeechVideo, makeTextFileAsMp4 } from '../fixtures/media';
import { startStripeStandIn, type StripeStandIn } from '../fakes/stripe';
import { startJourneyServer, type JourneyServer } from './journey-server';
import { apiJson, launchBrowser, newContext, screenshot, startParentServer, uniqueEmail, type ParentServer } from './support';

const KEY = 'e2e-first-hour-key';
const SECRET = 'e2e-first-hour-secret-0123456789abcdef';
const SIZES = { desktop: { width: 1440, height: 900 }, tablet: { width: 820, height: 1180 }, phone: { width: 390, height: 844 } } as const;
type SizeName = keyof typeof SIZES;
const PASSWORD = 'first-hour-pass-1';
/** Words an operator writes, never a customer's: configuration names, raw plan ids, engineering lines. */
const OPERATOR_TEXT = /LLM_ENGINE|OPENAI_API_KEY|creator_pro|business_pro|\bcreator\b_|Transcripting|once the speakers are known|support@dubbing\.studio/;

describe('a paying user\'s first hour', () => {
  let server: JourneyServer;
  let stripe: StripeStandIn;
  let admin: ParentServer;
  let browser: Browser;
  let superToken: string;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[] = [];
  /** The user who signs up at 1440 and keeps going (edits, uploads). */
  const alice = { email: uniqueEmail('alice'), page: null as Page | null, spaceId: '', projectId: '' };
  /** The user who pays. */
  const bob = { email: uniqueEmail('bob'), page: null as Page | null, spaceId: '', projectId: '' };

  beforeAll(async () => {
    stripe = await startStripeStandIn();
    admin = await startParentServer();
    server = await startJourneyServer({
      ...stripe.env(),
      EMBED_APP_KEY: KEY,
      EMBED_APP_SECRET: SECRET,
      EMBED_ADMIN_ORIGINS: admin.origin,
    });
    stripe.setWebhookUrl(`${server.url}/api/payments/webhook`);
    browser = await launchBrowser();
    // The first account of an install is a superuser: made first, so the journeys' users are customers.
    const email = uniqueEmail('owner');
    const s = await apiJson({ url: server.url } as never, 'POST', '/api/auth/sign-up', null, { email, password: PASSWORD });
    superToken = s.json.access_token;
    await apiJson({ url: server.url } as never, 'POST', '/api/users', superToken, { email, referral_id: null, token: null });
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await server?.close();
    await stripe?.close();
    await admin?.close();
  });

  /** A page in a fresh context whose page errors and console errors all count (nothing filtered). */
  async function open(size: SizeName | { width: number; height: number }, extra: Parameters<Browser['newContext']>[0] = {}) {
    const context = await newContext(browser, { viewport: typeof size === 'string' ? SIZES[size] : size, ...extra });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${String(e)}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(`${page.url()}: console: ${m.text().slice(0, 500)}`);
    });
    return page;
  }

  async function signUp(page: Page, email: string) {
    await page.goto(`${server.url}/auth?mode=sign-up`);
    const form = page.getByRole('form', { name: 'Sign up' });
    await form.getByLabel('Email', { exact: true }).fill(email);
    await form.getByLabel('Confirm email', { exact: true }).fill(email);
    await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await form.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/spaces\/[^/?#]+/);
    // The list is there at once, without a reload [1].
    await page.getByRole('heading', { name: 'Translation', level: 1 }).waitFor({ timeout: 15_000 }).catch(async (e: unknown) => {
      await screenshot(page, `first-hour-blank-${email.split('@')[0]}`);
      throw e;
    });
  }

  async function skipTour(page: Page) {
    const skip = page.getByRole('button', { name: 'Skip tour' });
    if (await skip.isVisible().catch(() => false)) await skip.click();
  }

  const spaceIdOf = (page: Page) => /\/spaces\/([^/?#]+)/.exec(page.url())?.[1] ?? '';

  /** True when the page is wider than its window (a horizontal scroll bar). */
  const overflows = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1 || document.body.scrollWidth > window.innerWidth + 1);

  it('[1][5][7][10][13] signs up in the form at 1440, 820 and 390 and sees the list at once, three times in a row', async () => {
    for (const [name, i] of [['desktop', 0], ['tablet', 1], ['phone', 2], ['desktop', 3], ['desktop', 4]] as const) {
      const page = await open(name);
      const email = i === 0 ? alice.email : uniqueEmail(`signup${i}`);
      await signUp(page, email);
      // The list is there without a reload: the page heading and the button to start.
      await page.getByRole('heading', { name: 'Translation', level: 1 }).waitFor({ timeout: 15_000 });
      await page.getByRole('button', { name: 'Translate video' }).first().waitFor({ timeout: 15_000 });
      // The first space is named after the user, not "My Teamspace" [7].
      const local = email.split('@')[0];
      await page.getByRole('button', { name: new RegExp(`^Teamspace: ${local}.*Teamspace`, 'i') }).first().waitFor({ timeout: 15_000 });
      // The minutes left are in view (sidebar or top bar) [3].
      await page.getByTestId('minutes-balance').first().waitFor({ timeout: 15_000 });
      // Layout by width: a desktop browser at 390 px gets the top bar, not the 208 px sidebar [5].
      if (name === 'phone') {
        expect(await page.getByTestId('sidebar').count()).toBe(0);
        await page.getByRole('button', { name: 'Menu' }).waitFor();
      } else if (name === 'desktop') {
        await page.getByTestId('sidebar').waitFor();
      }
      expect(await overflows(page)).toBe(false);
      // The demo project is offered to a new trial user by default [10]; claims match this install [10].
      const text = await page.locator('body').innerText();
      expect(text).not.toMatch(/129 languages/);
      expect(text).not.toMatch(OPERATOR_TEXT);
      if (i < 3) await screenshot(page, `first-hour-1-signed-up-${name}`);
      if (i === 0) {
        alice.page = page;
        alice.spaceId = spaceIdOf(page);
      } else await page.context().close();
    }
    const user = await apiJson({ url: server.url } as never, 'GET', '/api/users/current', await server.tokenOf(alice.page!));
    expect(user.json.feature_groups).toContainEqual({ name: 'demo_project', option: { id: 'demo' } });
  });

  it('[2][6][13] edits a translation, waits, reloads and sees the edit; "Save and leave" keeps a pending edit', async () => {
    const page = alice.page!;
    const uid = await server.userId(alice.email);
    alice.projectId = await server.seedProject({
      spaceId: alice.spaceId, userId: uid, name: 'Spring launch interview with Ana', duration: 12,
      translations: ['Hola a todos.', 'Bienvenidos al programa.', 'Empezamos ahora.'],
    });
    await page.goto(`${server.url}/spaces/${alice.spaceId}/project/${alice.projectId}`);
    const first = page.getByLabel('Translation of segment 1');
    await first.waitFor();
    await skipTour(page);
    // The speaker field is named as it is shown [13].
    await page.getByLabel('Name of speaker Speaker 1').waitFor();
    // The voices card comes right after the player [6]; the timeline sits in the layout, not fixed over it [6].
    const order = await page.evaluate(() => {
      const side = document.querySelector('.ed-side');
      return side ? [...side.children].map((c) => c.getAttribute('data-card') ?? c.className).slice(0, 2) : [];
    });
    expect(order).toEqual(['player', 'speakers']);
    const dock = page.locator('[data-tour="timeline"]');
    await dock.waitFor();
    const position = await page.evaluate(() => {
      let el: Element | null = document.querySelector('[data-tour="timeline"]');
      while (el && el !== document.body) {
        const p = getComputedStyle(el).position;
        if (p === 'fixed' || p === 'sticky') return p;
        el = el.parentElement;
      }
      return 'static';
    });
    expect(position).toBe('static');
    // The arrow-key nudge works after a mouse click: the clicked block has the focus [6].
    const block = page.locator('[data-tl-segment]').first();
    await block.click();
    expect(await block.evaluate((el) => el === document.activeElement || el.contains(document.activeElement))).toBe(true);

    // Autosave: type, wait, reload [2].
    await first.fill('Hola a todos, bienvenidos.');
    await page.getByTestId('save-state').filter({ hasText: /^Saved/ }).waitFor({ timeout: 15_000 });
    await page.reload();
    await page.getByLabel('Translation of segment 1').waitFor();
    expect(await page.getByLabel('Translation of segment 1').inputValue()).toBe('Hola a todos, bienvenidos.');

    // An edit still pending when leaving: the guard offers "Save and leave" [2].
    await page.getByLabel('Translation of segment 2').fill('Bienvenidos a todos al programa.');
    await page.getByRole('button', { name: 'Back to projects' }).click();
    const guard = page.getByRole('dialog');
    await guard.getByRole('button', { name: 'Save and leave' }).click();
    await page.waitForURL(new RegExp(`/spaces/${alice.spaceId}$`));
    await page.goto(`${server.url}/spaces/${alice.spaceId}/project/${alice.projectId}`);
    await page.getByLabel('Translation of segment 2').waitFor();
    expect(await page.getByLabel('Translation of segment 2').inputValue()).toBe('Bienvenidos a todos al programa.');
    await screenshot(page, 'first-hour-2-editor-desktop');
  });

  it('[6] the tour scrolls to what it explains and points at it', async () => {
    const page = await open('tablet');
    const email = uniqueEmail('tour');
    await signUp(page, email);
    await page.getByRole('heading', { name: 'Translation', level: 1 }).waitFor();
    const space = spaceIdOf(page);
    const id = await server.seedProject({ spaceId: space, userId: await server.userId(email), name: 'Tour', duration: 8, translations: ['Uno.', 'Dos.'] });
    const token = await server.tokenOf(page);
    // Everything but the editor's timeline step is done.
    const all = ['advancedTools_v1', 'changeTextSection_v1', 'clickToPlay_v1', 'customizeVoiceClone_v1', 'demoProjectWelcome_v1', 'discoverTeamspace_v1',
      'downloadVideo_v1', 'manageTeamspace_v1', 'speakerVoicesButton_v1', 'translateMyOwnVideoButton_v1', 'videoPlayerTabs_v1'];
    await apiJson({ url: server.url } as never, 'PATCH', '/api/users/current', token, { onboarding: all });
    await page.goto(`${server.url}/spaces/${space}/project/${id}`);
    const card = page.locator('[data-tour-step="audioTrackEditor_v1"]');
    await card.waitFor();
    const vh = SIZES.tablet.height;
    const target = await page.locator('[data-tour="timeline"]').boundingBox();
    const box = await card.boundingBox();
    expect(target && target.y >= 0 && target.y < vh).toBe(true);
    expect(box && box.y >= 0 && box.y + box.height <= vh).toBe(true);
    // It points at its element: the arrow's tip lies on the target's edge.
    const arrow = await card.locator('.ds-tour__arrow').boundingBox();
    expect(arrow).not.toBeNull();
    expect(arrow!.x + arrow!.width / 2).toBeGreaterThanOrEqual(target!.x);
    expect(arrow!.x + arrow!.width / 2).toBeLessThanOrEqual(target!.x + target!.width);
    await screenshot(page, 'first-hour-6-tour-tablet');
    await page.context().close();
  });

  it('[4] a file that is not a video and an empty file are named as such, with the accepted formats', async () => {
    const page = alice.page!;
    await page.goto(`${server.url}/spaces/${alice.spaceId}`);
    await page.getByRole('button', { name: 'Translate video' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[type=file]').first().setInputFiles(makeTextFileAsMp4());
    await dialog.getByText('This file is not a video or audio file we can read').waitFor({ timeout: 30_000 });
    await dialog.getByText(/MP4, MOV/).first().waitFor();
    expect(await dialog.innerText()).not.toMatch(/Server error/);
    await screenshot(page, 'first-hour-4-not-a-video');
    await dialog.locator('input[type=file]').first().setInputFiles(makeEmptyFile());
    await dialog.getByText('This file is empty').waitFor({ timeout: 30_000 });
    expect(await dialog.innerText()).not.toMatch(/Server error|404/);
    // A real video uploads, and its card gets a picture at once, before any Generate [10].
    await dialog.locator('input[type=file]').first().setInputFiles(await makeSpeechVideo({ seconds: 3 }));
    await dialog.getByText('Uploaded', { exact: true }).waitFor({ timeout: 60_000 });
    await dialog.getByLabel('Project name').fill('Thumbnail check');
    await dialog.getByLabel('Source language').selectOption('en');
    await dialog.getByLabel('Target language', { exact: true }).selectOption('es');
    await dialog.getByRole('button', { name: 'Start translation' }).click();
    await page.waitForURL(/\/project\/[0-9a-f-]{36}$/);
    await page.goto(`${server.url}/spaces/${alice.spaceId}`);
    const card = page.getByTestId('project-card').filter({ hasText: 'Thumbnail check' });
    await card.locator('img').first().waitFor({ timeout: 15_000 });
  });

  it('[1][3][11] pays for a plan, sees the result, then runs out of minutes in the editor', async () => {
    const page = await open('desktop');
    bob.page = page;
    await signUp(page, bob.email);
    await page.getByRole('heading', { name: 'Translation', level: 1 }).waitFor();
    await skipTour(page);
    bob.spaceId = spaceIdOf(page);
    // Upgrade from the sidebar, choose, pay: back on the list, not a blank page, with a confirmation [1][11].
    await page.goto(`${server.url}/pricing`);
    await page.getByRole('heading', { name: 'Creator Pro' }).waitFor();
    await page.getByRole('button', { name: 'Choose Creator Pro', exact: true }).click();
    await page.getByRole('button', { name: 'Continue to payment' }).click();
    await page.waitForURL(new RegExp(`^${stripe.url}/pay/`));
    await page.getByRole('button', { name: 'Pay' }).click();
    await page.waitForURL(/\/spaces\/[^/?#]+/, { timeout: 30_000 });
    await page.getByRole('heading', { name: 'Translation', level: 1 }).waitFor({ timeout: 15_000 }).catch(async (e: unknown) => {
      await screenshot(page, 'first-hour-blank-after-payment');
      console.error('blank after payment at', page.url(), (await page.locator('body').innerHTML()).slice(0, 3000));
      throw e;
    });
    await page.getByText(/You are now on the Creator Pro plan/).waitFor({ timeout: 15_000 });
    // The return flag is gone from the address.
    await page.waitForFunction(() => !location.search.includes('payment-successful'), undefined, { timeout: 10_000 }).catch((e: unknown) => {
      throw new Error(`payment flag kept: ${page.url()} ${String(e)}`);
    });
    await screenshot(page, 'first-hour-3-paid');
    // /?payment-successful while signed in shows the list too [1].
    await page.goto(`${server.url}/?payment-successful`);
    await page.getByRole('heading', { name: 'Translation', level: 1 }).waitFor({ timeout: 15_000 });
    // The plan's minutes in the sidebar [3], the current plan marked on pricing [11].
    await page.getByTestId('minutes-balance').filter({ hasText: /min/ }).waitFor();
    await page.goto(`${server.url}/pricing`);
    await page.getByText('Current plan', { exact: true }).first().waitFor();
    expect(await page.locator('body').innerText()).not.toMatch(OPERATOR_TEXT);
    // Account: minutes in words, the latest payment with amount and date, the usage history [11][12].
    await page.goto(`${server.url}/account`);
    await page.getByText(/minutes left/).first().waitFor();
    expect(await page.locator('body').innerText()).not.toMatch(/\b(\d[\d,]*) of \1\b/);
    await page.getByTestId('latest-payment').filter({ hasText: /\$\d/ }).waitFor();
    await page.getByRole('table', { name: 'Minutes history' }).waitFor();
    await screenshot(page, 'first-hour-11-account');

    // Generate asks first, with the minutes it spends [3].
    const uid = await server.userId(bob.email);
    bob.projectId = await server.seedProject({ spaceId: bob.spaceId, userId: uid, name: 'Launch', duration: 90, translations: ['Hola.', 'Adiós.'] });
    await page.goto(`${server.url}/spaces/${bob.spaceId}/project/${bob.projectId}`);
    await page.getByLabel('Translation of segment 1').waitFor();
    await skipTour(page);
    await page.getByTestId('editor-minutes').filter({ hasText: /min/ }).waitFor();
    await page.getByRole('button', { name: 'Generate video' }).click();
    const confirm = page.getByRole('dialog');
    await confirm.getByText(/uses 2 minutes/).waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();

    // Out of minutes: Generate disabled with the reason in view; buying opens in place [3].
    await server.spendAllMinutes(bob.spaceId);
    await page.reload();
    await page.getByLabel('Translation of segment 1').waitFor();
    const generate = page.getByRole('button', { name: 'Generate video' });
    await page.getByText(/Not enough minutes/).first().waitFor();
    expect(await generate.isDisabled()).toBe(true);
    const url = page.url();
    await page.getByRole('button', { name: 'Buy minutes' }).first().click();
    await page.getByRole('dialog').getByRole('textbox', { name: 'Minutes' }).waitFor();
    expect(page.url()).toBe(url);
    // Small amounts: presets and steps of one minute [11].
    await page.getByRole('dialog').getByRole('button', { name: '10 minutes' }).click();
    expect(await page.getByRole('dialog').getByRole('textbox', { name: 'Minutes' }).inputValue()).toBe('10');
    await screenshot(page, 'first-hour-3-out-of-minutes');
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    // Starting a new dub: the button says why it cannot start [3].
    await page.goto(`${server.url}/spaces/${bob.spaceId}`);
    await page.getByRole('button', { name: 'Translate video' }).first().click();
    await page.getByRole('dialog').getByText(/no minutes left/i).first().waitFor();
  });

  it('[7] invites a teammate without e-mail: says no e-mail was sent and gives a single-use link that works', async () => {
    const page = bob.page!;
    await page.goto(`${server.url}/spaces/${bob.spaceId}`);
    await page.locator('[data-item="settings_members"]').click();
    const dialog = page.getByRole('dialog');
    // The plan's member limit and the roles.
    await dialog.getByText(/1 of 3 members/).waitFor();
    const teammate = uniqueEmail('carol');
    await dialog.getByRole('textbox', { name: /e-?mail/i }).fill(teammate);
    await dialog.getByRole('button', { name: 'Invite' }).click();
    await dialog.getByText(/No e-mail was sent/).waitFor();
    const link = await dialog.getByRole('textbox', { name: 'Invite link' }).inputValue();
    expect(link).toMatch(/\/join\//);
    await dialog.getByRole('button', { name: 'Copy link' }).waitFor();
    await screenshot(page, 'first-hour-7-invite-link');
    await page.keyboard.press('Escape');

    const carol = await open('phone');
    await signUp(carol, teammate);
    await carol.goto(link);
    await carol.waitForURL(new RegExp(`/spaces/${bob.spaceId}`), { timeout: 15_000 });
    await carol.getByRole('heading', { name: 'Translation', level: 1 }).waitFor();
    // The welcome of a space shared with you comes first.
    await carol.getByRole('dialog').getByRole('button', { name: 'Open Teamspace' }).click();
    // The switcher tells the two spaces apart by owner.
    await carol.getByRole('button', { name: /^Teamspace: / }).first().click();
    await carol.getByText(new RegExp(`Owner: ${bob.email.split('@')[0]}`)).first().waitFor();
    await screenshot(carol, 'first-hour-7-joined-phone');
    // Used once: a second use is refused.
    const again = await apiJson({ url: server.url } as never, 'POST', '/api/space/join', await server.tokenOf(carol), { token: link.split('/join/')[1] });
    expect(again.status).toBe(410);
    await carol.context().close();
  });

  it('[9] customers see product words; the superuser finds /admin', async () => {
    const page = bob.page!;
    await page.goto(`${server.url}/spaces/${bob.spaceId}/project/${bob.projectId}`);
    await page.getByLabel('Translation of segment 1').waitFor();
    await page.getByText(/AI rewrite/).first().waitFor();
    expect(await page.locator('body').innerText()).not.toMatch(OPERATOR_TEXT);
    // No support address is configured: no mail link anywhere.
    expect(await page.locator('a[href^="mailto:"]').count()).toBe(0);
    const sup = await open('desktop');
    const session = { access_token: superToken, refresh_token: 'x', expires_at: Date.now() + 3600_000 };
    await sup.addInitScript(`localStorage.setItem('auth_session', ${JSON.stringify(JSON.stringify(session))});`);
    await sup.goto(`${server.url}/`);
    await sup.locator('[data-item="admin"]').click();
    await sup.waitForURL(/\/admin/);
    await sup.context().close();
  });

  it('[8] the embedded build: URL in step with the admin, navigation handed to the host, no sign-out inside', async () => {
    for (const size of ['desktop', 'phone'] as const) {
      const page = await open(size, { ignoreHTTPSErrors: true });
      await page.context().addInitScript(() => {
        if (!location.pathname.startsWith('/embed')) return;
        const deny = () => {
          throw new DOMException('Access is denied for this document.', 'SecurityError');
        };
        Object.defineProperty(window, 'localStorage', { configurable: true, get: deny });
        Object.defineProperty(window, 'sessionStorage', { configurable: true, get: deny });
      });
      await page.goto(admin.pageUrl({ appUrl: `${server.url}/embed/`, key: KEY, secret: SECRET, sub: `merchant-${size}` }));
      const frame = page.frameLocator('iframe#app');
      await frame.getByRole('heading', { name: 'Translation', level: 1 }).waitFor({ timeout: 30_000 });
      // No second sidebar inside the admin; the host has the menu.
      expect(await frame.getByTestId('sidebar').count()).toBe(0);
      const platform = () => page.evaluate(() => (window as unknown as { __platform: { menu: { label: string; destination: string }[]; history: string[] } }).__platform);
      // The app's pages are in the admin's menu; Help Center (not configured) and Get help (mail) are not.
      await expect.poll(async () => (await platform()).menu.map((m) => m.label)).toEqual(['Translation', 'Account']);
      expect((await platform()).menu.map((m) => m.destination)).toEqual([expect.stringMatching(/^\/spaces\/[^/]+$/), '/account']);
      // The admin's URL follows the app; a reload opens the same page.
      await page.evaluate(() => (window as unknown as { __platform: { navigate(p: string): void } }).__platform.navigate('/account'));
      await frame.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      await page.waitForFunction(() => new URL(location.href).searchParams.get('path') === '/account');
      const text = await frame.locator('body').innerText();
      expect(text).not.toMatch(/Sign out|Delete account|@e2e-|myshopify|\.example\.com/);
      await page.reload();
      await page.frameLocator('iframe#app').getByRole('heading', { name: 'Account', level: 1 }).waitFor({ timeout: 30_000 });
      expect(await overflows(page)).toBe(false);
      await screenshot(page, `first-hour-8-embedded-${size}`);
      await page.context().close();
    }
  });

  it('[5][13] no page overflows at 360, 390, 820 and 1440 px; axe finds no serious or critical violation', async () => {
    const page = alice.page!;
    const paths = [
      `/spaces/${alice.spaceId}`, `/spaces/${alice.spaceId}/voices`, `/spaces/${alice.spaceId}/glossaries`,
      `/spaces/${alice.spaceId}/project/${alice.projectId}`, '/pricing', '/account',
    ];
    const found: string[] = [];
    for (const width of [1440, 820, 390, 360]) {
      await page.setViewportSize({ width, height: width < 500 ? 844 : 900 });
      for (const path of paths) {
        await page.goto(`${server.url}${path}`);
        await page.locator('main h1').first().waitFor();
        // Lazy parts (cards, lists) have loaded when no spinner is left.
        await page.waitForFunction(() => !document.querySelector('main .Polaris-Spinner, main [aria-busy="true"]'), undefined, { timeout: 15_000 }).catch(() => {});
        if (await overflows(page)) found.push(`${path} at ${width}px: ${await page.evaluate(() => document.documentElement.scrollWidth)}px wide`);
        if (width === 1440 || width === 390) {
          const r = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa']).analyze();
          for (const v of r.violations) if (v.impact === 'serious' || v.impact === 'critical') found.push(`${path} at ${width}px: ${v.id} (${v.nodes.length}) ${v.nodes[0]?.target.join(' ')}`);
        }
        if (width === 390 && path.includes('/project/')) {
          // The phone editor edits: each segment a card inside the window, its actions in a menu.
          await page.getByLabel('Translation of segment 1').waitFor();
          const box = await page.getByLabel('Translation of segment 1').boundingBox();
          expect(box!.x + box!.width).toBeLessThanOrEqual(390);
          await page.getByRole('button', { name: 'Actions for segment 1' }).click();
          await page.getByRole('menuitem', { name: /Split/ }).waitFor();
          await page.keyboard.press('Escape');
          // The project's name is readable on a phone: a row of its own, whole (it was cut to a few letters between the
          // back link and the status).
          const title = page.locator('.ed-header-title h1');
          expect(await title.textContent()).toBe('Spring launch interview with Ana');
          const fit = await title.evaluate((el) => {
            const t = (el.querySelector('.Polaris-Text--truncate') as HTMLElement | null) ?? (el as HTMLElement);
            return { width: el.getBoundingClientRect().width, cut: t.scrollWidth > t.clientWidth + 1 || t.scrollHeight > t.clientHeight + 1 };
          });
          expect(fit).toEqual({ width: expect.any(Number), cut: false });
          expect(fit.width).toBeGreaterThan(300);
          await screenshot(page, 'first-hour-5-phone-editor');
        }
      }
    }
    expect(found).toEqual([]);
    // Keyboard: Tab reaches the main links with a visible focus ring.
    await page.setViewportSize(SIZES.desktop);
    await page.goto(`${server.url}/spaces/${alice.spaceId}`);
    await page.getByRole('heading', { name: 'Translation', level: 1 }).waitFor();
    let ring = false;
    for (let i = 0; i < 6 && !ring; i++) {
      await page.keyboard.press('Tab');
      ring = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (!el || el === document.body) return false;
        const s = getComputedStyle(el);
        return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
      });
    }
    expect(ring).toBe(true);
    // Not one page error or console error on all these pages [13].
    expect(pageErrors).toEqual([]);
  });
});
