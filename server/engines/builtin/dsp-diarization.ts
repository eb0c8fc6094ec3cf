// Built-in speaker diarization by acoustic features and BIC-based agglomerative clustering.
//
// Per region: MFCC-like cepstra (c1..c12 from 26 mel band energies) of its speech frames, pitch (YIN on
// voiced frames), spectral centroid and roll-off. Frame cepstra are standardised (global mean/variance
// normalisation) and each region becomes a full-covariance Gaussian (sufficient statistics). Clusters
// are merged agglomeratively, closest pair first, where "close" is the ΔBIC of modelling two clusters
// by one Gaussian instead of two (Chen & Gopalakrishnan 1998). Merging stops when every remaining pair
// is clearly distinct — ΔBIC above `lambda` times the BIC penalty AND a per-frame log-likelihood gain
// above `minGainPerFrame` (the second test keeps long single-speaker recordings, where ΔBIC alone keeps
// growing with content variation, in one piece) — or at numSpeakers when given, never above
// maxSpeakers. Regions with too little speech are assigned to the nearest speaker afterwards.
// Gender comes from the speaker's mean pitch.
import { readWav, toMono } from '../../media/wav';
import { EngineError, type DiarizationEngine, type SpeakerProfile, type SpeechRegion } from '../types';
import { dct, median, melFilterbank, percentile, powerSpectrum, rms, spectralShape, yin } from './dsp';
import { throwIfAborted } from './util';

const SR = 16000;
const WIN = 512; // 32 ms analysis window
const HOP = 160; // 10 ms
const PITCH_WIN = 800; // 50 ms, enough for voices down to 60 Hz
const N_CEP = 12; // c1..c12 (c0, the level, is left out)
const N_MEL = 26;

export interface RegionFeatures {
  durationSec: number;
  /** Cepstral vectors (c1..c12) of the region's speech frames (10 ms hop). */
  frames: Float64Array[];
  voicedFrames: number;
  /** Median / mean f0 of voiced frames, Hz (NaN when none). */
  medianPitchHz: number;
  meanPitchHz: number;
  /** Sum of voiced frames' pitch in semitones above 55 Hz (for cluster pitch means). */
  pitchSemitoneSum: number;
  /** Mean spectral centroid and 85 % roll-off of speech frames, Hz. */
  centroidHz: number;
  rolloffHz: number;
}

const fbank = melFilterbank(N_MEL, WIN, SR, 80, 7600);

/** Acoustic features of one region of 16 kHz mono samples. */
export function regionFeatures(samples: Float32Array, startSec: number, endSec: number): RegionFeatures {
  const s0 = Math.max(0, Math.floor(startSec * SR));
  const s1 = Math.min(samples.length, Math.ceil(endSec * SR));
  const x = samples.subarray(s0, s1);
  const nFrames = Math.max(0, Math.floor((x.length - WIN) / HOP) + 1);
  const energies: number[] = [];
  for (let f = 0; f < nFrames; f++) energies.push(rms(x.subarray(f * HOP, f * HOP + WIN)));
  // speech frames: within ~18 dB of the region's loud frames
  const floor = Math.max(percentile(energies, 95) * 0.12, 3e-4);
  const frames: Float64Array[] = [];
  const f0s: number[] = [];
  const logMel = new Float64Array(N_MEL);
  let cen = 0;
  let roll = 0;
  for (let f = 0; f < nFrames; f++) {
    if (!(energies[f]! >= floor)) continue;
    const p = powerSpectrum(x.subarray(f * HOP, f * HOP + WIN), WIN);
    for (let m = 0; m < N_MEL; m++) {
      let e = 0;
      const row = fbank[m]!;
      for (let k = 0; k < p.length; k++) e += row[k]! * p[k]!;
      logMel[m] = Math.log(e + 1e-10);
    }
    frames.push(dct(logMel, N_CEP + 1).slice(1));
    const sh = spectralShape(p, SR);
    cen += sh.centroid;
    roll += sh.rolloff;
    if (f % 2 === 0 && f * HOP + PITCH_WIN <= x.length) {
      const r = yin(x.subarray(f * HOP, f * HOP + PITCH_WIN), SR, { fmin: 60, fmax: 420, threshold: 0.2 });
      if (r) f0s.push(r.f0);
    }
  }
  // drop octave jumps around the median
  const med = median(f0s);
  const clean = f0s.filter((v) => v > med / 1.6 && v < med * 1.6);
  const n = Math.max(1, frames.length);
  return {
    durationSec: (s1 - s0) / SR,
    frames,
    voicedFrames: clean.length,
    medianPitchHz: clean.length ? median(clean) : NaN,
    meanPitchHz: clean.length ? clean.reduce((a, b) => a + b, 0) / clean.length : NaN,
    pitchSemitoneSum: clean.reduce((a, f) => a + semitones(f), 0),
    centroidHz: cen / n,
    rolloffHz: roll / n,
  };
}

/** Pitch in semitones above 55 Hz. */
export const semitones = (hz: number) => 12 * Math.log2(hz / 55);

// ---------------------------------------------------------------- Gaussian statistics and ΔBIC

/** Sufficient statistics of a set of d-dimensional frames. */
export interface GaussStats {
  n: number;
  sum: Float64Array;
  /** Row-major d×d sum of outer products. */
  outer: Float64Array;
  /** Voiced frames and the sum of their pitch in semitones (optional pitch evidence). */
  pitchN?: number;
  pitchSum?: number;
}

export function statsOf(frames: readonly Float64Array[], d = N_CEP): GaussStats {
  const s: GaussStats = { n: 0, sum: new Float64Array(d), outer: new Float64Array(d * d) };
  for (const x of frames) {
    s.n++;
    for (let i = 0; i < d; i++) {
      s.sum[i]! += x[i]!;
      for (let j = 0; j <= i; j++) s.outer[i * d + j]! += x[i]! * x[j]!;
    }
  }
  for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) s.outer[j * d + i] = s.outer[i * d + j]!;
  return s;
}

export function addStats(a: GaussStats, b: GaussStats): GaussStats {
  return {
    n: a.n + b.n,
    sum: a.sum.map((v, i) => v + b.sum[i]!),
    outer: a.outer.map((v, i) => v + b.outer[i]!),
    pitchN: (a.pitchN ?? 0) + (b.pitchN ?? 0),
    pitchSum: (a.pitchSum ?? 0) + (b.pitchSum ?? 0),
  };
}

/** log-determinant of the (ridge-regularised) ML covariance, via Cholesky. */
export function logDetCov(s: GaussStats, ridge = 1e-3): number {
  const d = s.sum.length;
  const mu = Array.from(s.sum, (v) => v / s.n);
  const L = new Float64Array(d * d);
  let ld = 0;
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let v = s.outer[i * d + j]! / s.n - mu[i]! * mu[j]! + (i === j ? ridge : 0);
      for (let k = 0; k < j; k++) v -= L[i * d + k]! * L[j * d + k]!;
      if (i === j) {
        const r = Math.sqrt(Math.max(v, 1e-12));
        L[i * d + i] = r;
        ld += 2 * Math.log(r);
      } else L[i * d + j] = v / L[j * d + j]!;
    }
  }
  return ld;
}

export interface BicComparison {
  /** ΔBIC likelihood term: how much better two Gaussians explain the frames than one. */
  gain: number;
  /** BIC penalty for the extra Gaussian: ½·(d + d(d+1)/2)·log N. */
  penalty: number;
  /** gain / N. */
  gainPerFrame: number;
  /** Difference of the clusters' mean pitch, semitones (NaN without enough voiced frames). */
  pitchGapSt: number;
  /**
   * max(min(gain / (lambda·penalty), gainPerFrame / minGainPerFrame), pitchGapSt / minPitchGapSt):
   * ≥ 1 means "different speakers".
   */
  score: number;
}

export interface BicOptions {
  /** ΔBIC must exceed lambda × penalty (default 3.5). */
  lambda?: number;
  /** ...and the log-likelihood gain per frame must exceed this (default 0.7). */
  minGainPerFrame?: number;
  /** Clusters whose mean pitch differs by this many semitones are different speakers (default 5). */
  minPitchGapSt?: number;
  /** Voiced frames each cluster needs before pitch counts as evidence (default 20). */
  minPitchFrames?: number;
}

export const DEFAULT_BIC: Required<BicOptions> = { lambda: 3.5, minGainPerFrame: 0.7, minPitchGapSt: 5, minPitchFrames: 20 };

export function compareClusters(a: GaussStats, b: GaussStats, o: BicOptions = {}): BicComparison {
  const d = a.sum.length;
  const z = addStats(a, b);
  const gain = 0.5 * (z.n * logDetCov(z) - a.n * logDetCov(a) - b.n * logDetCov(b));
  const penalty = 0.5 * (d + (d * (d + 1)) / 2) * Math.log(z.n);
  const gainPerFrame = gain / z.n;
  const minP = o.minPitchFrames ?? DEFAULT_BIC.minPitchFrames;
  const pitchGapSt =
    (a.pitchN ?? 0) >= minP && (b.pitchN ?? 0) >= minP ? Math.abs(a.pitchSum! / a.pitchN! - b.pitchSum! / b.pitchN!) : NaN;
  const bic = Math.min(gain / ((o.lambda ?? DEFAULT_BIC.lambda) * penalty), gainPerFrame / (o.minGainPerFrame ?? DEFAULT_BIC.minGainPerFrame));
  const score = Number.isFinite(pitchGapSt) ? Math.max(bic, pitchGapSt / (o.minPitchGapSt ?? DEFAULT_BIC.minPitchGapSt)) : bic;
  return { gain, penalty, gainPerFrame, pitchGapSt, score };
}

export interface ClusteringResult {
  /** Cluster index per input item, numbered by first appearance. */
  labels: number[];
  k: number;
}

/**
 * Agglomerative clustering of Gaussian clusters by ΔBIC score: merges the closest pair until all pairs
 * score ≥ 1 and at most maxK remain, or until exactly numSpeakers remain when given.
 */
export function clusterByBic(
  items: readonly GaussStats[],
  o: BicOptions & { numSpeakers?: number; maxK?: number } = {},
): ClusteringResult {
  const n = items.length;
  if (n === 0) return { labels: [], k: 0 };
  let clusters: Array<{ stats: GaussStats; members: number[] } | null> = items.map((s, i) => ({ stats: s, members: [i] }));
  const score: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(Infinity));
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) score[i]![j] = compareClusters(items[i]!, items[j]!, o).score;
  let alive = n;
  const target = o.numSpeakers ? Math.max(1, Math.min(o.numSpeakers, n)) : null;
  const maxK = o.maxK ?? 6;
  while (alive > 1) {
    let best = Infinity;
    let bi = -1;
    let bj = -1;
    for (let i = 0; i < n; i++) {
      if (!clusters[i]) continue;
      for (let j = i + 1; j < n; j++) {
        if (!clusters[j]) continue;
        if (score[i]![j]! < best) {
          best = score[i]![j]!;
          bi = i;
          bj = j;
        }
      }
    }
    if (bi < 0) break;
    if (target !== null ? alive <= target : best >= 1 && alive <= maxK) break;
    const a = clusters[bi]!;
    const b = clusters[bj]!;
    clusters[bi] = { stats: addStats(a.stats, b.stats), members: [...a.members, ...b.members] };
    clusters[bj] = null;
    alive--;
    for (let k = 0; k < n; k++) {
      if (k === bi || !clusters[k]) continue;
      const s = compareClusters(clusters[bi]!.stats, clusters[k]!.stats, o).score;
      if (k < bi) score[k]![bi] = s;
      else score[bi]![k] = s;
    }
  }
  const raw = new Array<number>(n).fill(0);
  clusters.forEach((c, ci) => c?.members.forEach((m) => (raw[m] = ci)));
  const labels = relabelByAppearance(raw);
  return { labels, k: new Set(labels).size };
}

export function relabelByAppearance(labels: readonly number[]): number[] {
  const map = new Map<number, number>();
  return labels.map((l) => {
    if (!map.has(l)) map.set(l, map.size);
    return map.get(l)!;
  });
}

/** Standardises frames in place per dimension (mean 0, variance 1) over all regions. */
export function normaliseFrames(all: Float64Array[][]): void {
  const d = N_CEP;
  const mean = new Float64Array(d);
  const sq = new Float64Array(d);
  let n = 0;
  for (const r of all) for (const x of r) {
    n++;
    for (let i = 0; i < d; i++) {
      mean[i]! += x[i]!;
      sq[i]! += x[i]! * x[i]!;
    }
  }
  if (n === 0) return;
  const sd = new Float64Array(d);
  for (let i = 0; i < d; i++) {
    mean[i]! /= n;
    sd[i] = Math.sqrt(Math.max(sq[i]! / n - mean[i]! ** 2, 1e-9));
  }
  for (const r of all) for (const x of r) for (let i = 0; i < d; i++) x[i] = (x[i]! - mean[i]!) / sd[i]!;
}

export interface DspDiarizationOptions extends BicOptions {
  maxSpeakers?: number;
  /** Regions with fewer speech frames (10 ms) are not clustered but assigned afterwards (default 50). */
  minClusterFrames?: number;
  /** Mean pitch under this is reported as male (default 165 Hz). */
  maleBelowHz?: number;
}

export interface DiarizationDetail {
  labels: string[];
  profiles: SpeakerProfile[];
  features: RegionFeatures[];
}

/** Diarizes regions of 16 kHz mono samples (pure; the engine reads the file). */
export function diarizeSamples(
  samples: Float32Array,
  regions: readonly SpeechRegion[],
  o: DspDiarizationOptions & { numSpeakers?: number; signal?: AbortSignal } = {},
): DiarizationDetail {
  if (regions.length === 0) return { labels: [], profiles: [], features: [] };
  const feats: RegionFeatures[] = [];
  for (const r of regions) {
    throwIfAborted(o.signal);
    feats.push(regionFeatures(samples, r.start, r.end));
  }
  normaliseFrames(feats.map((f) => f.frames));
  const minFrames = o.minClusterFrames ?? 50;
  const stats = feats.map((f) => ({ ...statsOf(f.frames), pitchN: f.voicedFrames, pitchSum: f.pitchSemitoneSum }));
  let core = feats.map((_, i) => i).filter((i) => feats[i]!.frames.length >= minFrames);
  if (core.length === 0) {
    const withFrames = feats.map((_, i) => i).filter((i) => feats[i]!.frames.length > N_CEP);
    core = withFrames.length ? withFrames : [];
  }
  const raw = new Array<number>(regions.length).fill(-1);
  let k = 1;
  if (core.length > 0) {
    const res = clusterByBic(
      core.map((i) => stats[i]!),
      { ...o, numSpeakers: o.numSpeakers, maxK: o.maxSpeakers ?? 6 },
    );
    k = res.k;
    core.forEach((i, j) => (raw[i] = res.labels[j]!));
    // the remaining regions: nearest cluster by ΔBIC score, or the nearest region in time when silent
    const clusterStats = Array.from({ length: k }, (_, c) =>
      core.filter((_, j) => res.labels[j] === c).reduce<GaussStats | null>((acc, i) => (acc ? addStats(acc, stats[i]!) : stats[i]!), null)!,
    );
    for (let i = 0; i < regions.length; i++) {
      if (raw[i]! >= 0) continue;
      if (feats[i]!.frames.length > 2) {
        let best = 0;
        let bestS = Infinity;
        clusterStats.forEach((cs, c) => {
          const s = compareClusters(cs, stats[i]!, o).gainPerFrame;
          if (s < bestS) {
            bestS = s;
            best = c;
          }
        });
        raw[i] = best;
      }
    }
  }
  for (let i = 0; i < regions.length; i++) {
    if (raw[i]! >= 0) continue;
    let best = -1;
    let bestD = Infinity;
    for (let j = 0; j < regions.length; j++) {
      if (raw[j]! < 0) continue;
      const dist = Math.abs(regions[j]!.start - regions[i]!.start);
      if (dist < bestD) {
        bestD = dist;
        best = raw[j]!;
      }
    }
    raw[i] = best >= 0 ? best : 0;
  }
  const ids = relabelByAppearance(raw);
  const maleBelow = o.maleBelowHz ?? 165;
  const nSpk = new Set(ids).size;
  const profiles: SpeakerProfile[] = Array.from({ length: nSpk }, (_, s) => {
    let sum = 0;
    let cnt = 0;
    ids.forEach((l, i) => {
      const f = feats[i]!;
      if (l === s && f.voicedFrames > 0) {
        sum += f.meanPitchHz * f.voicedFrames;
        cnt += f.voicedFrames;
      }
    });
    const mean = cnt ? sum / cnt : 0;
    return {
      speaker: `SPEAKER_${s}`,
      gender: mean > 0 && mean >= maleBelow ? 'female' : 'male',
      meanPitchHz: Math.round(mean * 10) / 10,
    };
  });
  return { labels: ids.map((l) => `SPEAKER_${l}`), profiles, features: feats };
}

export function createDspDiarization(opts: DspDiarizationOptions = {}): DiarizationEngine {
  return {
    id: 'dsp-diarization',
    label: 'Built-in acoustic clustering (MFCC + ΔBIC)',
    available: () => true,
    async init() {},
    async diarize(wav16kMono, regions, o = {}) {
      const wav = readWav(wav16kMono);
      if (wav.sampleRate !== SR) throw new EngineError('bad_input', `diarization needs 16 kHz audio, got ${wav.sampleRate} Hz`);
      const r = diarizeSamples(toMono(wav.channelData), regions, { ...opts, numSpeakers: o.numSpeakers, signal: o.signal });
      return { labels: r.labels, profiles: r.profiles };
    },
  };
}
