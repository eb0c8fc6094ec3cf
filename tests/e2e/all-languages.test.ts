// All languages in the browser (issue 31): a video dubbed into Spanish and French; the Download menu of the
// original offers "All languages"; its HLS package plays with hls.js and the audio switches to French.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProject, updateProjectFields } from '../../server/domains/projects/repository';
import { projectKey } from '../../server/storage/index';
import { tempDir } from '../fixtures/media';
import { startTimelineServer, type TimelineServer } from './timeline-seed';
import { launchBrowser, newContext, uniqueEmail } from './support';

const SECONDS = 12;

describe('all languages: HLS in the editor', () => {
  let server: TimelineServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let projectUrl: string;
  const errors: string[] = [];

  beforeAll(async () => {
    const dir = tempDir('all-langs-');
    const ff = (args: string[]) => execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', ...args]);
    ff(['-f', 'lavfi', '-i', `testsrc=size=320x240:rate=25:duration=${SECONDS}`, '-f', 'lavfi', '-i', `sine=f=440:duration=${SECONDS}`,
      '-c:v', 'libx264', '-preset', 'ultrafast', '-g', '25', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', join(dir, 'src.mp4')]);
    server = await startTimelineServer(uniqueEmail('all-langs'));
    const rootId = await server.seedProject({
      name: 'Languages', duration: SECONDS, sourceVideo: join(dir, 'src.mp4'),
      segments: [{ start: 1, end: 3, speaker: 'SPEAKER_00', src: 'Hello there.', dst: 'Hola.' }],
      speakers: [{ id: 'SPEAKER_00', name: 'Narrator' }],
    });
    const root = (await server.deps.db.maybeOne<{ user_id: string; src_lang: string; dst_lang: string }>('SELECT user_id, src_lang, dst_lang FROM projects WHERE id = $1', [rootId]))!;
    const dub = async (id: string, lang: string, f: number) => {
      const audio = join(dir, `${lang}.m4a`);
      ff(['-f', 'lavfi', '-i', `sine=f=${f}:duration=${SECONDS}`, '-c:a', 'aac', audio]);
      const srt = join(dir, `${lang}.srt`);
      writeFileSync(srt, `1\n00:00:01,000 --> 00:00:03,000\nLine ${lang}\n`);
      await server.deps.storage.putFile(projectKey(id, 'translated_audio.m4a'), audio);
      await server.deps.storage.putFile(projectKey(id, 'subtitles.srt'), srt);
      await updateProjectFields(server.deps.db, id, {
        status: 'merging_done', translated_audio: projectKey(id, 'translated_audio.m4a'), translation_srt_path: projectKey(id, 'subtitles.srt'),
      } as never);
    };
    await dub(rootId, root.dst_lang, 550);
    const fr = await insertProject(server.deps.db, {
      spaceId: server.spaceId, userId: root.user_id, name: 'Languages (FR)', srcLang: root.src_lang, dstLang: 'fr', mediaId: null, link: null,
      numSpeakers: null, srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: 'espeak-ng', copiedFrom: rootId,
      status: 'merging_done', progress: 100,
    });
    await updateProjectFields(server.deps.db, fr.id, { original_video: projectKey(rootId, 'source.mp4'), duration: SECONDS } as never);
    await dub(fr.id, 'fr', 660);
    projectUrl = `${server.base}/spaces/${server.spaceId}/project/${rootId}`;
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

  it('plays the HLS package and switches the audio to French', async () => {
    await page.goto(projectUrl);
    await page.getByRole('button', { name: 'Downloads and more' }).click();
    await page.getByRole('menuitem', { name: 'All languages (HLS player)' }).click();
    const video = page.getByTestId('all-languages-video');
    await video.waitFor();
    const select = page.getByLabel('Audio language');
    await select.waitFor({ timeout: 60_000 });
    const options = await select.locator('option').allTextContents();
    expect(options).toEqual(['English (original)', 'Spanish', 'French']);
    // It plays (muted: no user gesture needed) and time goes on.
    await video.evaluate((v: HTMLVideoElement) => {
      v.muted = true;
      return v.play();
    });
    await page.waitForFunction(() => (document.querySelector<HTMLVideoElement>('[data-testid="all-languages-video"]')?.currentTime ?? 0) > 1, null, { timeout: 60_000 });
    await select.selectOption({ label: 'French' });
    // hls.js answers AUDIO_TRACK_SWITCHED: the picker shows the track it switched to, and playback goes on.
    await expect.poll(() => select.inputValue(), { timeout: 60_000 }).toBe('2');
    const t0 = await video.evaluate((v: HTMLVideoElement) => v.currentTime);
    await page.waitForFunction((t) => (document.querySelector<HTMLVideoElement>('[data-testid="all-languages-video"]')?.currentTime ?? 0) > t + 1, t0, { timeout: 60_000 });
    expect(errors).toEqual([]);
  }, 240_000);
});
