// Built-in diarization on a real two-voice clip and on a single LibriVox speaker.
import { describe, expect, it } from 'vitest';
import {
  addStats,
  clusterByBic,
  compareClusters,
  createDspDiarization,
  relabelByAppearance,
  statsOf,
} from '../../../server/engines/builtin/dsp-diarization';
import { yin } from '../../../server/engines/builtin/dsp';
import { createSileroVad } from '../../../server/engines/builtin/silero-vad';
import type { SpeechRegion } from '../../../server/engines/types';
import { makeSpeechTrack } from '../../fixtures/media';

const diar = createDspDiarization();
const vad = createSileroVad();

/** The fixture turn a region overlaps most. */
function turnOf(r: SpeechRegion, turns: Array<{ start: number; end: number; speaker: string }>) {
  let best = turns[0]!;
  let ov = -1;
  for (const t of turns) {
    const o = Math.min(r.end, t.end) - Math.max(r.start, t.start);
    if (o > ov) {
      ov = o;
      best = t;
    }
  }
  return best;
}

describe('dsp diarization', () => {
  it('finds two speakers in the two-voice clip, with the right genders and turns', async () => {
    const track = await makeSpeechTrack({ twoSpeakers: true });
    const regions = await vad.detect(track.wav);
    const { labels, profiles } = await diar.diarize(track.wav, regions);
    expect(labels).toHaveLength(regions.length);
    expect(new Set(labels).size).toBe(2);
    expect(profiles).toHaveLength(2);
    expect(labels[0]).toBe('SPEAKER_0');
    // each label maps to one fixture voice (weighted by duration, at least 90 % agreement)
    let agree = 0;
    let total = 0;
    const voiceOf = new Map<string, string>();
    regions.forEach((r, i) => {
      const t = turnOf(r, track.turns);
      if (!voiceOf.has(labels[i]!)) voiceOf.set(labels[i]!, t.speaker);
      total += r.end - r.start;
      if (voiceOf.get(labels[i]!) === t.speaker) agree += r.end - r.start;
    });
    expect(new Set(voiceOf.values()).size).toBe(2);
    expect(agree / total).toBeGreaterThan(0.9);
    const male = profiles.find((p) => voiceOf.get(p.speaker) === 'male')!;
    const female = profiles.find((p) => voiceOf.get(p.speaker) === 'female')!;
    expect(male.gender).toBe('male');
    expect(female.gender).toBe('female');
    expect(male.meanPitchHz).toBeGreaterThan(75);
    expect(male.meanPitchHz).toBeLessThan(140);
    expect(female.meanPitchHz).toBeGreaterThan(165);
  });

  it('finds one speaker in a single LibriVox reader, even in short regions', async () => {
    const track = await makeSpeechTrack({});
    const regions = await vad.detect(track.wav);
    const one = await diar.diarize(track.wav, regions);
    expect(new Set(one.labels)).toEqual(new Set(['SPEAKER_0']));
    expect(one.profiles).toEqual([{ speaker: 'SPEAKER_0', gender: 'male', meanPitchHz: expect.any(Number) }]);
    // cut into ~1.5 s pieces: still one voice
    const pieces: SpeechRegion[] = [];
    for (const r of regions) for (let s = r.start; s < r.end - 0.4; s += 1.5) pieces.push({ start: s, end: Math.min(r.end, s + 1.5) });
    const many = await diar.diarize(track.wav, pieces);
    expect(new Set(many.labels).size).toBe(1);
  });

  it('honours numSpeakers and handles no regions', async () => {
    const track = await makeSpeechTrack({ twoSpeakers: true });
    const regions = await vad.detect(track.wav);
    const forced = await diar.diarize(track.wav, regions, { numSpeakers: 1 });
    expect(new Set(forced.labels).size).toBe(1);
    const three = await diar.diarize(track.wav, regions, { numSpeakers: 3 });
    expect(new Set(three.labels).size).toBe(3);
    expect(await diar.diarize(track.wav, [])).toEqual({ labels: [], profiles: [] });
  });
});

describe('clustering primitives', () => {
  // deterministic pseudo-random Gaussian frames
  function frames(n: number, mean: number[], seed: number): Float64Array[] {
    let s = seed >>> 0;
    const rnd = () => {
      // mulberry32
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const gauss = () => Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd());
    return Array.from({ length: n }, () => Float64Array.from(mean.map((m) => m + gauss())));
  }
  const zero = new Array(12).fill(0);
  const shifted = zero.map((_, i) => (i < 6 ? 3 : 0));

  it('ΔBIC separates different distributions and merges equal ones', () => {
    const a = statsOf(frames(1000, zero, 1));
    const b = statsOf(frames(1000, zero, 2));
    const c = statsOf(frames(1000, shifted, 3));
    expect(compareClusters(a, b).score).toBeLessThan(1);
    expect(compareClusters(a, c).score).toBeGreaterThan(1);
    expect(addStats(a, b).n).toBe(2000);
  });

  it('pitch gap alone marks different speakers', () => {
    const a = { ...statsOf(frames(300, zero, 4)), pitchN: 100, pitchSum: 100 * 12 };
    const b = { ...statsOf(frames(300, zero, 5)), pitchN: 100, pitchSum: 100 * 24 };
    expect(compareClusters(a, b).pitchGapSt).toBeCloseTo(12, 6);
    expect(compareClusters(a, b).score).toBeGreaterThan(1);
  });

  it('agglomerates items into the right groups', () => {
    const items = [frames(300, zero, 6), frames(300, shifted, 7), frames(300, zero, 8), frames(300, shifted, 9)].map((f) => statsOf(f));
    expect(clusterByBic(items).labels).toEqual([0, 1, 0, 1]);
    expect(clusterByBic(items, { numSpeakers: 1 }).labels).toEqual([0, 0, 0, 0]);
    expect(relabelByAppearance([5, 5, 2, 7, 2])).toEqual([0, 0, 1, 2, 1]);
  });

  it('YIN finds the pitch of a synthetic voiced frame', () => {
    const f0 = 123;
    const frame = Float32Array.from({ length: 800 }, (_, i) => {
      const t = i / 16000;
      return 0.5 * Math.sin(2 * Math.PI * f0 * t) + 0.3 * Math.sin(2 * Math.PI * 2 * f0 * t) + 0.1 * Math.sin(2 * Math.PI * 3 * f0 * t);
    });
    expect(yin(frame, 16000)!.f0).toBeCloseTo(f0, 0);
    expect(yin(new Float32Array(800), 16000)).toBeNull();
  });
});
