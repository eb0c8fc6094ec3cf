// One upload dubbed into two languages (issue 15) with the built-in engines, through the HTTP API: the
// analysis (ingest, background, VAD, ASR, speakers) runs once, on the source project; the second language's
// project is made from it and only translates and dubs. Asserted from the pipeline's job records.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { QualityReport } from '../../../contract/schemas/quality';
import { probe } from '../../../server/media/probe';
import { makeSpeechVideo, tempDir } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { createProject, jobsOf, newUser, replacePipeline, uploadOk, waitForStatus, type TestUser } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';
import { grantPlan } from '../../server/spaces/spaces-fixtures';

let h: Harness;
let u: TestUser;
const dir = tempDir('langs-');

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'polyglot');
  await grantPlan(h, u.id, 'business');
  const p = await replacePipeline(h, { heartbeatMs: 1000, staleSec: 30 });
  await p.startWorker(1);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const ANALYSIS = ['ingest', 'separate_background', 'transcribe_segments', 'transcription', 'determine_speakers'];
const at = (id: string) => ({ params: { path: { id } } });
const transcript = async (id: string) => {
  const r = await typedClient(h, u.token).GET('/api/project/{id}/transcript', at(id));
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  return r.data!.segments;
};

describe('one upload, two target languages', () => {
  let source: string;
  let child: string;

  it('analyses once and makes the second language from the same analysis', async () => {
    const video = await makeSpeechVideo({ seconds: 12 });
    const mediaId = await uploadOk(h, u, video);
    const r = await createProject(h, u, { name: 'Sense', src_lang: 'en', dst_langs: ['es', 'ca'], media_id: mediaId });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    source = r.data!.id;
    await waitForStatus(h, u, source, (s) => s === 'translation_done' || /failed|^no_/.test(s), 240_000);
    const list = await typedClient(h, u.token).GET('/api/project/paginated', { params: { query: { space_id: u.defaultSpaceId } } });
    const children = list.data!.data.filter((p) => p.copied_from === source);
    expect(children.map((c) => c.dst_lang)).toEqual(['ca']);
    child = children[0]!.id;
    const c = await waitForStatus(h, u, child, (s) => s === 'translation_done' || /failed|^no_/.test(s), 240_000);
    expect(c).toMatchObject({ status: 'translation_done', name: 'Sense (CA)', src_lang: 'en', dst_lang: 'ca' });
    const srcT = await transcript(source);
    const dstT = await transcript(child);
    expect(dstT.map((s) => [s.start, s.src.text])).toEqual(srcT.map((s) => [s.start, s.src.text]));
    for (const s of dstT) expect(s.dst.text.length).toBeGreaterThan(0);
    expect(dstT.map((s) => s.dst.text)).not.toEqual(srcT.map((s) => s.dst.text));
  }, 500_000);

  it('generates both dubs: two dubbed videos, ASR ran once (job records)', async () => {
    for (const id of [source, child]) expect((await typedClient(h, u.token).POST('/api/project/{id}/generate', at(id))).response.status).toBe(200);
    for (const id of [source, child]) {
      const p = await waitForStatus(h, u, id, (s) => s === 'merging_done' || /failed/.test(s), 240_000);
      expect(p.status).toBe('merging_done');
      const dl = await typedClient(h, u.token).POST('/api/project/{id}/media_download', { ...at(id), body: { media_type: 'video' } });
      expect(dl.response.status, JSON.stringify(dl.error)).toBe(200);
      const out = join(dir, `${id}.mp4`);
      writeFileSync(out, Buffer.from(await (await h.app.request(dl.data!.url)).arrayBuffer()));
      const info = await probe(out);
      expect(info.hasVideo && info.hasAudio).toBe(true);
      expect(Math.abs(info.durationSec - 12)).toBeLessThan(0.2);
    }
    const stagesOf = async (id: string) => (await jobsOf(h, id)).filter((j) => j.state === 'done').map((j) => j.stage);
    expect(await stagesOf(source)).toEqual([...ANALYSIS, 'voice_suggest', 'translation', 'voiceover', 'merging']);
    expect(await stagesOf(child)).toEqual(['voice_suggest', 'translation', 'voiceover', 'merging']);
    const asr = await h.deps.db.query<{ project_id: string; attempts: number }>(
      `SELECT j.project_id, j.attempts FROM pipeline_jobs j JOIN projects p ON p.id = j.project_id
       WHERE p.space_id = $1 AND j.stage = 'transcription' ORDER BY j.created_at`,
      [u.defaultSpaceId],
    );
    expect(asr).toEqual([{ project_id: source, attempts: 1 }]);
  }, 500_000);

  it('each dub carries a quality report measured from its output files', async () => {
    for (const id of [source, child]) {
      const r = await typedClient(h, u.token).GET('/api/project/{id}/quality', at(id));
      expect(r.response.status, JSON.stringify(r.error)).toBe(200);
      const q = v.parse(QualityReport, r.data);
      const t = await transcript(id);
      expect(q.segments.map((s) => s.id)).toEqual(t.map((s) => s.id));
      expect(q.stale).toBe(false);
      // The output follows the source's own loudness (the Teamspace's default target), measured on both.
      expect(q.source_loudness_lufs).not.toBeNull();
      expect(Math.abs(q.loudness_lufs! - q.source_loudness_lufs!), `dub ${q.loudness_lufs} LUFS, source ${q.source_loudness_lufs} LUFS`).toBeLessThan(2);
      expect(q.speech_coverage).toBeGreaterThan(0.3);
      for (const s of q.segments) expect(s.dub_start, JSON.stringify(s)).not.toBeNull();
      expect(q.max_drift_sec).toBeLessThan(0.5);
      const csv = await h.request('GET', `/api/project/${id}/quality?format=csv`, { token: u.token });
      expect((await csv.text()).split('\r\n').filter(Boolean)).toHaveLength(3 + q.segments.length);
    }
  }, 60_000);
});
