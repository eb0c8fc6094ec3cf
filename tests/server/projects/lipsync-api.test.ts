// Face check and lip-sync over HTTP (issue 14): the face check's answer on clips with one face, two faces,
// a face too small and none; lip-sync refused before a dub (409) and for a trial plan (403); one job when
// asked twice at once; progress, result and download; an engine failing mid-way leaves a clear failure
// and the dubbed video available.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { Project } from '../../../contract/schemas/project';
import { EngineError, type LipsyncEngine } from '../../../server/engines/types';
import { projectKey } from '../../../server/storage/index';
import { makeFaceVideo, type FaceClip } from '../../fixtures/faces';
import { createHarness, type Harness } from '../harness';
import type { components } from '../../../src/lib/api/schema';
import { typedClient } from '../typed-client';
import { api, jobsOf, newUser, type TestUser } from './projects-fixtures';
import { insertProject, replaceSpeakers } from '../../../server/domains/projects/repository';
import { insertSegments } from '../../../server/domains/projects/transcript/repository';
import { grantPlan } from '../spaces/spaces-fixtures';
import * as ledger from '../../../server/domains/billing/ledger';

/** The ledger rows of a project's lip-sync runs. */
async function lipsyncRows(id: string) {
  return h.deps.db.query<{ bucket: string; kind: string; minutes: number; ref: string }>(
    `SELECT bucket, kind, minutes::float8 AS minutes, ref FROM minutes_ledger WHERE project_id = $1 AND ref LIKE '%:lipsync:%' ORDER BY id`,
    [id],
  );
}

let h: Harness;
let alice: TestUser;
let tom: TestUser;
let failNext: string | null = null;
/** Face detection and video encoding on this shared 2-core machine. */
const SLOW = 240_000;

beforeAll(async () => {
  h = await createHarness();
  alice = await newUser(h, 'alice');
  tom = await newUser(h, 'tom');
  await grantPlan(h, alice.id, 'creator_pro');
  // The built-in engine behind a switch that makes the next run fail half-way.
  const builtin = h.deps.engines!.lipsync;
  const switched: LipsyncEngine = {
    id: builtin.id,
    init: () => builtin.init?.() ?? Promise.resolve(),
    async lipsync(req, o) {
      if (failNext) {
        const msg = failNext;
        failNext = null;
        req.onProgress?.(0.4);
        throw new EngineError('failed', msg);
      }
      return builtin.lipsync(req, o);
    },
  };
  h.deps.engines!.register('lipsync', switched, { prefer: true });
  await h.deps.pipeline!.startWorker(1);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const path = (id: string, rest = '') => `/api/project/${id}${rest}`;
const at = (id: string) => ({ params: { path: { id } } });
type RunLipsync = components['schemas']['RunLipsyncRequest'];
type MediaType = components['schemas']['MediaDownloadRequest']['media_type'];
const runLipsync = (u: TestUser, id: string, body: RunLipsync) => typedClient(h, u.token).POST('/api/project/{id}/run_lipsync_task', { ...at(id), body });
const download = (u: TestUser, id: string, media_type: MediaType) => typedClient(h, u.token).POST('/api/project/{id}/media_download', { ...at(id), body: { media_type } });
const projectOf = async (u: TestUser, id: string) => (await typedClient(h, u.token).GET('/api/project/{id}', at(id))).data!;

/** A project whose dub is "done": the face clip is its original and dubbed video, its speech the voice track. */
async function dubbed(u: TestUser, kind: FaceClip, o: { dub?: boolean } = {}): Promise<string> {
  const clip = await makeFaceVideo(kind, 4);
  // Straight into the database (no ingest job: the worker runs during these tests).
  const db = h.deps.db;
  const row = await insertProject(db, {
    spaceId: u.defaultSpaceId, userId: u.id, name: `Faces ${kind}`, srcLang: 'en', dstLang: 'es', mediaId: null, link: null,
    numSpeakers: null, srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: 'espeak-ng',
    status: o.dub === false ? 'translation_done' : 'merging_done', progress: 100,
  });
  const id = row.id;
  await insertSegments(db, id, [{ start: clip.speech.start, end: clip.speech.end, speaker: 'SPEAKER_0', src: 'Hello', dst: 'Hola', status: 'done' }]);
  await replaceSpeakers(db, id, [{ id: 'SPEAKER_0', name: 'Speaker 1', gender: 'female', pitch_hz: 200 }]);
  await db.query('UPDATE projects SET duration = $2 WHERE id = $1', [id, clip.seconds]);
  const s = h.deps.storage!;
  await s.putFile(projectKey(id, 'source.mp4'), clip.video);
  const fields: Record<string, string> = { original_video: projectKey(id, 'source.mp4') };
  if (o.dub !== false) {
    await s.putFile(projectKey(id, 'translated_video.mp4'), clip.video);
    await s.putFile(projectKey(id, 'voice_track.wav'), clip.voice);
    fields.translated_video = projectKey(id, 'translated_video.mp4');
    fields.translated_audio = projectKey(id, 'translated_video.mp4');
  }
  const keys = Object.keys(fields);
  await h.deps.db.query(`UPDATE projects SET ${keys.map((k, i) => `${k} = $${i + 2}`).join(', ')} WHERE id = $1`, [id, ...keys.map((k) => fields[k])]);
  return id;
}

async function waitFor(u: TestUser, id: string, done: (p: components['schemas']['Project']) => boolean, timeoutMs = 220_000): Promise<Project> {
  const t0 = Date.now();
  let last: unknown = null;
  while (Date.now() - t0 < timeoutMs) {
    const r = await typedClient(h, u.token).GET('/api/project/{id}', at(id));
    last = r.data ?? r.error;
    if (r.response.status === 200 && done(r.data!)) return v.parse(Project, r.data);
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`project ${id} did not reach the state in time: ${JSON.stringify(last)}`);
}

async function faceCheck(kind: FaceClip) {
  const id = await dubbed(alice, kind, { dub: false });
  const r = await typedClient(h, alice.token).POST('/api/project/{id}/run_check_face_task', at(id));
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  expect(r.data!.face_check!.status).toBe('processing');
  const p = await waitFor(alice, id, (x) => x.face_check?.status !== 'processing');
  return { id, fc: p.face_check! };
}

describe('POST /api/project/{id}/run_check_face_task', () => {
  it('finds one face in every sampled frame', async () => {
    const { fc } = await faceCheck('one');
    expect(fc).toMatchObject({ status: 'done', faces_found: 1, multiple_faces: false, lipsync_possible: true });
    expect(fc.face_share).toBeGreaterThanOrEqual(0.9);
    expect(fc.frames_checked).toBeGreaterThanOrEqual(8);
  }, SLOW);

  it('tells when two people are on screen', async () => {
    const { fc } = await faceCheck('two');
    expect(fc).toMatchObject({ status: 'done', faces_found: 2, multiple_faces: true, lipsync_possible: true });
  }, SLOW);

  it('finds no face in a video without one, and lip-sync is then refused with the reason', async () => {
    const { id, fc } = await faceCheck('none');
    expect(fc).toMatchObject({ status: 'done', faces_found: 0, face_share: 0, multiple_faces: false, lipsync_possible: false });
    expect(fc.message).toMatch(/No face/);
    // The project has a dub now: the face check's answer still stops lip-sync before any minute is spent.
    await h.deps.db.query(`UPDATE projects SET translated_video = original_video, translated_audio = original_video WHERE id = $1`, [id]);
    const r = await runLipsync(alice, id, {});
    expect(r.response.status).toBe(409);
    expect(r.error!.detail).toMatch(/No face/);
    expect((await jobsOf(h, id)).filter((j) => j.stage === 'lipsync')).toEqual([]);
  }, SLOW);

  it('does not offer lip-sync for a face too small to animate', async () => {
    const { fc } = await faceCheck('small');
    expect(fc.lipsync_possible).toBe(false);
    expect(fc.faces_found === 0 || fc.small_faces).toBe(true);
  }, SLOW);
});

describe('POST /api/project/{id}/run_lipsync_task', () => {
  it('is refused before any dub exists (409)', async () => {
    const id = await dubbed(alice, 'one', { dub: false });
    const r = await runLipsync(alice, id, { is_free_lipsync: false, is_multiple_speakers: false });
    expect(r.response.status).toBe(409);
    expect(r.error!.detail).toMatch(/Generate the dubbed video first/);
  }, SLOW);

  it('is refused for a trial plan (403) and queues nothing', async () => {
    const id = await dubbed(tom, 'one');
    const r = await runLipsync(tom, id, {});
    expect(r.response.status).toBe(403);
    expect(r.error).toMatchObject({ code: 'feature_not_in_plan', feature: 'lipsync', required_plan: 'creator_pro' });
    expect((await jobsOf(h, id)).filter((j) => j.stage === 'lipsync')).toEqual([]);
    expect(await lipsyncRows(id)).toEqual([]);
    expect((await projectOf(tom, id)).lipsync_info.status ?? null).toBeNull();
  }, SLOW);

  it('spends the free lip-sync minutes first; is_free_lipsync without enough of them is 402', async () => {
    const bob = await newUser(h, 'bob');
    await grantPlan(h, bob.id, 'creator_pro');
    const id = await dubbed(bob, 'one');
    const poor = await runLipsync(bob, id, { is_free_lipsync: true });
    expect(poor.response.status).toBe(402);
    expect(poor.error!.detail).toMatch(/^No free lip-sync minutes left: 1 needed, 0 available/);
    expect((await projectOf(bob, id)).lipsync_info.status ?? null).toBeNull();
    expect((await jobsOf(h, id)).filter((j) => j.stage === 'lipsync')).toEqual([]);
    await ledger.post(h.deps.db, { spaceId: bob.defaultSpaceId, bucket: 'lipsync_free', kind: 'grant', minutes: 1, ref: 'test-free' });
    failNext = 'stop here';
    const r = await runLipsync(bob, id, { is_free_lipsync: true });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(await lipsyncRows(id)).toEqual([{ bucket: 'lipsync_free', kind: 'debit', minutes: -1, ref: ledger.lipsyncRef(id, 1) }]);
    expect((await ledger.balances(h.deps.db, bob.defaultSpaceId)).lipsync_free_minutes).toBe(0);
    await waitFor(bob, id, (x) => x.lipsync_info.status === 'failed');
    expect((await ledger.balances(h.deps.db, bob.defaultSpaceId)).lipsync_free_minutes).toBe(1);
  }, SLOW);

  it('validates the body', async () => {
    const id = await dubbed(alice, 'one', { dub: false });
    // Malformed on purpose: a body the types refuse (is_multiple_speakers is a boolean).
    const r = await api(h, 'POST', path(id, '/run_lipsync_task'), { token: alice.token, body: { is_multiple_speakers: 'yes' } });
    expect(r.status).toBe(422);
  }, SLOW);

  it('runs one job when asked twice at once, reports progress, and offers the lip-synced video', async () => {
    const id = await dubbed(alice, 'one');
    const [a, b] = await Promise.all([
      runLipsync(alice, id, { is_multiple_speakers: false }),
      runLipsync(alice, id, { is_multiple_speakers: false }),
    ]);
    expect([a.response.status, b.response.status].sort()).toEqual([200, 409]);
    const started = a.response.status === 200 ? a.data! : b.data!;
    expect(started.lipsync_info).toMatchObject({ status: 'processing', lipsync_result_path: null });
    expect((await jobsOf(h, id)).filter((j) => j.stage === 'lipsync')).toHaveLength(1);
    // Billed once, apart from the dub: one minute for a 4 s video, from the plan's minutes (no free ones).
    expect(await lipsyncRows(id)).toEqual([{ bucket: 'minutes', kind: 'debit', minutes: -1, ref: ledger.lipsyncRef(id, 1) }]);
    const p = await waitFor(alice, id, (x) => x.lipsync_info.status !== 'processing');
    expect(p.lipsync_info).toMatchObject({ status: 'done', progress: 100, error: null, engine: 'builtin-lipsync', stale: false });
    expect(p.lipsync_info.lipsync_result_path).toMatch(/\/api\/files\//);
    expect(p.status).toBe('merging_done');
    const dl = await download(alice, id, 'lipsync');
    expect(dl.response.status).toBe(200);
    const file = await h.app.request(new URL(dl.data!.url, 'http://x').pathname);
    expect(file.status).toBe(200);
    expect((await file.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
    // The dubbed video is still the dubbed video.
    const row = await h.deps.db.one<{ translated_video: string }>('SELECT translated_video FROM projects WHERE id = $1', [id]);
    expect(row.translated_video).toBe(projectKey(id, 'translated_video.mp4'));
    const again = await download(alice, id, 'lipsync_subtitles');
    expect(again.response.status).toBe(404);
  }, SLOW);

  it('an engine failing mid-way ends with a clear failure; the dubbed video stays available', async () => {
    const id = await dubbed(alice, 'one');
    failNext = 'the lip-sync engine stopped at frame 40';
    const r = await runLipsync(alice, id, {});
    expect(r.response.status).toBe(200);
    const p = await waitFor(alice, id, (x) => x.lipsync_info.status !== 'processing');
    expect(p.lipsync_info).toMatchObject({ status: 'failed', error: 'the lip-sync engine stopped at frame 40', error_code: 'failed', lipsync_result_path: null });
    expect(p.status).toBe('merging_done');
    expect(p.translated_video).toMatch(/\/api\/files\//);
    const dl = await download(alice, id, 'video');
    expect(dl.response.status).toBe(200);
    const missing = await download(alice, id, 'lipsync');
    expect(missing.response.status).toBe(404);
    // The failed run's minute came back, in the failure's transaction.
    expect(await lipsyncRows(id)).toEqual([
      { bucket: 'minutes', kind: 'debit', minutes: -1, ref: ledger.lipsyncRef(id, 1) },
      { bucket: 'minutes', kind: 'refund', minutes: 1, ref: ledger.lipsyncRef(id, 1) },
    ]);
    // A failed run can be started again.
    const retry = await runLipsync(alice, id, {});
    expect(retry.response.status).toBe(200);
    expect(retry.data!.lipsync_info).toMatchObject({ status: 'processing', error: null });
  }, SLOW);
});
