// The whole pipeline, English -> Spanish, with the built-in engines (Silero VAD, pocketsphinx, DSP speakers,
// apertium, espeak-ng, DSP separation) on a 12 s LibriVox-based clip, through the HTTP API: upload,
// create, analysis, generate, outputs checked with ffprobe, SRT/VTT content, a second generate after
// editing one segment re-synthesises only that segment, burned subtitles.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractMonoWav } from '../../../server/media/ffmpeg';
import { probe, type ProbeResult } from '../../../server/media/probe';
import { readWav } from '../../../server/media/wav';
import { parseSrt } from '../../../server/media/subtitles';
import type { VoiceoverStats } from '../../../server/domains/projects/stages/voiceover';
import { projectKey } from '../../../server/storage/index';
import { librivoxTranscript, makeSpeechVideo, tempDir, wordErrorRate } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { createProject, newUser, replacePipeline, uploadOk, waitForStatus, type TestUser } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';
import type { components } from '../../../src/lib/api/schema';
import { grantPlan } from '../../server/spaces/spaces-fixtures';

const SECONDS = 12;
let h: Harness;
let u: TestUser;
let source: ProbeResult;
let projectId: string;
const dir = tempDir('e2e-');

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'dubber');
  // Subtitles, SRT and the dictionary are plan features (server/app/gates.ts): a Business plan.
  await grantPlan(h, u.id, 'business');
  const p = await replacePipeline(h, { heartbeatMs: 1000, staleSec: 30 });
  await p.startWorker(1);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

type MediaType = components['schemas']['MediaDownloadRequest']['media_type'];

const as = () => typedClient(h, u.token);
const transcript = () => as().GET('/api/project/{id}/transcript', { params: { path: { id: projectId } } });
const credits = () => as().GET('/api/space/{id}/credits', { params: { path: { id: u.defaultSpaceId } } });

/** The signed URL of one output. */
async function mediaUrl(type: MediaType): Promise<string> {
  const r = await as().POST('/api/project/{id}/media_download', { params: { path: { id: projectId } }, body: { media_type: type } });
  expect(r.response.status, `${type}: ${JSON.stringify(r.error)}`).toBe(200);
  return r.data!.url;
}

async function download(type: MediaType, name: string): Promise<string> {
  const res = await h.app.request(await mediaUrl(type));
  expect(res.status).toBe(200);
  const out = join(dir, name);
  writeFileSync(out, Buffer.from(await res.arrayBuffer()));
  return out;
}

async function stats(): Promise<VoiceoverStats> {
  return JSON.parse((await h.deps.storage.getBuffer(projectKey(projectId, 'voiceover_stats.json'))).toString('utf8')) as VoiceoverStats;
}

/** RMS of a mono WAV between two times. */
function rmsBetween(wav: string, a: number, b: number): number {
  const w = readWav(wav);
  const x = w.channelData[0]!;
  const i0 = Math.max(0, Math.floor(a * w.sampleRate));
  const i1 = Math.min(x.length, Math.floor(b * w.sampleRate));
  let s = 0;
  for (let i = i0; i < i1; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s / Math.max(1, i1 - i0));
}

describe('English -> Spanish, built-in engines', () => {
  it('analyses the upload: transcript, speakers, voices, translation', async () => {
    const video = await makeSpeechVideo({ seconds: SECONDS });
    source = await probe(video);
    const mediaId = await uploadOk(h, u, video);
    const r = await createProject(h, u, { name: 'Sense and Sensibility', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    projectId = r.data!.id;
    const p = await waitForStatus(h, u, projectId, (s) => s === 'translation_done' || /failed|^no_/.test(s), 170_000);
    expect(p).toMatchObject({ status: 'translation_done', progress: 100, error_message: null, tts_provider: 'espeak' });
    expect(p.duration).toBeCloseTo(SECONDS, 1);
    expect(p.speakers).toHaveLength(1);
    expect(p.speakers[0]!.voice_id).toBeTruthy();
    expect(p.original_video).toMatch(/^\/api\/files\//);

    const segs = (await transcript()).data!.segments;
    expect(segs.length).toBeGreaterThanOrEqual(2);
    for (const s of segs) {
      expect(s.end).toBeGreaterThan(s.start);
      expect(s.end).toBeLessThanOrEqual(SECONDS + 0.01);
      expect(s.status).toBe('done');
      expect(s.speaker).toBe(p.speakers[0]!.id);
      expect(s.dst.text.length).toBeGreaterThan(0);
      expect(s.dst.text).not.toBe(s.src.text);
    }
    // The first sentences of the clip, recognised well enough to be the same text.
    const reference = `${librivoxTranscript('0870')} ${librivoxTranscript('0880')}`;
    const hypothesis = segs.map((s) => s.src.text).join(' ');
    expect(wordErrorRate(reference, hypothesis)).toBeLessThan(0.5);
  });

  it('generates the dubbed video, audio, voiceover, SRT, VTT and cover', async () => {
    const g = await as().POST('/api/project/{id}/generate', { params: { path: { id: projectId } } });
    expect(g.response.status, JSON.stringify(g.error)).toBe(200);
    const p = await waitForStatus(h, u, projectId, (s) => s === 'merging_done' || /failed/.test(s), 170_000);
    expect(p).toMatchObject({ status: 'merging_done', progress: 100, error_message: null, changed_segments: 0 });
    for (const f of ['cover', 'translated_audio', 'translated_video', 'voiceover', 'translation_srt_path', 'translation_vtt_path'] as const) {
      expect(p[f], f).toMatch(/^\/api\/files\//);
    }
    expect((await credits()).data!.minutes.used).toBe(1);

    const video = await probe(await download('video', 'dubbed.mp4'));
    expect(video.videoCodec).toBe('h264');
    expect(video.audioCodec).toBe('aac');
    expect(video.hasAudio).toBe(true);
    expect(video.fps).toBe(source.fps);
    expect(video.width).toBe(source.width);
    expect(Math.abs(video.durationSec - source.durationSec)).toBeLessThan(0.1);

    const audio = await probe(await download('audio', 'audio.m4a'));
    expect(audio.audioCodec).toBe('aac');
    expect(Math.abs(audio.durationSec - SECONDS)).toBeLessThan(0.1);
    const voicePath = await download('voiceover', 'voiceover.m4a');
    const voice = await probe(voicePath);
    expect(Math.abs(voice.durationSec - SECONDS)).toBeLessThan(0.1);

    // The voiceover speaks inside the segments and is silent before the first one.
    const segs = (await transcript()).data!.segments;
    const wav = join(dir, 'voice.wav');
    await extractMonoWav(voicePath, wav);
    expect(rmsBetween(wav, segs[0]!.start, segs[0]!.end)).toBeGreaterThan(0.01);
    expect(rmsBetween(wav, 0, Math.max(0.05, segs[0]!.start - 0.1))).toBeLessThan(0.002);
    for (const s of segs) {
      expect(s.speed_factor).toBeGreaterThan(0);
      expect(s.overflow).toBeGreaterThanOrEqual(0);
    }

    const srt = await (await h.app.request(await mediaUrl('srt'))).text();
    expect(srt).toMatch(/^1\n\d{2}:\d{2}:\d{2},\d{3} --> \d{2}:\d{2}:\d{2},\d{3}\n/);
    const cues = parseSrt(srt);
    // readable cues (issue 29): every word of the translation in order, at most 2 lines of 42 characters
    expect(cues.map((c) => c.text.replace(/\n/g, ' ')).join(' ')).toBe(segs.map((s) => s.dst.text.replace(/\s+/g, ' ').trim()).join(' '));
    for (const c of cues) expect(c.text.split('\n').every((l) => l.length <= 42) && c.text.split('\n').length <= 2).toBe(true);
    expect(cues[0]!.start).toBeCloseTo(segs[0]!.start, 3);
    const vtt = await (await h.app.request(await mediaUrl('vtt'))).text();
    expect(vtt).toMatch(/^WEBVTT\n\n1\n\d{2}:\d{2}:\d{2}\.\d{3} --> /);
    expect(vtt).toContain(cues[0]!.text);
    const cover = await h.app.request(p.cover!);
    expect(cover.headers.get('content-type')).toBe('image/jpeg');
    // taken from the source beside the VAD at analysis (issue 30), with the source's loudness: the merge copied it
    const early = await h.deps.storage.getBuffer(projectKey(projectId, 'source_cover.jpg'));
    expect(early.length).toBeGreaterThan(1000);
    expect(Buffer.from(await cover.arrayBuffer()).equals(early)).toBe(true);
    expect(await h.deps.storage.exists(projectKey(projectId, 'source_loudness.json'))).toBe(true);

    const st = await stats();
    expect(st.synthesized).toBe(segs.length);
    expect(st.cached).toBe(0);
  });

  it('a second generate after editing one segment synthesises only that segment', async () => {
    const segs = (await transcript()).data!.segments;
    const hashes = new Map((await h.deps.db.query<{ id: string; audio_hash: string }>('SELECT id, audio_hash FROM segments WHERE project_id = $1', [projectId])).map((r) => [r.id, r.audio_hash]));
    const edit = await as().PATCH('/api/project/{id}/transcript', {
      params: { path: { id: projectId } },
      body: { segments: [{ id: segs[0]!.id, dst: { text: 'Y el señor John Dashwood tuvo tiempo de pensar.' } }] },
    });
    expect(edit.response.status, JSON.stringify(edit.error)).toBe(200);
    expect((await as().GET('/api/project/{id}', { params: { path: { id: projectId } } })).data).toMatchObject({ status: 'transcript_edited', changed_segments: 1 });
    // as for a project analysed before the cover was taken at analysis: the merge takes it itself, and keeps it
    await h.deps.storage.delete(projectKey(projectId, 'source_cover.jpg'));
    const g = await as().POST('/api/project/{id}/generate', { params: { path: { id: projectId } } });
    expect(g.response.status, JSON.stringify(g.error)).toBe(200);
    const done = await waitForStatus(h, u, projectId, (s) => s === 'merging_done' || /failed/.test(s), 170_000);
    const cover = await h.app.request(done.cover!);
    expect(cover.headers.get('content-type')).toBe('image/jpeg');
    expect((await cover.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    // and keeps it for the next merges
    expect(await h.deps.storage.exists(projectKey(projectId, 'source_cover.jpg'))).toBe(true);
    const st = await stats();
    expect(st.synthesized).toBe(1);
    expect(st.cached).toBe(segs.length - 1);
    const after = new Map((await h.deps.db.query<{ id: string; audio_hash: string }>('SELECT id, audio_hash FROM segments WHERE project_id = $1', [projectId])).map((r) => [r.id, r.audio_hash]));
    expect(after.get(segs[0]!.id)).not.toBe(hashes.get(segs[0]!.id));
    for (const s of segs.slice(1)) expect(after.get(s.id)).toBe(hashes.get(s.id));
    // The re-dub is charged only for the edited segment (a few seconds: one minute), not the whole video again.
    expect((await credits()).data!.minutes.used).toBe(2);
    const srt = await (await h.app.request(await mediaUrl('srt'))).text();
    expect(srt).toContain('Y el señor John Dashwood\ntuvo tiempo de pensar.');
  });

  it('burns the subtitles into the dubbed video on request', async () => {
    const r = await as().POST('/api/project/{id}/burn_subtitles', { params: { path: { id: projectId }, query: { video_type: 'translated' } } });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.subtitles_burn_state).toBe('processing');
    const t0 = Date.now();
    let p = r.data!;
    while (p.subtitles_burn_state === 'processing' && Date.now() - t0 < 120_000) {
      await new Promise((res) => setTimeout(res, 300));
      p = (await as().GET('/api/project/{id}', { params: { path: { id: projectId } } })).data!;
    }
    expect(p).toMatchObject({ subtitles_burn_state: 'done', status: 'merging_done' });
    const res = await h.app.request(p.subtitles_info.subtitles_burn_result_path!);
    const out = join(dir, 'burned.mp4');
    writeFileSync(out, Buffer.from(await res.arrayBuffer()));
    const burned = await probe(out);
    expect(Math.abs(burned.durationSec - source.durationSec)).toBeLessThan(0.1);
    expect(burned.fps).toBe(source.fps);
  });
});
