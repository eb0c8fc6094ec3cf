// Batches (issue 31) in Debian Chromium against the real server (built-in engines, embedded worker): two small
// generated videos are dropped into the batch dialog of the Translation page with two target languages and
// "generate when ready"; the batch page shows each video's languages progressing to Dubbed; the ZIP of the four
// dubbed MP4s is downloaded through the page. Screenshots at 390 and 1440 px go to test-artifacts/.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeSpeechVideo } from '../fixtures/media';
import { apiJson, browserSuite, screenshot, signUpThroughUi, uniqueEmail } from './support';

describe('a batch in the browser', () => {
  const suite = browserSuite({ server: { env: { EMBEDDED_WORKER: '1' } }, context: { viewport: { width: 1440, height: 900 }, acceptDownloads: true } });

  it('uploads 2 videos into 2 languages, shows the progress, downloads the ZIP', async () => {
    const { server } = suite;
    const { page, errors } = await suite.newPage();
    // the first account of an install is a superuser (every feature on); its 3 trial minutes are too few for
    // 2 videos x 2 languages, so it grants itself Business before opening the dialog
    const email = uniqueEmail('batch');
    await signUpThroughUi(page, server.url, { email, password: 'secret-pass-1' });
    const token = (await apiJson(server, 'POST', '/api/auth/sign-in', null, { email, password: 'secret-pass-1' })).json.access_token as string;
    const me = await apiJson(server, 'GET', '/api/users/current', token);
    expect((await apiJson(server, 'PATCH', `/api/admin/users/${me.json.id}`, token, { plan: 'business' })).status).toBe(200);
    await page.reload();
    const [a, b] = [await makeSpeechVideo({ seconds: 3 }), await makeSpeechVideo({ seconds: 3 })];

    await page.getByRole('button', { name: 'Translate many videos' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.locator('input[type="file"]').setInputFiles([
      { name: 'shoe.mp4', mimeType: 'video/mp4', buffer: readFileSync(a) },
      { name: 'bag.mp4', mimeType: 'video/mp4', buffer: readFileSync(b) },
    ]);
    await dialog.getByText('shoe.mp4').waitFor();
    await dialog.getByLabel('Source language').selectOption('en');
    await dialog.getByLabel('Target languages').selectOption('es');
    await dialog.getByLabel('Target languages').selectOption('ca');
    await dialog.getByText('2 videos × 2 languages').waitFor();
    await dialog.getByRole('button', { name: 'Start batch' }).click();

    // the batch page: each video with its two languages, in progress then dubbed
    await page.waitForURL(/\/batch\//, { timeout: 120_000 });
    await page.getByRole('heading', { name: '1. shoe' }).waitFor();
    await page.getByRole('heading', { name: '2. bag' }).waitFor();
    await screenshot(page, 'batch-progress-1440');
    await page.getByText('Completed', { exact: true }).waitFor({ timeout: 540_000 });
    expect(await page.getByText('Dubbed', { exact: true }).count()).toBe(4);
    await page.setViewportSize({ width: 390, height: 844 });
    // Polaris re-lays out on its media queries' change events (a render after the resize): wait for it to settle.
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 }).toBeLessThanOrEqual(390);
    await screenshot(page, 'batch-done-390');
    await page.setViewportSize({ width: 1440, height: 900 });

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download all (ZIP)' }).click()]);
    const zip = readFileSync((await download.path())!);
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    for (const name of ['01 shoe/shoe_es.mp4', '01 shoe/shoe_ca.mp4', '02 bag/bag_es.mp4', '02 bag/bag_ca.mp4']) expect(zip.includes(Buffer.from(name))).toBe(true);
    expect(errors).toEqual([]);
  }, 600_000);
});
