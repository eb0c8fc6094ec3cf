// The timeline editor in Debian Chromium (issue 15): a project with real LibriVox speech as its source audio;
// the waveform is drawn from the server's peaks, dragging the end edge of a segment block changes the list's
// time field, Save sends the segment update call with the new end, and the time is there after a reload.
import { join } from 'node:path';
import type { Browser, BrowserContext, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSrtTimeStrict } from '../../contract/timecodes';
import { makeSpeechTrack, makeSpeechVideo } from '../fixtures/media';
import { ARTIFACTS, launchBrowser, newContext, screenshot, uniqueEmail } from './support';
import { startTimelineServer, type TimelineServer } from './timeline-seed';

describe('timeline editor in the browser', () => {
  let server: TimelineServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectUrl: string;
  const errors: string[] = [];

  beforeAll(async () => {
    const track = await makeSpeechTrack({ seconds: 20 });
    const video = await makeSpeechVideo({ seconds: 20 });
    server = await startTimelineServer(uniqueEmail('timeline'));
    // Segments where the reader speaks (two speakers alternate).
    const segments = track.turns.map((t, i) => ({
      start: Math.round(t.start * 1000) / 1000,
      end: Math.round(Math.min(t.end, track.durationSec) * 1000) / 1000,
      speaker: i % 2 ? 'SPEAKER_01' : 'SPEAKER_00',
      src: `Sentence ${i + 1} of the reader.`,
      dst: `Frase ${i + 1} del lector.`,
    }));
    const id = await server.seedProject({
      name: 'Timeline', duration: track.durationSec, segments, sourceWav: track.wav, sourceVideo: video,
      speakers: [{ id: 'SPEAKER_00', name: 'Narrator' }, { id: 'SPEAKER_01', name: 'Guest' }],
    });
    projectUrl = `${server.base}/spaces/${server.spaceId}/project/${id}`;
    browser = await launchBrowser();
    context = await newContext(browser, { viewport: { width: 1440, height: 900 } });
    await server.signIn(context);
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
  }, 240_000);

  afterAll(async () => {
    await context?.close().catch(() => {});
    await browser?.close();
    await server?.close();
  });

  it('drags the end edge of a segment: the time field changes and the save goes out', async () => {
    await page.goto(projectUrl);
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.waitFor();
    const block = timeline.locator('[data-tl-segment]').first();
    await block.waitFor();
    // The source waveform is drawn from the server's peaks (pixels on the canvas).
    await page.waitForFunction(() => {
      const c = document.querySelector<HTMLCanvasElement>('[data-testid="timeline-source-wave"]');
      const ctx = c?.getContext('2d');
      if (!c || !ctx) return false;
      const px = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < px.length; i += 4) if (px[i]! > 0) n++;
      return n > c.width * 2;
    });

    const endField = page.getByLabel('End of segment 1', { exact: true });
    const before = parseSrtTimeStrict(await endField.inputValue())!;
    expect(before).toBeGreaterThan(0);
    // Drag the right edge 60 px to the left (no snapping: Alt held). The timeline sits in the page under the
    // editor: brought into view first.
    await block.scrollIntoViewIfNeeded();
    const box = (await block.boundingBox())!;
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width - 2, y);
    await page.keyboard.down('Alt');
    await page.mouse.down();
    for (let k = 1; k <= 6; k++) await page.mouse.move(box.x + box.width - 2 - k * 10, y);
    const readout = await page.getByTestId('timeline-readout').textContent();
    await page.mouse.up();
    await page.keyboard.up('Alt');

    const saved = page.waitForResponse((r: Response) => r.request().method() === 'PATCH' && /\/api\/project\/[^/]+\/transcript$/.test(new URL(r.url()).pathname));
    await expect.poll(async () => parseSrtTimeStrict(await endField.inputValue())).toBeLessThan(before - 0.05);
    const after = parseSrtTimeStrict(await endField.inputValue())!;
    expect(readout).toContain(await endField.inputValue());
    await screenshot(page, 'timeline-dragged');
    await page.screenshot({ path: join(ARTIFACTS, 'timeline-dragged-viewport.png') });

    // It saves itself: the same PATCH the list editor sends (the client streams its body, so the server's answer
    // is read: it echoes the saved segment).
    const res = await saved;
    expect(res.status()).toBe(200);
    const body = (await res.json()) as { segments: Array<{ start: number; end: number }> };
    expect(body.segments).toHaveLength(1);
    expect(body.segments[0]!.end).toBeCloseTo(after, 3);
    await page.getByTestId('save-state').filter({ hasText: /^Saved$/ }).waitFor();

    await page.reload();
    await page.getByLabel('End of segment 1', { exact: true }).waitFor();
    expect(parseSrtTimeStrict(await page.getByLabel('End of segment 1', { exact: true }).inputValue())).toBeCloseTo(after, 3);
    await timeline.locator('[data-tl-segment]').first().waitFor();
    await screenshot(page, 'timeline-after-reload');
    expect(errors).toEqual([]);
  }, 240_000);
});
