// The whole dubbing job in Debian Chromium against the real server with the built-in engines: sign up,
// upload a short video made from the LibriVox clips, wait for the transcript, edit one translated segment,
// generate, download the MP4 and check with ffprobe that it has video and audio of the input's duration.
// Screenshots of the list and the editor go to test-artifacts/.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSpeechVideo } from '../fixtures/media';
import { ensureBuild, launchBrowser, newContext, screenshot, signUpThroughUi, startServer, uniqueEmail, type RunningServer } from './support';

interface Probe {
  streams: { codec_type: string; duration?: string }[];
  format: { duration: string };
}
function ffprobe(path: string): Probe {
  const out = execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type,duration:format=duration', '-of', 'json', path], {
    encoding: 'utf8',
  });
  return JSON.parse(out) as Probe;
}

describe('dubbing in the browser', () => {
  let server: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let video: string;
  let inputDuration: number;
  const errors: string[] = [];
  const downloads = mkdtempSync(join(tmpdir(), 'ds-e2e-dl-'));

  beforeAll(async () => {
    ensureBuild();
    video = await makeSpeechVideo({ seconds: 12 });
    inputDuration = Number(ffprobe(video).format.duration);
    server = await startServer({ env: { EMBEDDED_WORKER: '1' } });
    browser = await launchBrowser();
    context = await newContext(browser, { viewport: { width: 1366, height: 860 }, acceptDownloads: true });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
  });

  afterAll(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    if (server && errors.length > 0) console.error(server.logs().slice(-4000));
    await server?.stop();
    rmSync(downloads, { recursive: true, force: true });
  });

  // The test's time limit is above the sum of the waits inside (each ends as soon as its state shows): on a loaded
  // machine the whole job can outlast the project's 240 s default, and a wait's own message says more.
  it('uploads, edits, generates and downloads a dubbed MP4', async () => {
    await signUpThroughUi(page, server.url, { email: uniqueEmail('dub'), password: 'secret-pass-1' });
    await page.getByText('Translate your first video').waitFor();

    // Create: upload through tus with progress, English -> Spanish. The first data request is cut off
    // (a dropped connection): the upload must resume and finish.
    let dropped = 0;
    let patches = 0;
    await page.route('**/api/library/tus/**', async (route) => {
      if (route.request().method() === 'PATCH') {
        patches++;
        if (dropped === 0) {
          dropped++;
          return route.abort('connectionreset');
        }
      }
      return route.continue();
    });
    await page.getByRole('button', { name: 'Translate video' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[type=file][accept^="video"]').setInputFiles(video);
    await dialog.getByText('Uploaded', { exact: true }).waitFor({ timeout: 60_000 });
    expect(dropped).toBe(1);
    expect(patches).toBeGreaterThanOrEqual(2);
    await page.unroute('**/api/library/tus/**');
    await dialog.getByLabel('Project name').fill('LibriVox dub');
    await dialog.getByLabel('Source language').selectOption('en');
    await dialog.getByLabel('Target language', { exact: true }).selectOption('es');
    await screenshot(page, 'create-dub');
    await dialog.getByRole('button', { name: 'Start translation' }).click();

    // The project page shows live status until the transcript is ready, then the editor.
    await page.waitForURL(/\/project\/[0-9a-f-]{36}$/);
    const projectUrl = page.url();
    // The live status shows while the job runs; on a slow browser and a fast job the editor may come first.
    await page.getByText(/We are transcribing and translating your video/).or(page.getByLabel('Translation of segment 1')).first().waitFor();
    await screenshot(page, 'project-processing');
    const firstTranslation = page.getByLabel('Translation of segment 1');
    await firstTranslation.waitFor({ timeout: 180_000 });
    expect(await page.getByLabel(/^Source text of segment 1$/).inputValue()).not.toBe('');
    await screenshot(page, 'editor');

    // Edit one translated segment: it saves itself (Ctrl+S saves at once).
    await firstTranslation.fill('Hola a todos, esta es una prueba del doblaje.');
    await page.keyboard.press('Control+s');
    await page.getByTestId('save-state').filter({ hasText: /^Saved$/ }).waitFor();
    await page.reload();
    await page.getByLabel('Translation of segment 1').waitFor();
    expect(await page.getByLabel('Translation of segment 1').inputValue()).toBe('Hola a todos, esta es una prueba del doblaje.');

    // Generate and wait for the video.
    await page.getByRole('button', { name: 'Generate video' }).click();
    await page.getByRole('dialog', { name: 'Generate the dubbed video?' }).getByRole('button', { name: 'Generate' }).click();
    await page.getByText('Video is generated', { exact: true }).first().waitFor({ timeout: 240_000 });
    await screenshot(page, 'editor-generated');

    // Download the dubbed MP4 through the menu.
    await page.getByRole('button', { name: 'Downloads and more' }).click();
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 60_000 }),
      page.getByRole('menuitem', { name: /Dubbed video \(MP4\)/ }).click(),
    ]);
    const file = join(downloads, 'dubbed.mp4');
    await download.saveAs(file);
    expect(download.suggestedFilename()).toMatch(/\.mp4$/);
    expect(statSync(file).size).toBeGreaterThan(10_000);
    const probe = ffprobe(file);
    const kinds = probe.streams.map((s) => s.codec_type);
    expect(kinds).toContain('video');
    expect(kinds).toContain('audio');
    expect(Math.abs(Number(probe.format.duration) - inputDuration)).toBeLessThan(0.5);
    const audio = probe.streams.find((s) => s.codec_type === 'audio')!;
    expect(Math.abs(Number(audio.duration) - inputDuration)).toBeLessThan(0.5);

    // The list shows the project with its label and date.
    await page.goto(projectUrl.replace(/\/project\/.*$/, ''));
    const card = page.getByTestId('project-card').filter({ hasText: 'LibriVox dub' });
    await card.waitFor();
    await card.getByText('Video is generated').waitFor();
    // Created minutes ago: Today, or Yesterday when the run crossed midnight.
    await card.getByText(/^(Today|Yesterday)$/).waitFor();
    await screenshot(page, 'translation-list');
    expect(errors).toEqual([]);
  }, 720_000);

  // Regional variants (issue 31 part 4): Latin American Spanish is picked under Spanish in the create dialog, the
  // project keeps it, its speakers are offered only that region's voices (espeak-ng's es-419 voice), and it is
  // dubbed with one of them.
  it('dubs into a regional variant picked under its language, voiced by the region', async () => {
    // The first test ends on the translation list.
    await page.getByRole('button', { name: 'Translate video' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[type=file][accept^="video"]').setInputFiles(video);
    await dialog.getByText('Uploaded', { exact: true }).waitFor({ timeout: 60_000 });
    await dialog.getByLabel('Project name').fill('Latin American dub');
    await dialog.getByLabel('Source language').selectOption('en');
    const target = dialog.getByLabel('Target language', { exact: true });
    const spanish = await target.locator('optgroup[label="Spanish"] option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(spanish).toEqual(expect.arrayContaining(['es', 'es-419']));
    await target.selectOption('es-419');
    // The built-in translation has one Spanish vocabulary: the dialog says so under the picker.
    await dialog.getByText(/one vocabulary/).waitFor();
    await screenshot(page, 'create-dub-variant-1366');
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, 'create-dub-variant-390');
    await page.setViewportSize({ width: 1366, height: 860 });
    await dialog.getByRole('button', { name: 'Start translation' }).click();

    await page.waitForURL(/\/project\/[0-9a-f-]{36}$/);
    await page.getByLabel('Translation of segment 1').waitFor({ timeout: 180_000 });
    const voice = page.getByLabel(/^Voice of /).first();
    await expect.poll(() => voice.isEnabled(), { timeout: 30_000 }).toBe(true);
    const offered = await voice.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    expect(offered.length).toBeGreaterThan(0);
    for (const id of offered) expect(id, 'only the region\'s voices').toMatch(/^espeak:es-419\+/);
    // A voice of the region that plain Spanish does not offer is spoken too.
    await voice.selectOption('espeak:es-419+m2');
    await expect.poll(() => voice.inputValue()).toBe('espeak:es-419+m2');
    await page.getByRole('button', { name: 'Generate video' }).click();
    await page.getByRole('dialog', { name: 'Generate the dubbed video?' }).getByRole('button', { name: 'Generate' }).click();
    await page.getByText('Video is generated', { exact: true }).first().waitFor({ timeout: 240_000 });
    await screenshot(page, 'editor-variant');
    expect(errors).toEqual([]);
  }, 480_000);
});
