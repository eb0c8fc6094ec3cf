// Silero VAD on real speech and on silence, and the region post-processing as pure logic.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSileroVad, regionsFromProbabilities, resolveSileroModel, SILERO_FRAME } from '../../../server/engines/builtin/silero-vad';
import { EngineError } from '../../../server/engines/types';
import { extractMonoWav, synthAudio } from '../../../server/media/ffmpeg';
import { makeSilentVideo, makeSpeechTrack, librivoxWav, tempDir } from '../../fixtures/media';

const vad = createSileroVad();
const FR = SILERO_FRAME / 16000; // 32 ms

describe('silero VAD', () => {
  it('resolves the model from node_modules', () => {
    expect(resolveSileroModel()).toMatch(/@ricky0123\/vad-web\/dist\/silero_vad_v5\.onnx$/);
    expect(vad.available!()).toBe(true);
  });

  it('finds the speech of a LibriVox clip', async () => {
    const regions = await vad.detect(librivoxWav('0870'));
    expect(regions.length).toBeGreaterThanOrEqual(1);
    const first = regions[0]!;
    const last = regions[regions.length - 1]!;
    expect(first.start).toBeLessThan(0.5);
    expect(last.end).toBeGreaterThan(6.5);
    const covered = regions.reduce((s, r) => s + r.end - r.start, 0);
    expect(covered).toBeGreaterThan(5.5);
  });

  it('separates utterances with pauses and keeps the pauses out', async () => {
    const track = await makeSpeechTrack({ twoSpeakers: true });
    const regions = await vad.detect(track.wav);
    expect(regions.length).toBeGreaterThanOrEqual(track.turns.length);
    // every turn is covered, and no region crosses the 0.7 s pause between two turns
    for (const t of track.turns) {
      const inside = regions.filter((r) => r.end > t.start && r.start < t.end);
      expect(inside.length).toBeGreaterThan(0);
      for (const r of inside) {
        expect(r.start).toBeGreaterThan(t.start - 0.35);
        expect(r.end).toBeLessThan(t.end + 0.35);
      }
    }
    // regions are ordered and disjoint
    for (let i = 1; i < regions.length; i++) expect(regions[i]!.start).toBeGreaterThanOrEqual(regions[i - 1]!.end);
  });

  it('finds nothing in silence or in steady noise-free tone', async () => {
    const d = tempDir();
    const silent = join(d, 'silent.wav');
    await extractMonoWav(await makeSilentVideo({ seconds: 3 }), silent);
    expect(await vad.detect(silent)).toEqual([]);
    const hum = join(d, 'hum.wav');
    await synthAudio(hum, { seconds: 3, source: 'aevalsrc=0.05*sin(2*PI*60*t):s=16000', sampleRate: 16000 });
    expect(await vad.detect(hum)).toEqual([]);
  });

  it('refuses audio that is not 16 kHz', async () => {
    const p = join(tempDir(), 'x.wav');
    await synthAudio(p, { seconds: 0.5, source: 'sine', sampleRate: 48000 });
    await expect(vad.detect(p)).rejects.toBeInstanceOf(EngineError);
  });
});

describe('regionsFromProbabilities', () => {
  const probs = (pattern: Array<[number, number]>) => {
    const out: number[] = [];
    for (const [p, frames] of pattern) for (let i = 0; i < frames; i++) out.push(p);
    return Float32Array.from(out);
  };
  const total = (p: Float32Array) => p.length * SILERO_FRAME;

  it('applies hysteresis and padding', () => {
    // 10 silent frames, 30 speech, 3 frames at 0.4 (between thresholds: still speech), 20 speech, 20 silent
    const p = probs([[0.02, 10], [0.9, 30], [0.4, 3], [0.9, 20], [0.02, 20]]);
    const r = regionsFromProbabilities(p, total(p), { padMs: 0 });
    expect(r).toHaveLength(1);
    expect(r[0]!.start).toBeCloseTo(10 * FR, 3);
    expect(r[0]!.end).toBeCloseTo(63 * FR, 3);
    const padded = regionsFromProbabilities(p, total(p), { padMs: 64 });
    expect(padded[0]!.start).toBeCloseTo(10 * FR - 0.064, 3);
  });

  it('drops blips shorter than the minimum speech duration', () => {
    const p = probs([[0.02, 10], [0.9, 5], [0.02, 30]]); // 160 ms
    expect(regionsFromProbabilities(p, total(p))).toEqual([]);
  });

  it('merges regions closer than 300 ms and keeps farther ones apart', () => {
    const near = probs([[0.9, 20], [0.02, 7], [0.9, 20], [0.02, 10]]); // 224 ms gap
    expect(regionsFromProbabilities(near, total(near), { padMs: 0 })).toHaveLength(1);
    const far = probs([[0.9, 20], [0.02, 15], [0.9, 20], [0.02, 10]]); // 480 ms gap
    expect(regionsFromProbabilities(far, total(far), { padMs: 0 })).toHaveLength(2);
  });

  it('splits regions longer than the maximum at the least speech-like frame', () => {
    // 20 s of speech with a dip at 12 s
    const p = probs([[0.95, 375], [0.3, 1], [0.95, 249]]);
    const r = regionsFromProbabilities(p, total(p), { maxRegionSec: 15, padMs: 0 });
    expect(r).toHaveLength(2);
    expect(r[0]!.end).toBeCloseTo(375.5 * FR, 2);
    expect(r[1]!.start).toBe(r[0]!.end);
    for (const x of r) expect(x.end - x.start).toBeLessThanOrEqual(15);
    // a 40 s region is split recursively
    const long = probs([[0.95, 1250]]);
    const parts = regionsFromProbabilities(long, total(long), { maxRegionSec: 15 });
    expect(parts.length).toBeGreaterThanOrEqual(3);
    for (const x of parts) expect(x.end - x.start).toBeLessThanOrEqual(15.001);
  });
});
