// Timing a user can see (issue 29 part 5), in Chromium at 1440, 820 and 390 px: each segment shows its speed and fit
// in words (not colour only); on an amber or red segment "Fix timing" offers Shorten, Let it borrow the pause and Keep
// the original audio here; what a fix did shows on the row and stays after a reload.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJourneyServer, type JourneyServer } from './journey-server';
import { launchBrowser, newContext, screenshot, uniqueEmail } from './support';

const PASSWORD = 'timing-pass-12';

describe('timing in the editor', () => {
  let server: JourneyServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let path = '';
  let projectId = '';
  const errors: string[] = [];

  beforeAll(async () => {
    server = await startJourneyServer({});
    browser = await launchBrowser();
    context = await newContext(browser, { viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    const email = uniqueEmail('timing');
    await page.goto(`${server.url}/auth?mode=sign-up`);
    const form = page.getByRole('form', { name: 'Sign up' });
    await form.getByLabel('Email', { exact: true }).fill(email);
    await form.getByLabel('Confirm email', { exact: true }).fill(email);
    await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await form.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/spaces\/[^/?#]+/);
    const spaceId = /\/spaces\/([^/?#]+)/.exec(page.url())![1]!;
    projectId = await server.seedProject({
      spaceId, userId: await server.userId(email), name: 'Timing', duration: 12, translations: ['Hola a todos, bienvenidos al programa de hoy.', 'Empezamos ahora mismo.', 'Gracias.'],
    });
    // The last dub's fit: too fast (red), a little fast (amber), fits (green).
    const ids = (await server.deps.db.query<{ id: string }>(`SELECT id FROM segments WHERE project_id = $1 ORDER BY start_sec`, [projectId])).map((r) => r.id);
    for (const [i, sf] of [1.32, 1.18, 1.02].entries()) {
      await server.deps.db.query(`UPDATE segments SET speed_factor = $2, overflow_sec = 0 WHERE id = $1`, [ids[i], sf]);
    }
    path = `${server.url}/spaces/${spaceId}/project/${projectId}`;
  }, 300_000);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    await server?.close();
  });

  const chip = (n: number) => page.locator(`[data-segment-id]`).nth(n - 1).locator('.ed-fit-chip');

  it('shows each segment\'s fit in words at 1440, 820 and 390 px', async () => {
    for (const width of [1440, 820, 390]) {
      await page.setViewportSize({ width, height: width < 500 ? 844 : 900 });
      await page.goto(path);
      const skip = page.getByRole('button', { name: 'Skip tour' });
      await page.getByLabel('Translation of segment 1').waitFor();
      if (await skip.isVisible().catch(() => false)) await skip.click();
      await expect.poll(() => chip(1).textContent()).toContain('Too fast 1.32×');
      expect(await chip(2).textContent()).toContain('Fast 1.18×');
      expect(await chip(3).textContent()).toContain('Fits 1.02×');
      expect(await chip(1).getAttribute('aria-label')).toMatch(/spoken faster than natural, speed 1\.32 times natural/);
      // a fix is offered where the fit is amber or red, not where it fits
      expect(await page.getByRole('button', { name: 'Fix the timing of segment 1' }).isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Fix the timing of segment 2' }).isVisible()).toBe(true);
      expect(await page.getByRole('button', { name: 'Fix the timing of segment 3' }).count()).toBe(0);
      const box = await page.getByRole('button', { name: 'Fix the timing of segment 1' }).boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      await page.getByRole('button', { name: 'Fix the timing of segment 1' }).scrollIntoViewIfNeeded();
      await screenshot(page, `timing-${width}`);
    }
  });

  it('borrows the pause after a rushed segment, and keeps the original audio of another (undone by "Dub it again")', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(path);
    await page.getByLabel('Translation of segment 1').waitFor();
    await page.getByRole('button', { name: 'Fix the timing of segment 1' }).click();
    await page.getByRole('menuitem', { name: 'Let it borrow the pause' }).click();
    // the slot grows into the pause before segment 2 (3.6 -> 3.9 s: it stops 0.1 s before the next speech)
    await page.getByText(/Borrowed 0\.30 s of the pause/).waitFor();
    await page.getByRole('button', { name: 'Fix the timing of segment 2' }).click();
    await page.getByRole('menuitem', { name: 'Keep the original audio here' }).click();
    await expect.poll(() => chip(2).textContent()).toContain('Original audio');
    await page.reload();
    await page.getByLabel('Translation of segment 1').waitFor();
    await expect.poll(() => chip(2).textContent()).toContain('Original audio');
    const ends = (await server.deps.db.query<{ end_sec: number; keep_original: boolean }>(`SELECT end_sec, keep_original FROM segments WHERE project_id = $1 ORDER BY start_sec`, [projectId]));
    expect(Number(ends[0]!.end_sec)).toBeCloseTo(3.9, 2);
    expect(ends.map((r) => r.keep_original)).toEqual([false, true, false]);
    await screenshot(page, 'timing-kept');
    await page.getByRole('button', { name: 'Dub segment 2 again' }).click();
    await expect.poll(() => chip(2).textContent()).not.toContain('Original audio');
    expect(errors).toEqual([]);
  });
});
