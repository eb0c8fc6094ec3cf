// The voice profile of a speech sample (pure): median pitch and its range (./pitch.ts), the spectral centroid
// below 4 kHz (where the formants are: a higher centroid is a brighter, smaller vocal tract) and the speaking rate
// (syllable nuclei: peaks of the smoothed loudness, per second of speech). The built-in voice matching moves a
// built-in voice toward it; the library shows it.
import type { VoiceProfile } from '../../../contract/schemas/voice-preset';
import { powerSpectrum, rms } from './dsp';
import { pitchProfile } from './pitch';

/** Mean f0 above which a voice is taken as female (between the typical 120 and 210 Hz). */
export const FEMALE_ABOVE_HZ = 160;

/** Median spectral centroid (Hz, 0-4 kHz band) of the loud frames. */
export function formantCentroid(samples: Float32Array, sampleRate: number): number | null {
  const frame = Math.round(0.032 * sampleRate);
  let nfft = 1;
  while (nfft < frame) nfft <<= 1;
  const hop = Math.round(0.02 * sampleRate);
  const energies: number[] = [];
  for (let i = 0; i + frame <= samples.length; i += hop) energies.push(rms(samples.subarray(i, i + frame)));
  if (energies.length === 0) return null;
  const sorted = [...energies].sort((a, b) => a - b);
  const gate = sorted[Math.floor(0.9 * (sorted.length - 1))]! * 0.2;
  const maxBin = Math.min(nfft / 2, Math.floor((4000 * nfft) / sampleRate));
  const minBin = Math.max(1, Math.floor((80 * nfft) / sampleRate));
  const centroids: number[] = [];
  for (let k = 0, i = 0; i + frame <= samples.length; k++, i += hop) {
    if (energies[k]! < gate || energies[k]! <= 1e-4) continue;
    const p = powerSpectrum(samples.subarray(i, i + frame), nfft);
    let num = 0;
    let den = 0;
    for (let b = minBin; b <= maxBin; b++) {
      num += p[b]! * ((b * sampleRate) / nfft);
      den += p[b]!;
    }
    if (den > 0) centroids.push(num / den);
  }
  if (centroids.length < 10) return null;
  centroids.sort((a, b) => a - b);
  return centroids[Math.floor(centroids.length / 2)]!;
}

/** Syllable-like loudness peaks per second of the given speech seconds. */
export function speechRate(samples: Float32Array, sampleRate: number, speechSec: number): number {
  const hop = Math.round(0.01 * sampleRate);
  const env: number[] = [];
  for (let i = 0; i + hop <= samples.length; i += hop) env.push(rms(samples.subarray(i, i + hop)));
  // 50 ms moving average
  const sm = env.map((_, i) => {
    let s = 0;
    let n = 0;
    for (let j = Math.max(0, i - 2); j <= Math.min(env.length - 1, i + 2); j++, n++) s += env[j]!;
    return s / n;
  });
  const sorted = [...sm].sort((a, b) => a - b);
  const floor = sorted[Math.floor(0.9 * (sorted.length - 1))]! * 0.25;
  let peaks = 0;
  let last = -Infinity;
  for (let i = 1; i + 1 < sm.length; i++) {
    const x = sm[i]!;
    if (x < floor || x < sm[i - 1]! || x <= sm[i + 1]!) continue;
    // a peak counts when the loudness dipped by a quarter since the previous one and 100 ms passed
    if (i - last < 10) continue;
    let dip = x;
    for (let j = Math.max(0, Math.floor(last)); j < i; j++) dip = Math.min(dip, sm[j]!);
    if (Number.isFinite(last) && dip > 0.75 * x) continue;
    peaks++;
    last = i;
  }
  return speechSec > 0 ? peaks / speechSec : 0;
}

/** The profile of mono speech samples (pauses already removed), or null when there is no voiced speech. */
export function voiceProfile(speech: Float32Array, sampleRate: number): VoiceProfile | null {
  const p = pitchProfile(speech, sampleRate);
  if (p.medianHz === null || p.rangeSt === null) return null;
  const centroid = formantCentroid(speech, sampleRate);
  if (centroid === null) return null;
  const speechSec = speech.length / sampleRate;
  const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;
  return {
    median_hz: round(p.medianHz, 1),
    range_st: round(p.rangeSt, 2),
    spectral_tilt: round(centroid, 0),
    speech_rate: round(speechRate(speech, sampleRate, speechSec), 2),
    speech_sec: round(speechSec, 2),
    gender: p.medianHz >= FEMALE_ABOVE_HZ ? 'female' : 'male',
  };
}
