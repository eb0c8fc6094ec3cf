// "Keep the original audio here" (issue 29) through the real pipeline (built-in engines, a LibriVox-based clip,
// both SRTs uploaded so no recognition or translation runs): a kept segment is not voiced (the voice-only track is
// silent there, its clip is not made) and the dub's audio over its span is the original's (its loudness envelope
// follows the source's), while the other segment keeps its dub and is not synthesised again.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractMonoWav } from '../../../server/media/ffmpeg';
import { readWav } from '../../../server/media/wav';
import type { VoiceoverStats } from '../../../server/domains/projects/stages/voiceover';
import { projectKey } from '../../../server/storage/index';
import { makeSpeechVideo, tempDir } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { createProject, newUser, replacePipeline, srtText, uploadOk, waitForStatus, type TestUser } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';
import type { components } from '../../../src/lib/api/schema';
import { grantPlan } from '../../server/spaces/spaces-fixtures';

let h: Harness;
let u: TestUser;
let projectId: string;
let video: string;
const dir = tempDir('keep-original-');
const KEPT: [number, number] = [6.5, 11];
const DUBBED: [number, number] = [0.55, 5.5];

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'keeper');
  await grantPlan(h, u.id, 'business'); // SRT uploads are a plan feature
  video = await makeSpeechVideo({ seconds: 12 });
  const p = await replacePipeline(h, { heartbeatMs: 1000, staleSec: 30 });
  await p.startWorker(1);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

function srtFile(name: string, cues: Array<[number, number, string]>): string {
  const p = join(dir, name);
  writeFileSync(p, srtText(cues));
  return p;
}

const as = () => typedClient(h, u.token);
const transcript = async () => (await as().GET('/api/project/{id}/transcript', { params: { path: { id: projectId } } })).data!.segments;

async function download(type: components['schemas']['MediaDownloadRequest']['media_type'], name: string): Promise<string> {
  const r = await as().POST('/api/project/{id}/media_download', { params: { path: { id: projectId } }, body: { media_type: type } });
  expect(r.response.status, `${type}: ${JSON.stringify(r.error)}`).toBe(200);
  const res = await h.app.request(r.data!.url);
  expect(res.status).toBe(200);
  const out = join(dir, name);
  writeFileSync(out, Buffer.from(await res.arrayBuffer()));
  const wav = out.replace(/\.\w+$/, '.wav');
  await extractMonoWav(out, wav, { sampleRate: 16000 });
  return wav;
}

async function stats(): Promise<VoiceoverStats> {
  return JSON.parse((await h.deps.storage.getBuffer(projectKey(projectId, 'voiceover_stats.json'))).toString('utf8')) as VoiceoverStats;
}

/** RMS envelope (dB, 20 ms windows) of a mono WAV between two times. */
function envelope(wav: string, [a, b]: [number, number]): number[] {
  const w = readWav(wav);
  const x = w.channelData[0]!;
  const win = Math.round(0.02 * w.sampleRate);
  const out: number[] = [];
  for (let i = Math.floor(a * w.sampleRate); i + win <= Math.min(x.length, b * w.sampleRate); i += win) {
    let s = 0;
    for (let k = i; k < i + win; k++) s += x[k]! * x[k]!;
    out.push(10 * Math.log10(s / win + 1e-10));
  }
  return out;
}

function rmsDb(wav: string, span: [number, number]): number {
  const e = envelope(wav, span);
  return 10 * Math.log10(e.reduce((s, d) => s + 10 ** (d / 10), 0) / Math.max(1, e.length));
}

/** Pearson correlation of two envelopes (over their common length). */
function correlation(a: number[], b: number[]): number {
  const n = Math.min(a.length, b.length);
  const ma = a.slice(0, n).reduce((s, x) => s + x, 0) / n;
  const mb = b.slice(0, n).reduce((s, x) => s + x, 0) / n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    sab += (a[i]! - ma) * (b[i]! - mb);
    saa += (a[i]! - ma) ** 2;
    sbb += (b[i]! - mb) ** 2;
  }
  return sab / Math.sqrt(saa * sbb);
}

async function generate(): Promise<void> {
  const g = await as().POST('/api/project/{id}/generate', { params: { path: { id: projectId } } });
  expect(g.response.status, JSON.stringify(g.error)).toBe(200);
  const p = await waitForStatus(h, u, projectId, (s) => s === 'merging_done' || /failed/.test(s), 240_000);
  expect(p.status, p.error_message ?? '').toBe('merging_done');
}

describe('a segment kept in the original audio', () => {
  it('is not voiced, and the original speech plays over its span; only what changed is redone', async () => {
    const mediaId = await uploadOk(h, u, video);
    const src = await uploadOk(h, u, srtFile('en.srt', [
      [DUBBED[0], DUBBED[1], 'And Mister John Dashwood had then leisure to consider how much there might be in his power.'],
      [KEPT[0], KEPT[1], 'He was not an ill disposed young man, unless to be rather cold hearted.'],
    ]), { kind: 'srt' });
    const dst = await uploadOk(h, u, srtFile('es.srt', [
      [DUBBED[0], DUBBED[1], 'Y el señor John Dashwood tuvo tiempo de pensar cuánto podía hacer por ellas.'],
      [KEPT[0], KEPT[1], 'No era un joven mal dispuesto, salvo por ser algo frío de corazón.'],
    ]), { kind: 'srt' });
    const r = await createProject(h, u, { name: 'Kept', src_lang: 'en', dst_lang: 'es', media_id: mediaId, src_srt_media_id: src, dst_srt_media_id: dst });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    projectId = r.data!.id;
    const p = await waitForStatus(h, u, projectId, (s) => s === 'translation_done' || /failed|^no_/.test(s), 240_000);
    expect(p.status).toBe('translation_done');
    const original = join(dir, 'original.wav');
    await extractMonoWav(video, original, { sampleRate: 16000 });

    // First dub: both segments voiced.
    await generate();
    const segs = await transcript();
    expect(segs).toHaveLength(2);
    const before = await stats();
    expect(before.synthesized).toBe(2);
    const voiceBefore = await download('voiceover', 'voice-1.m4a');
    const audioBefore = await download('audio', 'audio-1.m4a');
    const keptVoiceBefore = rmsDb(voiceBefore, KEPT);
    const corrBefore = correlation(envelope(audioBefore, KEPT), envelope(original, KEPT));
    expect(keptVoiceBefore).toBeGreaterThan(-40);

    // Keep the original audio over the second segment, and dub again.
    const k = await as().POST('/api/project/{id}/transcript/{segmentId}/keep_original', {
      params: { path: { id: projectId, segmentId: segs[1]!.id } },
      body: { keep: true },
    });
    expect(k.response.status, JSON.stringify(k.error)).toBe(200);
    await generate();
    const after = await stats();
    // the first segment's clip is reused; the kept one is not voiced at all
    expect(after.synthesized).toBe(0);
    expect(after.cached).toBe(1);
    expect(after.fitted.map((f) => f.id)).toEqual([segs[0]!.id]);
    const voiceAfter = await download('voiceover', 'voice-2.m4a');
    const audioAfter = await download('audio', 'audio-2.m4a');
    const keptVoiceAfter = rmsDb(voiceAfter, KEPT);
    expect(keptVoiceAfter).toBeLessThan(-60);
    // the dubbed segment is still voiced
    expect(rmsDb(voiceAfter, DUBBED)).toBeGreaterThan(-40);
    // the output over the kept span follows the original speech
    const corrAfter = correlation(envelope(audioAfter, KEPT), envelope(original, KEPT));
    const corrDubbed = correlation(envelope(audioAfter, DUBBED), envelope(original, DUBBED));
    console.log(JSON.stringify({ keptVoiceBefore, keptVoiceAfter, corrBefore, corrAfter, corrDubbed }));
    expect(corrAfter).toBeGreaterThan(0.9);
    expect(corrAfter).toBeGreaterThan(corrBefore + 0.2);
    expect(corrDubbed).toBeLessThan(0.8);
    // the transcript: kept, with no speed or fit of its own
    const t = await transcript();
    expect(t[1]).toMatchObject({ keep_original: true, speed_factor: null, overflow: null, status: 'done' });
    expect(t[0]!.speed_factor).toBeGreaterThan(0);
    // the quality report judges the dub only: the kept segment is neither "no voice heard" nor "original voice audible"
    const q = await as().GET('/api/project/{id}/quality', { params: { path: { id: projectId } } });
    expect(q.response.status, JSON.stringify(q.error)).toBe(200);
    expect(q.data!.segments.map((s) => s.id)).toEqual([segs[0]!.id]);
    expect(q.data!.attention.filter((a) => a.segment_id === segs[1]!.id)).toEqual([]);
  }, 600_000);
});
