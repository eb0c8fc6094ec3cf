// The voice profile of a speech sample (pure): median pitch and its range (./pitch.ts), the spectral centroid
// below 4 kHz (where the formants are: a higher centroid is a brighter, smaller vocal tract) and the speaking rate
// (syllable nuclei: peaks of the smoothed loudness, per second of speech). The built-in voice matching moves a
// built-in voice toward it; the library shows it.
import type { VoiceProfile } from '../../../contract/schemas/voice-preset';
import { fft, powerSpectrum, rms } from './dsp';
import { pitchProfile } from './pitch';

/** Mean f0 above which a voice is taken as female (between the typical 120 and 210 Hz). */
export const FEMALE_ABOVE_HZ = 160;
/** Formant scale (Hz, geometric mean of F1-F3) between typical men (~1250 Hz) and women (~1460 Hz). */
export const FORMANT_MIDDLE_HZ = 1350;
/** Below this confidence the gender is unsure: the voice is chosen by pitch alone. */
export const GENDER_SURE = 0.25;

/**
 * The gender a voice sounds like, from its median pitch and, when measured, its formant scale: each gives a score
 * (octaves from the middle between typical men and women, over the typical half-distance), weighted 0.6 pitch and
 * 0.4 formants. A 150 Hz voice is male with low formants and female with high ones; pitch alone cannot tell.
 * Confidence is |score| (capped at 1); under GENDER_SURE the speaker is "unsure".
 */
export function genderOf(medianHz: number, formantHz: number | null | undefined): { gender: 'male' | 'female'; confidence: number } {
  const p = Math.log2(medianHz / FEMALE_ABOVE_HZ) / 0.4;
  const score = formantHz ? 0.6 * p + 0.4 * (Math.log2(formantHz / FORMANT_MIDDLE_HZ) / 0.115) : p;
  return { gender: score >= 0 ? 'female' : 'male', confidence: Math.round(Math.min(1, Math.abs(score)) * 100) / 100 };
}

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

/** LPC coefficients a[1..order] (A(z) = 1 + sum a_k z^-k) of a frame by autocorrelation and Levinson-Durbin. */
function lpc(frame: Float64Array, order: number): Float64Array | null {
  const r = new Float64Array(order + 1);
  for (let k = 0; k <= order; k++) {
    let s = 0;
    for (let i = k; i < frame.length; i++) s += frame[i]! * frame[i - k]!;
    r[k] = s;
  }
  if (r[0]! <= 0) return null;
  r[0]! *= 1 + 1e-9;
  const a = new Float64Array(order + 1);
  a[0] = 1;
  let err = r[0]!;
  for (let i = 1; i <= order; i++) {
    let acc = r[i]!;
    for (let j = 1; j < i; j++) acc += a[j]! * r[i - j]!;
    const k = -acc / err;
    const prev = a.slice();
    for (let j = 1; j < i; j++) a[j] = prev[j]! + k * prev[i - j]!;
    a[i] = k;
    err *= 1 - k * k;
    if (err <= 0) return null;
  }
  return a;
}

/**
 * Formant scale of a voice (Hz): the median, over loud frames, of the geometric mean of the first three peaks of
 * the LPC envelope between 200 and 4000 Hz (F1, F2, F3). It follows the vocal tract's length, not the pitch: a
 * shorter tract (most women and children) has formants about 15-20 % higher. Null without enough frames.
 */
export function formantScale(samples: Float32Array, sampleRate: number): number | null {
  const frame = Math.round(0.025 * sampleRate);
  const hop = Math.round(0.02 * sampleRate);
  const order = Math.min(18, Math.round(2 + sampleRate / 1000));
  const energies: number[] = [];
  for (let i = 0; i + frame <= samples.length; i += hop) energies.push(rms(samples.subarray(i, i + frame)));
  if (energies.length === 0) return null;
  const sorted = [...energies].sort((a, b) => a - b);
  const gate = sorted[Math.floor(0.9 * (sorted.length - 1))]! * 0.3;
  const nfft = 1024;
  const re = new Float64Array(nfft);
  const im = new Float64Array(nfft);
  const x = new Float64Array(frame);
  const scales: number[] = [];
  for (let k = 0, i = 0; i + frame <= samples.length; k++, i += hop) {
    if (energies[k]! < gate || energies[k]! <= 1e-4) continue;
    // pre-emphasis and a Hamming window
    for (let j = 0; j < frame; j++) {
      const v = samples[i + j]! - 0.97 * (j > 0 ? samples[i + j - 1]! : 0);
      x[j] = v * (0.54 - 0.46 * Math.cos((2 * Math.PI * j) / (frame - 1)));
    }
    const a = lpc(x, order);
    if (!a) continue;
    re.fill(0);
    im.fill(0);
    for (let j = 0; j <= order; j++) re[j] = a[j]!;
    fft(re, im);
    const peaks: number[] = [];
    const lo = Math.ceil((200 * nfft) / sampleRate);
    const hi = Math.min(nfft / 2 - 1, Math.floor((4000 * nfft) / sampleRate));
    const env = (b: number) => 1 / (re[b]! * re[b]! + im[b]! * im[b]! + 1e-12);
    for (let b = lo; b <= hi && peaks.length < 3; b++) if (env(b) > env(b - 1) && env(b) >= env(b + 1)) peaks.push((b * sampleRate) / nfft);
    if (peaks.length === 3) scales.push(Math.cbrt(peaks[0]! * peaks[1]! * peaks[2]!));
  }
  if (scales.length < 10) return null;
  scales.sort((a, b) => a - b);
  return scales[Math.floor(scales.length / 2)]!;
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
  const formants = formantScale(speech, sampleRate);
  const g = genderOf(p.medianHz, formants);
  return {
    median_hz: round(p.medianHz, 1),
    range_st: round(p.rangeSt, 2),
    spectral_tilt: round(centroid, 0),
    speech_rate: round(speechRate(speech, sampleRate, speechSec), 2),
    speech_sec: round(speechSec, 2),
    gender: g.gender,
    formant_hz: formants === null ? null : round(formants, 0),
    gender_confidence: g.confidence,
  };
}
