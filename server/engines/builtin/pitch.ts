// A voice's pitch profile measured from samples (pure): median fundamental frequency of the voiced frames,
// its spread (10th-90th percentile, semitones), and the semitone distance between two voices. Used to match a
// dubbed voice to the speaker (voice_suggest's choice, and the built-in voice matching's pitch shift).
import { rms, yin } from './dsp';

export interface PitchProfile {
  /** Median f0 of the voiced frames, Hz (null without enough voiced frames). */
  medianHz: number | null;
  /** 10th to 90th percentile of f0, semitones (how much the pitch moves). */
  rangeSt: number | null;
  voicedFrames: number;
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))))]!;

/** Semitones from `a` to `b` (positive: b is higher). */
export const semitones = (a: number, b: number) => 12 * Math.log2(b / a);

/** The pitch profile of mono samples: 40 ms frames every 10 ms, quiet frames skipped, YIN per frame. */
export function pitchProfile(samples: Float32Array, sampleRate: number, o: { fmin?: number; fmax?: number; minFrames?: number } = {}): PitchProfile {
  const frame = Math.round(0.04 * sampleRate);
  const hop = Math.round(0.01 * sampleRate);
  const energies: number[] = [];
  for (let i = 0; i + frame <= samples.length; i += hop) energies.push(rms(samples.subarray(i, i + frame)));
  const loud = [...energies].sort((a, b) => a - b);
  // frames quieter than a tenth of the loud level (90th percentile) are pauses
  const gate = loud.length ? quantile(loud, 0.9) * 0.1 : 0;
  const f0s: number[] = [];
  for (let k = 0, i = 0; i + frame <= samples.length; k++, i += hop) {
    if (energies[k]! < gate || energies[k]! <= 1e-4) continue;
    const r = yin(samples.subarray(i, i + frame), sampleRate, { fmin: o.fmin ?? 60, fmax: o.fmax ?? 450, threshold: 0.15 });
    if (r) f0s.push(r.f0);
  }
  if (f0s.length < (o.minFrames ?? 20)) return { medianHz: null, rangeSt: null, voicedFrames: f0s.length };
  f0s.sort((a, b) => a - b);
  return { medianHz: quantile(f0s, 0.5), rangeSt: semitones(quantile(f0s, 0.1), quantile(f0s, 0.9)), voicedFrames: f0s.length };
}
