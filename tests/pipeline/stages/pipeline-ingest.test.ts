// Bad input through the real pipeline (real ffprobe, real VAD): every case ends in its failure status with
// a readable message, before any heavy work.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  makeEmptyFile, makeSilentVideo, makeSpeechVideo, makeTextFileAsMp4, makeTruncatedMp4, makeVideoNoAudio,
} from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { createProject, newUser, replacePipeline, uploadFile, waitForStatus, type TestUser } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';

let h: Harness;
let u: TestUser;
const stages: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'ingest');
  const p = await replacePipeline(h, { onJobEnd: (e) => stages.push(`${e.projectId}:${e.stage}:${e.outcome}`) });
  await p.startWorker(2);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const FINAL = (s: string) => /failed|^no_|forbidden_link|translation_done/.test(s);

async function runWith(path: string) {
  const up = await uploadFile(h, u, path);
  expect(up.status).toBe(200);
  const r = await createProject(h, u, { name: 'Bad input', src_lang: 'en', dst_lang: 'es', media_id: up.json.id });
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  return waitForStatus(h, u, r.data!.id, FINAL, 120_000);
}

/**
 * The stages a project went through, as the runtime reported them. The report comes just after the status is
 * written, so the project can show its final status a moment before: wait for the list rather than read it once.
 */
function expectStages(id: string, want: string[]) {
  return vi.waitFor(() => expect(stagesOf(id)).toEqual(want), { timeout: 10_000 });
}

function stagesOf(id: string): string[] {
  return stages.filter((s) => s.startsWith(`${id}:`)).map((s) => s.slice(id.length + 1));
}

describe('ingest failures', () => {
  it('a text file named .mp4 ends in upload_failed', async () => {
    const p = await runWith(makeTextFileAsMp4());
    expect(p).toMatchObject({
      status: 'upload_failed', progress: 100,
      error_message: 'The file is not a readable video or audio file (it may be damaged or not a media file)',
    });
    await expectStages(p.id, ['ingest:failed']);
  });

  it('a 0-byte file ends in upload_failed', async () => {
    const p = await runWith(makeEmptyFile());
    expect(p).toMatchObject({ status: 'upload_failed', error_message: 'The file is empty (0 bytes)' });
  });

  it('a truncated MP4 ends in upload_failed', async () => {
    const p = await runWith(await makeTruncatedMp4(0.5));
    expect(p.status).toBe('upload_failed');
    expect(p.error_message).toMatch(/not a readable video/);
  });

  it('a video without an audio stream ends in no_audio', async () => {
    const p = await runWith(await makeVideoNoAudio({ seconds: 2 }));
    expect(p).toMatchObject({ status: 'no_audio', progress: 100, error_code: 'no_audio', error_message: 'The video has no sound (it has no audio track)' });
    await expectStages(p.id, ['ingest:failed']);
  });

  it('a video whose sound is silence ends in no_words', async () => {
    const p = await runWith(await makeSilentVideo({ seconds: 3 }));
    expect(p).toMatchObject({ status: 'no_words', error_message: 'No speech was found in the video' });
    await expectStages(p.id, ['ingest:done', 'separate_background:done', 'transcribe_segments:failed']);
  });

  it('limits are enforced again at ingest: size and duration (settings may change after the upload)', async () => {
    const video = await makeSpeechVideo({ seconds: 4 });
    const up = await uploadFile(h, u, video);
    const limits = h.config.limits;
    const saved = { ...limits };
    try {
      limits.maxVideoSize = 1000;
      const r = await createProject(h, u, { name: 'Too big', src_lang: 'en', dst_lang: 'es', media_id: up.json.id });
      expect(r.response.status, JSON.stringify(r.error)).toBe(200);
      const p = await waitForStatus(h, u, r.data!.id, FINAL);
      expect(p).toMatchObject({ status: 'upload_failed', error_code: 'too_large', error_message: 'The file is too large: the limit is 1000 bytes' });
      limits.maxVideoSize = saved.maxVideoSize;
      limits.maxVideoDuration = 2;
      const r2 = await createProject(h, u, { name: 'Too long', src_lang: 'en', dst_lang: 'es', media_id: up.json.id });
      expect(r2.response.status, JSON.stringify(r2.error)).toBe(200);
      const p2 = await waitForStatus(h, u, r2.data!.id, FINAL);
      expect(p2).toMatchObject({ status: 'upload_failed', error_code: 'too_long', error_message: 'The video is too long (4 s): the limit is 2 s' });
      await expectStages(p2.id, ['ingest:failed']);
    } finally {
      Object.assign(limits, saved);
    }
  });

  it('a link that cannot be fetched ends in forbidden_link with the reason', async () => {
    const r = await createProject(h, u, { name: 'Dead link', src_lang: 'en', dst_lang: 'es', link: 'https://www.youtube.com/watch?v=zzzzzzzzzz0' });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const p = await waitForStatus(h, u, r.data!.id, FINAL);
    expect(p).toMatchObject({ status: 'forbidden_link', progress: 100, error_code: 'forbidden_link' });
    expect(p.error_message).toMatch(/^Could not download the video from this link: /);
    // Nothing of the failed projects is left *_started.
    const list = await typedClient(h, u.token).GET('/api/project/paginated', { params: { query: { space_id: u.defaultSpaceId, limit: '100' } } });
    expect(list.response.status, JSON.stringify(list.error)).toBe(200);
    for (const x of list.data!.data) expect(x.status, x.name).not.toMatch(/_started$/);
  });
});
