// Voice presets over HTTP (/api/voice_preset) with the built-in voice matching: a preset from an uploaded audio
// sample, from the audio extracted from a video, from a project's speaker (library and instant), statuses moving
// from processing to done, rename and settings, samples at chosen settings, delete; the voice pool offering the
// space's presets and a speaker dubbed with one; the tutorial flags. Refused: a sample with no speech, a 2-hour
// sample, a non-audio file, an 11th clone on Creator Pro, another space's voice, a trial user.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureRefusalText } from '../../../contract/features';
import { makeSpeechTrack, makeSpeechVideo, librivoxWav, tempDir } from '../../fixtures/media';
import { synthAudio } from '../../../server/media/ffmpeg';
import { projectKey } from '../../../server/storage/index';
import { settleVoiceTasks } from '../../../server/domains/voices/service';
import { findProject } from '../../../server/domains/projects/repository';
import { voiceover } from '../../../server/domains/projects/stages/voiceover';
import { readWav, toMono } from '../../../server/media/wav';
import { pitchProfile, semitones } from '../../../server/engines/builtin/pitch';
import { createHarness, type Harness } from '../harness';
import { eventually } from '../helpers';
import { api, newUser, seedProject, uploadFile, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { issuesOf, typedClient } from '../typed-client';
import type { components } from '../../../src/lib/api/schema';

let h: Harness;
let pro: TestUser; // Creator Pro
let member: TestUser; // trial, editor in pro's space
let outsider: TestUser; // Creator Pro, not a member
let trial: TestUser;
let enterprise: TestUser;

type CreateBody = components['schemas']['CreateVoicePresetRequest'];
const as = (u: TestUser | null) => typedClient(h, u?.token);
const list = (u: TestUser, spaceId = u.defaultSpaceId) => as(u).GET('/api/voice_preset', { params: { query: { space_id: spaceId } } });
const create = (u: TestUser, body: Omit<CreateBody, 'label'> & Partial<CreateBody>, spaceId = u.defaultSpaceId) =>
  as(u).POST('/api/voice_preset/create', { params: { query: { space_id: spaceId } }, body: { label: 'Narrator', ...body } });
const statuses = (u: TestUser, ids: string) => as(u).GET('/api/voice_preset/statuses', { params: { query: { ids } } });
const preset = (u: TestUser, id: string) => as(u).GET('/api/voice_preset/{id}', { params: { path: { id } } });
const fromProject = (u: TestUser, body: components['schemas']['VoicePresetFromProjectRequest']) => as(u).POST('/api/voice_preset/from_project', { body });

async function waitDone(u: TestUser, id: string) {
  const r = await eventually(
    () => statuses(u, id),
    (r) => r.response.status === 200 && r.data![0]?.status !== 'processing',
    60_000,
    'the preset to be made',
  );
  expect(r.data).toEqual([{ id, status: 'done', error: null }]);
}

/** POST /api/library/media/extract-audio: a raw multipart body, which the typed client does not send. */
async function extractAudio(u: TestUser, path: string, name = 'talk.mp4') {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(await import('node:fs').then((f) => f.readFileSync(path)))], { type: 'video/mp4' }), name);
  const r = await h.app.request(`/api/library/media/extract-audio?space_id=${u.defaultSpaceId}`, {
    method: 'POST', headers: { authorization: `Bearer ${u.token}` }, body: form,
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  h = await createHarness();
  pro = await newUser(h, 'pro');
  await grantPlan(h, pro.id, 'creator_pro');
  member = await newUser(h, 'member');
  await h.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [pro.defaultSpaceId, member.id]);
  outsider = await newUser(h, 'outsider');
  await grantPlan(h, outsider.id, 'creator_pro');
  trial = await newUser(h, 'trial');
  enterprise = await newUser(h, 'enterprise');
  await grantPlan(h, enterprise.id, 'enterprise');
}, 240_000);
afterAll(async () => {
  if (h) await settleVoiceTasks(h.deps);
  await h?.close();
});

describe('voice presets from a sample', () => {
  let presetId: string;

  it('makes a preset from an uploaded recording: processing, then done with the measured voice', async () => {
    const media = await uploadOk(h, pro, librivoxWav('0870'), { kind: 'audio' });
    const r = await create(pro, { media_id: media, similarity_boost: 0.8, stability: 0.4 });
    expect(r.response.status, JSON.stringify(r.error)).toBe(201);
    expect(r.data).toMatchObject({
      label: 'Narrator', space_id: pro.defaultSpaceId, similarity_boost: 0.8, stability: 0.4, is_temporary: false, project_id: null,
      speaker_id: null, engine: 'builtin', gender: 'male',
    });
    expect(['processing', 'done']).toContain(r.data!.status);
    presetId = r.data!.id;
    expect(r.data!.voice_id).toBe(`preset:${presetId}`);
    // the LibriVox reader speaks around 100 Hz
    expect(r.data!.profile!.median_hz).toBeGreaterThan(80);
    expect(r.data!.profile!.median_hz).toBeLessThan(140);
    expect(r.data!.profile!.speech_rate).toBeGreaterThan(1);
    expect(r.data!.sample_duration).toBeGreaterThan(2);
    await waitDone(pro, presetId);

    const l = await list(pro);
    expect(l.response.status).toBe(200);
    expect(l.data).toMatchObject({ limit: 10, used: 1, engine: 'builtin' });
    expect(l.data!.presets.map((p) => p.id)).toEqual([presetId]);
    // a member of the Teamspace sees it too (the owner's plan applies)
    expect((await list(member, pro.defaultSpaceId)).data!.presets).toHaveLength(1);
  }, 120_000);

  it('renames, tunes accent and expressiveness, and plays samples at chosen settings', async () => {
    const p = await as(pro).PATCH('/api/voice_preset/{id}', { params: { path: { id: presetId } }, body: { label: 'Host' } });
    expect(p.response.status, JSON.stringify(p.error)).toBe(200);
    expect(p.data!.label).toBe('Host');
    const s = await as(pro).POST('/api/voice_preset/{id}/update_settings', { params: { path: { id: presetId } }, body: { similarity_boost: 1, stability: 0.2 } });
    expect(s.response.status).toBe(200);
    expect(s.data).toMatchObject({ similarity_boost: 1, stability: 0.2 });
    expect((await preset(pro, presetId)).data).toMatchObject({ label: 'Host', similarity_boost: 1 });

    const play = async (q: string) => {
      const r = await h.request('GET', `/api/voice_preset/${presetId}/sample?${q}`, { token: pro.token });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('audio/wav');
      return Buffer.from(await r.arrayBuffer());
    };
    const strong = await play('language=es&similarity_boost=1&stability=0.5');
    expect(strong.subarray(0, 4).toString()).toBe('RIFF');
    const none = await play('language=es&similarity_boost=0&stability=0.5');
    const pitchOf = (b: Buffer) => {
      const dir = tempDir('sample-');
      const f = join(dir, 's.wav');
      writeFileSync(f, b);
      const w = readWav(f);
      return pitchProfile(toMono(w.channelData), w.sampleRate, { minFrames: 5 }).medianHz!;
    };
    // full accent: the built-in voice moves to the reader's pitch; none: the built-in voice as it is
    expect(Math.abs(semitones(pitchOf(strong), 100))).toBeLessThan(Math.abs(semitones(pitchOf(none), 100)) + 0.01);
    expect(Math.abs(semitones(pitchOf(strong), 100))).toBeLessThan(2.5);

    const bad = await as(pro).GET('/api/voice_preset/{id}/sample', { params: { path: { id: presetId }, query: { language: 'es', stability: '3' } } });
    expect(bad.response.status).toBe(422);
  }, 120_000);

  it('makes a preset from the audio extracted from a video', async () => {
    const video = await makeSpeechVideo({ seconds: 12 });
    const m = await extractAudio(pro, video);
    expect(m.status, JSON.stringify(m.json)).toBe(200);
    expect(m.json).toMatchObject({ kind: 'audio', status: 'uploaded', filename: 'talk.wav' });
    const r = await create(pro, { media_id: m.json.id, label: 'From the video' });
    expect(r.response.status, JSON.stringify(r.error)).toBe(201);
    await waitDone(pro, r.data!.id);
    // a video upload works as well (its sound is taken)
    const v = await uploadOk(h, pro, video, { kind: 'video' });
    const r2 = await create(pro, { media_id: v, label: 'Video upload' });
    expect(r2.response.status, JSON.stringify(r2.error)).toBe(201);
    await waitDone(pro, r2.data!.id);
    expect((await list(pro)).data!.used).toBe(3);
  }, 120_000);

  it('deletes a preset (and its files)', async () => {
    const r = await create(pro, { media_id: await uploadOk(h, pro, librivoxWav('0880'), { kind: 'audio' }), label: 'Temporary' });
    const id = r.data!.id;
    await waitDone(pro, id);
    const d = await as(pro).DELETE('/api/voice_preset/{id}', { params: { path: { id } } });
    expect(d.response.status, JSON.stringify(d.error)).toBe(200);
    expect(d.data).toEqual({ id, status: 'deleted' });
    expect((await preset(pro, id)).response.status).toBe(404);
    expect(await h.deps.storage.exists(`voice_presets/${id}/sample.wav`)).toBe(false);
  }, 120_000);
});

describe('refused samples', () => {
  it('a sample with no speech: 422', async () => {
    const dir = tempDir('noise-');
    const noise = join(dir, 'noise.wav');
    await synthAudio(noise, { seconds: 8, source: 'anoisesrc=c=pink:a=0.05', sampleRate: 16000 });
    const r = await create(pro, { media_id: await uploadOk(h, pro, noise, { kind: 'audio' }) });
    expect(r.response.status, JSON.stringify(r.error)).toBe(422);
    expect(issuesOf(r.error)[0]!.msg).toMatch(/no speech|no voiced speech|too little speech/);
  }, 120_000);

  it('a 2-hour sample: 422 naming the limit', async () => {
    const dir = tempDir('long-');
    const long = join(dir, 'long.flac');
    await synthAudio(long, { seconds: 7200, source: 'anullsrc=r=8000:cl=mono', sampleRate: 8000 });
    const r = await create(pro, { media_id: await uploadOk(h, pro, long, { kind: 'audio' }) });
    expect(r.response.status, JSON.stringify(r.error)).toBe(422);
    expect(issuesOf(r.error)[0]!.msg).toBe('The sample is too long (2:00:00): at most 5 minutes of one person talking');
  }, 60_000);

  it('a file that is not audio: 422', async () => {
    const dir = tempDir('text-');
    const f = join(dir, 'voice.mp3');
    writeFileSync(f, 'this is not a recording\n'.repeat(200));
    const up = await uploadFile(h, pro, f, { kind: 'audio' });
    expect(up.json.status).toBe('failed');
    const r = await create(pro, { media_id: up.json.id });
    expect(r.response.status, JSON.stringify(r.error)).toBe(422);
    expect(issuesOf(r.error)[0]!.msg).toMatch(/^The file cannot be used as a voice sample: /);
    // nothing was made
    expect((await list(pro)).data!.used).toBe(3);
  }, 120_000);

  it('an 11th clone on Creator Pro is refused with the plan; Enterprise has no limit', async () => {
    const u = await newUser(h, 'full');
    await grantPlan(h, u.id, 'creator_pro');
    for (let i = 0; i < 10; i++) {
      await h.deps.db.query(
        `INSERT INTO voice_presets (space_id, label, engine, status, profile) VALUES ($1, $2, 'builtin', 'done', $3::jsonb)`,
        [u.defaultSpaceId, `Clone ${i + 1}`, JSON.stringify({ median_hz: 100, range_st: 4, spectral_tilt: 900, speech_rate: 4, speech_sec: 10, gender: 'male' })],
      );
    }
    const media = await uploadOk(h, u, librivoxWav('0890'), { kind: 'audio' });
    const r = await create(u, { media_id: media });
    expect(r.response.status, JSON.stringify(r.error)).toBe(403);
    expect(r.error).toEqual({
      detail: 'Your plan allows 10 voice clones in a Teamspace: delete one or upgrade to Enterprise for unlimited clones',
      code: 'voice_clone_limit', feature: 'voice_presets', limit: 10, required_plan: 'enterprise',
    });
    expect((await list(u)).data).toMatchObject({ limit: 10, used: 10 });

    for (let i = 0; i < 10; i++) {
      await h.deps.db.query(`INSERT INTO voice_presets (space_id, label, engine, status) VALUES ($1, $2, 'builtin', 'done')`, [enterprise.defaultSpaceId, `E${i}`]);
    }
    const e = await create(enterprise, { media_id: await uploadOk(h, enterprise, librivoxWav('0890'), { kind: 'audio' }) });
    expect(e.response.status, JSON.stringify(e.error)).toBe(201);
    await waitDone(enterprise, e.data!.id);
    expect((await list(enterprise)).data).toMatchObject({ limit: null, used: 11 });
  }, 120_000);

  it("another space's voice: 403 for the outsider, who cannot see, play, change, delete or use it", async () => {
    const own = (await list(pro)).data!.presets[0]!.id;
    const path = { id: own };
    const them = as(outsider);
    for (const [what, call] of [
      ['GET', () => them.GET('/api/voice_preset/{id}', { params: { path } })],
      ['PATCH', () => them.PATCH('/api/voice_preset/{id}', { params: { path }, body: { label: 'Mine now' } })],
      ['DELETE', () => them.DELETE('/api/voice_preset/{id}', { params: { path } })],
      ['GET sample', () => them.GET('/api/voice_preset/{id}/sample', { params: { path, query: { language: 'en' } } })],
      ['POST update_settings', () => them.POST('/api/voice_preset/{id}/update_settings', { params: { path }, body: { similarity_boost: 0.1, stability: 0.1 } })],
    ] as const) {
      const r = await call();
      expect(r.response.status, `${what}: ${JSON.stringify(r.error)}`).toBe(403);
    }
    expect((await list(outsider, pro.defaultSpaceId)).response.status).toBe(403);
    expect((await statuses(outsider, own)).data).toEqual([]);
    // a sample uploaded in another space cannot be cloned either
    const foreign = await uploadOk(h, pro, librivoxWav('0920'), { kind: 'audio' });
    expect((await create(outsider, { media_id: foreign })).response.status).toBe(404);
    // nor given to a speaker of the outsider's project
    const media = await uploadOk(h, outsider, librivoxWav('0870'), { kind: 'video' });
    const project = await seedProject(h, outsider, { mediaId: media });
    const r = await them.PATCH('/api/project/{id}', { params: { path: { id: project } }, body: { speakers: [{ id: 'SPEAKER_0', voice_id: `preset:${own}` }] } });
    expect(r.response.status, JSON.stringify(r.error)).toBe(400);
    expect((await preset(outsider, '00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
  }, 120_000);

  it('a trial user is refused with the plan', async () => {
    const media = await uploadOk(h, trial, librivoxWav('0870'), { kind: 'audio' });
    const r = await create(trial, { media_id: media });
    expect(r.response.status, JSON.stringify(r.error)).toBe(403);
    expect(r.error).toEqual({ detail: featureRefusalText('voice_presets'), code: 'feature_not_in_plan', feature: 'voice_presets', required_plan: 'creator_pro' });
    expect((await list(trial)).response.status).toBe(403);
    // a trial member of a Creator Pro Teamspace works under the owner's plan
    expect((await list(member, pro.defaultSpaceId)).response.status).toBe(200);
  }, 120_000);

  it('bad bodies: 422', async () => {
    expect((await create(pro, { media_id: 'nope' })).response.status).toBe(422);
    expect((await create(pro, { media_id: '00000000-0000-4000-8000-000000000000', label: '' })).response.status).toBe(422);
    expect((await create(pro, { media_id: '00000000-0000-4000-8000-000000000000', similarity_boost: 2 })).response.status).toBe(422);
    // Untyped: the required ids query left out on purpose.
    expect((await api(h, 'GET', '/api/voice_preset/statuses', { token: pro.token })).status).toBe(422);
  });
});

describe('presets of a project speaker', () => {
  let project: string;

  beforeAll(async () => {
    // a two-voice clip: the reader (male) and a higher voice (female), with their segments
    const track = await makeSpeechTrack({ twoSpeakers: true });
    const media = await uploadOk(h, pro, librivoxWav('0870'), { kind: 'video' });
    project = await seedProject(h, pro, {
      mediaId: media,
      duration: track.durationSec,
      segments: track.turns.map((t) => ({ start: t.start, end: t.end, speaker: t.speaker === 'male' ? 'SPEAKER_0' : 'SPEAKER_1', src: 'Hello.', dst: 'Hola a todos.' })),
    });
    await h.deps.storage.putFile(projectKey(project, 'audio_16k.wav'), track.wav);
  }, 120_000);

  it('clones a speaker into the library and makes an instant preset of another; the voice pool offers them', async () => {
    const libR = await fromProject(pro, { project_id: project, speaker_id: 'SPEAKER_0', label: 'Reader' });
    expect(libR.response.status, JSON.stringify(libR.error)).toBe(201);
    const lib = libR.data!;
    expect(lib).toMatchObject({ label: 'Reader', is_temporary: false, project_id: project, speaker_id: 'SPEAKER_0', gender: 'male' });
    const instR = await fromProject(pro, { project_id: project, speaker_id: 'SPEAKER_1', is_temporary: true });
    expect(instR.response.status, JSON.stringify(instR.error)).toBe(201);
    const inst = instR.data!;
    expect(inst).toMatchObject({ label: 'Speaker 2 (Seeded)', is_temporary: true, gender: 'female' });
    expect(inst.profile!.median_hz).toBeGreaterThan(160);
    await waitDone(pro, lib.id);
    await waitDone(pro, inst.id);
    // the instant preset is not in the library and not counted
    const l = await list(pro);
    expect(l.data!.presets.map((p) => p.id)).toContain(lib.id);
    expect(l.data!.presets.map((p) => p.id)).not.toContain(inst.id);

    const pool = await as(pro).GET('/api/project/{id}/voice_pool', { params: { path: { id: project } } });
    expect(pool.response.status).toBe(200);
    const ids = pool.data!.voices.map((v) => v.id);
    expect(ids).toContain(`preset:${lib.id}`);
    expect(ids).toContain(`preset:${inst.id}`);
    expect(ids.some((id) => id.startsWith('espeak:'))).toBe(true);
    expect(pool.data!.voices.find((v) => v.id === `preset:${inst.id}`)).toMatchObject({ is_temporary: true, speaker_id: 'SPEAKER_1', preset_id: inst.id });

    // a second instant preset of the same speaker replaces the first
    const againR = await fromProject(pro, { project_id: project, speaker_id: 'SPEAKER_1', is_temporary: true });
    expect(againR.response.status).toBe(201);
    const again = againR.data!;
    await waitDone(pro, again.id);
    expect((await preset(pro, inst.id)).response.status).toBe(404);

    // the speakers take them, and the dub is voiced with them
    const r = await as(pro).PATCH('/api/project/{id}', {
      params: { path: { id: project } }, body: { speakers: [{ id: 'SPEAKER_0', voice_id: `preset:${lib.id}` }, { id: 'SPEAKER_1', voice_id: `preset:${again.id}` }] },
    });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.speakers.map((s) => s.voice_id)).toEqual([`preset:${lib.id}`, `preset:${again.id}`]);
    const row = (await findProject(h.deps.db, project))!;
    const tmp = tempDir('vo-');
    await voiceover({ deps: h.deps, projectId: project, stage: 'voiceover', signal: new AbortController().signal, tmp, log: () => {}, project: row } as Parameters<typeof voiceover>[0]);
    const track = readWav(await h.deps.storage.localFile(projectKey(project, 'voice_track.wav')));
    const mono = toMono(track.channelData);
    const turns = (await makeSpeechTrack({ twoSpeakers: true })).turns;
    for (const t of turns) {
      const part = mono.subarray(Math.floor(t.start * track.sampleRate), Math.floor(t.end * track.sampleRate));
      const f0 = pitchProfile(part, track.sampleRate, { minFrames: 5 }).medianHz!;
      // each speaker is dubbed near their own pitch: the reader low, the other voice high
      if (t.speaker === 'male') expect(f0).toBeLessThan(140);
      else expect(f0).toBeGreaterThan(150);
    }

    // tuning from the editor re-voices this project's speakers on the next generate
    const tune = await as(pro).POST('/api/voice_preset/{id}/update_settings_from_project', {
      params: { path: { id: lib.id } }, body: { project_id: project, similarity_boost: 0.5, stability: 0.8 },
    });
    expect(tune.response.status, JSON.stringify(tune.error)).toBe(200);
    const changed = await h.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM segments WHERE project_id = $1 AND speaker = 'SPEAKER_0' AND status = 'updated'`, [project]);
    expect(changed[0]!.n).toBeGreaterThan(0);
  }, 180_000);

  it('refuses a speaker with no speech, an unknown speaker and a trial instant clone', async () => {
    expect((await fromProject(pro, { project_id: project, speaker_id: 'SPEAKER_9' })).response.status).toBe(404);
    const media = await uploadOk(h, trial, librivoxWav('0870'), { kind: 'video' });
    const tp = await seedProject(h, trial, { mediaId: media });
    const r = await fromProject(trial, { project_id: tp, speaker_id: 'SPEAKER_0', is_temporary: true });
    expect(r.response.status).toBe(403);
    expect(r.error!.feature).toBe('instant_voice_preset');
  }, 120_000);
});

describe('tutorial flags', () => {
  it('saves set_voice_preset_tutorial_displayed and set_instant_voice_clone_tooltip_displayed', async () => {
    expect((await as(member).GET('/api/users/voice_tutorials')).data).toEqual({
      voice_preset_tutorial_displayed: false, instant_voice_clone_tooltip_displayed: false,
    });
    expect((await as(member).POST('/api/users/set_voice_preset_tutorial_displayed')).data).toEqual({
      voice_preset_tutorial_displayed: true, instant_voice_clone_tooltip_displayed: false,
    });
    expect((await as(member).POST('/api/users/set_instant_voice_clone_tooltip_displayed')).data).toEqual({
      voice_preset_tutorial_displayed: true, instant_voice_clone_tooltip_displayed: true,
    });
    expect((await as(null).POST('/api/users/set_voice_preset_tutorial_displayed')).response.status).toBe(401);
  });
});
