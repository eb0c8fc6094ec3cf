// A re-dub rebuilds only what it touches (issue 30): the soundtrack is mixed and encoded in independent chunks, and a
// merge after a one-segment change re-encodes only the chunks that segment falls in, keeping the previous loudness
// gain. Its output is what a full merge of the same inputs at that gain writes: the decoded samples are the same
// everywhere (and so within -60 dB around the change), the duration is the same, AAC. Real ffmpeg on real speech.
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mixVoiceAndBackground, runToolOutput, synthAudio } from '../../../server/media/ffmpeg';
import { writeGainCurveWav } from '../../../server/media/gate';
import { probe } from '../../../server/media/probe';
import { readWav, writeWav } from '../../../server/media/wav';
import { chunkPlan } from '../../../server/media/chunked-mix';
import { LocalStorage } from '../../../server/storage/local';
import { projectKey } from '../../../server/storage/index';
import { mixInChunks } from '../../../server/domains/projects/stages/mix-chunks';
import type { ProjectStageContext } from '../../../server/domains/projects/stages/common';
import { librivoxWav, tempDir } from '../../fixtures/media';

const SR = 48000;
const DUR = 60;
/** Small chunks (about 5 s) so a minute has a dozen of them. */
const CHUNK_FRAMES = 235;

function stageContext(root: string, logs: Array<{ msg: string; meta: unknown }>): ProjectStageContext {
  const storage = new LocalStorage(join(root, 'storage'));
  return {
    project: { id: 'p1' },
    deps: { storage },
    tmp: tempDir('tmp-'),
    signal: new AbortController().signal,
    log: (msg: string, meta?: unknown) => logs.push({ msg, meta }),
  } as unknown as ProjectStageContext;
}

async function decode(file: string): Promise<Float32Array> {
  const out = `${file}.f32`;
  await runToolOutput('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', file, '-f', 'f32le', '-ac', '2', '-ar', String(SR), out], {});
  const b = readFileSync(out);
  return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
}

/** Energy of a - b over the stereo frames [from, to), in dB under the energy of a there. */
function diffDb(a: Float32Array, b: Float32Array, from: number, to: number): number {
  let sig = 0;
  let err = 0;
  for (let i = 2 * from; i < 2 * to; i++) {
    sig += a[i]! * a[i]!;
    const e = a[i]! - b[i]!;
    err += e * e;
  }
  return err === 0 ? -Infinity : 10 * Math.log10(err / Math.max(sig, 1e-20));
}

/** A voice track of real speech (LibriVox clips, 48 kHz mono) laid along DUR seconds. */
async function voiceTrack(dir: string): Promise<string> {
  const path = join(dir, 'voice.wav');
  const raw = join(dir, 'speech48k.wav');
  await runToolOutput('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-stream_loop', '-1', '-i', librivoxWav('0870'), '-t', String(DUR), '-ar', String(SR), '-ac', '1', '-c:a', 'pcm_s16le', raw], {});
  copyFileSync(raw, path);
  return path;
}

describe('the merge in chunks', () => {
  it('re-encodes only the chunks a one-segment change touches; the result is the full merge’s, sample for sample', { timeout: 180_000 }, async () => {
    const dir = tempDir('redub-');
    const voice = await voiceTrack(dir);
    const bg = join(dir, 'bg.wav');
    await synthAudio(bg, { seconds: DUR, source: 'anoisesrc=color=pink:amplitude=0.05:seed=11', sampleRate: SR, channels: 2 });
    const gain = join(dir, 'gain.wav');
    await writeGainCurveWav(gain, [{ t: 0, gain: 1.2 }, { t: 20, gain: 1.2 }, { t: 22, gain: 0.6 }, { t: 60, gain: 0.9 }], DUR);
    const logs: Array<{ msg: string; meta: unknown }> = [];
    const ctx = stageContext(dir, logs);
    const op = { signal: ctx.signal, hopSec: 0.02, chunkFrames: CHUNK_FRAMES };
    const mixOpts = (v: string, out: string) => ({ voice: v, background: bg, out, durationSec: DUR, voiceGain: gain, loudness: { I: -16, TP: -2 } });

    // the first merge: everything encoded
    const first = await mixInChunks(ctx, mixOpts(voice, join(dir, 'first.m4a')), Promise.resolve(-16), op);
    const chunks = chunkPlan(DUR * SR, CHUNK_FRAMES);
    expect(first.incremental).toBe(false);
    expect(first.encoded).toBe(chunks.length);
    expect(first.envelopes).not.toBeNull();
    expect(Math.abs(first.output.I - -16)).toBeLessThan(1);

    // one segment re-dubbed: 31.2 s to 32.9 s of the voice replaced by other speech
    const edited = join(dir, 'voice2.wav');
    const v = readWav(voice).channelData[0]!.slice();
    const other = readWav(voice).channelData[0]!;
    const [s0, s1] = [Math.round(31.2 * SR), Math.round(32.9 * SR)];
    for (let i = s0; i < s1; i++) v[i] = 0.8 * other[i - s0 + 3 * SR]!;
    writeWav(edited, [v], SR);

    const redub = await mixInChunks(ctx, mixOpts(edited, join(dir, 'redub.m4a')), Promise.resolve(-16), op);
    expect(redub.incremental).toBe(true);
    expect(redub.gainDb).toBe(first.gainDb);
    // the chunks whose window (with its margins) holds the change, no more
    const touched = chunks.filter((c) => c.from < s1 && c.to > s0).length;
    expect(redub.encoded).toBe(touched);
    expect(redub.encoded).toBeLessThanOrEqual(3);

    // a full merge of the edited voice at the kept gain (a fresh store that has the state but none of the packets)
    const fresh = stageContext(tempDir('full-'), []);
    await fresh.deps.storage.putBuffer(projectKey('p1', 'mix_state.json'), await ctx.deps.storage.getBuffer(projectKey('p1', 'mix_state.json')));
    const full = await mixInChunks(fresh, mixOpts(edited, join(dir, 'full.m4a')), Promise.resolve(-16), op);
    expect(full.encoded).toBe(chunks.length);

    const [a, b, before] = await Promise.all([decode(join(dir, 'full.m4a')), decode(join(dir, 'redub.m4a')), decode(join(dir, 'first.m4a'))]);
    expect(b.length).toBe(a.length);
    // (the decoder gives the last frame whole, as it does for the single-pass mix: see the next test)
    expect(Math.abs(a.length / 2 - DUR * SR)).toBeLessThan(1024);
    // around the change: under -60 dB (here: the same samples); elsewhere: bit-identical
    const near = [Math.max(0, s0 - 2 * SR), Math.min(DUR * SR, s1 + 2 * SR)] as const;
    expect(diffDb(a, b, near[0], near[1])).toBeLessThan(-60);
    expect(diffDb(a, b, 0, near[0])).toBe(-Infinity);
    expect(diffDb(a, b, near[1], DUR * SR)).toBe(-Infinity);
    // and the re-dub did change the soundtrack there (not the previous one served again)
    expect(diffDb(before, b, s0, s1)).toBeGreaterThan(-20);
    expect(diffDb(before, b, 0, Math.max(0, chunks.find((c) => c.end > s0 - 0.2 * SR)!.start - SR))).toBe(-Infinity);
    // the report's figures: the same as the full merge's
    expect(redub.output).toEqual(full.output);

    for (const f of ['full.m4a', 'redub.m4a']) {
      const p = await probe(join(dir, f));
      expect(p.audioCodec).toBe('aac');
      expect(Math.abs(p.durationSec - DUR)).toBeLessThan(0.001);
    }
  });

  it('is timed as the single-pass mix: no shift, the same length, the same loudness', { timeout: 120_000 }, async () => {
    const dir = tempDir('chunk-vs-pass-');
    const voice = await voiceTrack(dir);
    const bg = join(dir, 'bg.wav');
    await synthAudio(bg, { seconds: DUR, source: 'anoisesrc=color=pink:amplitude=0.05:seed=5', sampleRate: SR, channels: 2 });
    const ctx = stageContext(dir, []);
    const opts = { voice, background: bg, durationSec: DUR, loudness: { I: -16, TP: -2 } };
    const chunked = await mixInChunks(ctx, { ...opts, out: join(dir, 'chunked.m4a') }, Promise.resolve(-16), { signal: ctx.signal, hopSec: 0.02, chunkFrames: CHUNK_FRAMES });
    const single = await mixVoiceAndBackground({ ...opts, out: join(dir, 'single.m4a'), measureOutput: true }, { targetLufs: Promise.resolve(-16) });
    expect(chunked.gainDb).toBeCloseTo(single.gainDb, 6);
    const [a, b] = await Promise.all([decode(join(dir, 'single.m4a')), decode(join(dir, 'chunked.m4a'))]);
    expect(b.length).toBe(a.length);
    expect((await probe(join(dir, 'chunked.m4a'))).durationSec).toBe((await probe(join(dir, 'single.m4a'))).durationSec);
    // the same signal at the same place: the two encodes differ by coding noise only (and not at all in the first
    // chunk); a shift of one frame would be as loud as the signal
    expect(diffDb(a, b, 0, DUR * SR)).toBeLessThan(-30);
    expect(diffDb(a, b, 0, chunkPlan(DUR * SR, CHUNK_FRAMES)[0]!.end - 2048)).toBe(-Infinity);
    expect(Math.abs(chunked.output.I - single.output!.I)).toBeLessThanOrEqual(0.2);
    expect(Math.abs(chunked.output.TP! - single.output!.TP!)).toBeLessThanOrEqual(0.3);
    expect(Math.abs(chunked.output.LRA! - single.output!.LRA!)).toBeLessThanOrEqual(1);
  });

  it('falls back to a full merge, and says why, when the change is not small', { timeout: 120_000 }, async () => {
    const dir = tempDir('redub-full-');
    const voice = await voiceTrack(dir);
    const bg = join(dir, 'bg.wav');
    const bg2 = join(dir, 'bg2.wav');
    await synthAudio(bg, { seconds: DUR, source: 'anoisesrc=color=pink:amplitude=0.05:seed=3', sampleRate: SR, channels: 2 });
    await synthAudio(bg2, { seconds: DUR, source: 'anoisesrc=color=brown:amplitude=0.08:seed=4', sampleRate: SR, channels: 2 });
    const logs: Array<{ msg: string; meta: unknown }> = [];
    const ctx = stageContext(dir, logs);
    const op = { signal: ctx.signal, hopSec: 0.02, chunkFrames: CHUNK_FRAMES };
    await mixInChunks(ctx, { voice, background: bg, out: join(dir, 'a.m4a'), durationSec: DUR }, Promise.resolve(-16), op);
    // another background: every chunk changed
    const r = await mixInChunks(ctx, { voice, background: bg2, out: join(dir, 'b.m4a'), durationSec: DUR }, Promise.resolve(-16), op);
    expect(r.incremental).toBe(false);
    expect(r.fullReason).toMatch(/chunks/);
    expect(logs.some((l) => l.msg === 'full merge')).toBe(true);
    // another loudness target
    const t = await mixInChunks(ctx, { voice, background: bg2, out: join(dir, 'c.m4a'), durationSec: DUR }, Promise.resolve(-23), op);
    expect(t.incremental).toBe(false);
    expect(t.fullReason).toMatch(/target/);
    expect(Math.abs(t.output.I - -23)).toBeLessThan(1);
    // the same inputs again: nothing to encode
    const same = await mixInChunks(ctx, { voice, background: bg2, out: join(dir, 'd.m4a'), durationSec: DUR }, Promise.resolve(-23), op);
    expect(same.incremental).toBe(true);
    expect(same.encoded).toBe(0);
  });
});
