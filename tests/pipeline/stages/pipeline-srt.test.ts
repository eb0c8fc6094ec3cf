// Uploaded subtitles through the real pipeline: a source SRT replaces speech recognition (with machine
// translation and a glossary forced into it), a target SRT replaces machine translation.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeSpeechVideo, tempDir } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import {
  createProject, newUser, replacePipeline, srtText, uploadFile, uploadOk, waitForStatus, type TestUser,
} from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';
import { grantPlan } from '../../server/spaces/spaces-fixtures';

let h: Harness;
let u: TestUser;
let video: string;
const dir = tempDir('srt-');
const stages: string[] = [];

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'subs');
  // Subtitles, SRT and the dictionary are plan features (server/app/gates.ts): a Business plan.
  await grantPlan(h, u.id, 'business');
  video = await makeSpeechVideo({ seconds: 12 });
  const p = await replacePipeline(h, { onJobEnd: (e) => stages.push(`${e.projectId}:${e.stage}:${e.outcome}`) });
  await p.startWorker(1);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const transcript = async (id: string) => {
  const t = await typedClient(h, u.token).GET('/api/project/{id}/transcript', { params: { path: { id } } });
  expect(t.response.status, JSON.stringify(t.error)).toBe(200);
  return t.data!.segments;
};

function srtFile(name: string, cues: Array<[number, number, string]>): string {
  const p = join(dir, name);
  writeFileSync(p, srtText(cues));
  return p;
}

describe('subtitle uploads', () => {
  it('a source SRT replaces ASR; the glossary terms are forced into the translation', async () => {
    const mediaId = await uploadOk(h, u, video);
    const src = await uploadOk(h, u, srtFile('en.srt', [
      [0.55, 7.2, 'And Mister John Dashwood had then leisure to consider how much there might be prudently in his power to do for them.'],
      [8.3, 11, 'He was not an ill disposed young man.'],
    ]), { kind: 'srt' });
    const g = await h.deps.db.one<{ id: string }>(
      `INSERT INTO glossaries (space_id, name, src_lang, dst_lang, terms) VALUES ($1, 'Names', 'en', 'es', $2) RETURNING id`,
      [u.defaultSpaceId, JSON.stringify([{ source: 'young man', target: 'caballero joven' }, { source: 'Dashwood', target: 'Dashwood' }])],
    );
    const r = await createProject(h, u, { name: 'With SRT', src_lang: 'en', dst_lang: 'es', media_id: mediaId, src_srt_media_id: src, glossary_id: g.id });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data).toMatchObject({ src_srt_uploaded: true, dst_srt_uploaded: false, glossary_id: g.id });
    const p = await waitForStatus(h, u, r.data!.id, (s) => s === 'translation_done' || /failed|^no_/.test(s), 120_000);
    expect(p.status).toBe('translation_done');
    const segs = await transcript(r.data!.id);
    expect(segs.map((s) => [s.start, s.end])).toEqual([[0.55, 7.2], [8.3, 11]]);
    expect(segs[1]!.src.text).toBe('He was not an ill disposed young man.');
    expect(segs[1]!.dst.text).toContain('caballero joven');
    expect(segs[0]!.dst.text).toContain('Dashwood');
  });

  it('a target SRT replaces machine translation (cues mapped to segments by time)', async () => {
    const mediaId = await uploadOk(h, u, video);
    const src = await uploadOk(h, u, srtFile('en2.srt', [[0.5, 7.2, 'First sentence.'], [8.3, 11, 'Second sentence.']]), { kind: 'srt' });
    const dst = await uploadOk(h, u, srtFile('es.srt', [[0.5, 7.2, 'Primera frase.'], [8.3, 11, 'Segunda frase.']]), { kind: 'srt' });
    const r = await createProject(h, u, {
      name: 'Both SRT', src_lang: 'en', dst_lang: 'es', media_id: mediaId, src_srt_media_id: src, dst_srt_media_id: dst,
    });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data).toMatchObject({ src_srt_uploaded: true, dst_srt_uploaded: true });
    const id = r.data!.id;
    const p = await waitForStatus(h, u, id, (s) => s === 'translation_done' || /failed|^no_/.test(s), 120_000);
    expect(p.status).toBe('translation_done');
    const segs = await transcript(id);
    expect(segs.map((s) => s.dst.text)).toEqual(['Primera frase.', 'Segunda frase.']);
    // The source text is the SRT's, not a recognition of the speech.
    expect(segs.map((s) => s.src.text)).toEqual(['First sentence.', 'Second sentence.']);
    // The runtime reports a stage just after writing its status: wait for the list rather than read it once.
    await vi.waitFor(
      () =>
        expect(stages.filter((s) => s.startsWith(id)).map((s) => s.slice(id.length + 1))).toEqual([
          'ingest:done', 'separate_background:done', 'transcribe_segments:done', 'transcription:done', 'determine_speakers:done',
          'voice_suggest:done', 'translation:done',
        ]),
      { timeout: 10_000 },
    );
  });

  it('rejects a subtitle upload that is not readable, and a video given as a subtitle file', async () => {
    const mediaId = await uploadOk(h, u, video);
    const bad = join(dir, 'bad.srt');
    writeFileSync(bad, 'WEBVTT\n\nnot srt at all\n');
    const { json: m } = await uploadFile(h, u, bad);
    expect(m.status).toBe('failed');
    const r = await createProject(h, u, { name: 'x', src_lang: 'en', dst_lang: 'es', media_id: mediaId, src_srt_media_id: m.id });
    expect(r.response.status).toBe(400);
    expect(r.error!.detail).toMatch(/^Source subtitle file could not be read: The subtitle file could not be read/);
    const asSrt = await createProject(h, u, { name: 'x', src_lang: 'en', dst_lang: 'es', media_id: mediaId, dst_srt_media_id: mediaId });
    expect(asSrt.response.status).toBe(400);
    expect(asSrt.error).toMatchObject({ detail: 'Target subtitle file: not a subtitle (SRT) file' });
  });
});
