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
//
// Scale: the file is read region by region (memory does not grow with the length); the frames wait in a
// spool file between the two passes (global normalisation, then statistics); clustering is exact
// agglomeration with cached row minima (O(n²)) up to CLUSTER_WINDOW items, and above that windows of
// consecutive regions are clustered first and their clusters clustered again (linear in n). The engine
// runs in a worker thread (./threads), so the API's event loop never waits for it.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WavReader } from '../../media/wav';
import { EngineError, type DiarizationEngine, type SpeakerProfile, type SpeechRegion } from '../types';
import { dct, median, melFilterbank, percentile, powerSpectrum, rms, spectralShape, yin } from './dsp';
import { runInThread, runInThreads } from './threads';
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
/** [first, last + 1) of the non-zero weights of each mel filter. */
const fbankSpan = fbank.map((row) => {
  let a = 0;
  while (a < row.length && row[a] === 0) a++;
  let b = row.length;
  while (b > a && row[b - 1] === 0) b--;
  return [a, b] as const;
});

/** The sample range [s0, s1) of a region in a signal of `length` samples. */
function regionSpan(r: SpeechRegion, length: number): [number, number] {
  const s0 = Math.max(0, Math.floor(r.start * SR));
  return [s0, Math.max(s0, Math.min(length, Math.ceil(r.end * SR)))];
}

/** Acoustic features of the 16 kHz mono samples of one region. */
export function regionFeatures(x: Float32Array): RegionFeatures {
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
      // only the filter's non-zero span: the zero weights add exact zeros, so the sum is the same
      let e = 0;
      const row = fbank[m]!;
      for (let k = fbankSpan[m]![0]!; k < fbankSpan[m]![1]!; k++) e += row[k]! * p[k]!;
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
    durationSec: x.length / SR,
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

/** logDetCov with the default ridge, computed once per statistics object (they never change). */
const logDetCache = new WeakMap<GaussStats, number>();
function cachedLogDet(s: GaussStats): number {
  let v = logDetCache.get(s);
  if (v === undefined) {
    v = logDetCov(s);
    logDetCache.set(s, v);
  }
  return v;
}

export function compareClusters(a: GaussStats, b: GaussStats, o: BicOptions = {}): BicComparison {
  const d = a.sum.length;
  const z = addStats(a, b);
  const gain = 0.5 * (z.n * logDetCov(z) - a.n * cachedLogDet(a) - b.n * cachedLogDet(b));
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

/** Items clustered exactly (all pairs); larger inputs are clustered window by window first. */
export const CLUSTER_WINDOW = 320;

interface Cluster {
  stats: GaussStats;
  members: number[];
}

/**
 * Exact agglomeration: merges the closest pair (lowest score; the first such pair in index order) until
 * `stop(best, alive)` says so. Each row keeps its minimum over the columns after it, so a merge costs
 * O(n) plus the rows that pointed at the merged pair: O(n²) in all instead of O(n³).
 */
function agglomerate(items: readonly Cluster[], o: BicOptions, stop: (best: number, alive: number) => boolean): Cluster[] {
  const n = items.length;
  if (n === 0) return [];
  const clusters: Array<Cluster | null> = [...items];
  const score = new Float64Array(n * n).fill(Infinity);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) score[i * n + j] = compareClusters(items[i]!.stats, items[j]!.stats, o).score;
  const rowMin = new Float64Array(n).fill(Infinity);
  const rowArg = new Int32Array(n).fill(-1);
  const scanRow = (i: number) => {
    let best = Infinity;
    let arg = -1;
    for (let j = i + 1; j < n; j++) {
      if (!clusters[j]) continue;
      if (score[i * n + j]! < best) {
        best = score[i * n + j]!;
        arg = j;
      }
    }
    rowMin[i] = best;
    rowArg[i] = arg;
  };
  for (let i = 0; i < n; i++) scanRow(i);
  let alive = n;
  while (alive > 1) {
    let best = Infinity;
    let bi = -1;
    for (let i = 0; i < n; i++) {
      if (clusters[i] && rowArg[i]! >= 0 && rowMin[i]! < best) {
        best = rowMin[i]!;
        bi = i;
      }
    }
    if (bi < 0) break;
    const bj = rowArg[bi]!;
    if (stop(best, alive)) break;
    const a = clusters[bi]!;
    const b = clusters[bj]!;
    clusters[bi] = { stats: addStats(a.stats, b.stats), members: [...a.members, ...b.members] };
    clusters[bj] = null;
    alive--;
    for (let k = 0; k < n; k++) {
      if (k === bi || !clusters[k]) continue;
      const sc = compareClusters(clusters[bi]!.stats, clusters[k]!.stats, o).score;
      if (k < bi) score[k * n + bi] = sc;
      else score[bi * n + k] = sc;
    }
    // rows before bi see a new value in column bi and lose column bj; rows between lose column bj
    for (let k = 0; k < bj; k++) {
      if (k === bi || !clusters[k]) continue;
      if (rowArg[k] === bj || rowArg[k] === bi) scanRow(k);
      else if (k < bi) {
        const sc = score[k * n + bi]!;
        if (sc < rowMin[k]! || (sc === rowMin[k]! && bi < rowArg[k]!)) {
          rowMin[k] = sc;
          rowArg[k] = bi;
        }
      }
    }
    scanRow(bi);
  }
  return clusters.filter((c): c is Cluster => c !== null);
}

/**
 * Agglomerative clustering of Gaussian clusters by ΔBIC score: merges the closest pair until all pairs
 * score ≥ 1 and at most maxK remain, or until exactly numSpeakers remain when given. Up to
 * CLUSTER_WINDOW items this is exact; above it, each window of consecutive items is clustered on its own
 * (merging only what clearly is one speaker) and the windows' clusters are clustered again (recursively),
 * so the work grows linearly with the number of items.
 */
export function clusterByBic(
  items: readonly GaussStats[],
  o: BicOptions & { numSpeakers?: number; maxK?: number; window?: number } = {},
): ClusteringResult {
  const n = items.length;
  if (n === 0) return { labels: [], k: 0 };
  const target = o.numSpeakers ? Math.max(1, Math.min(o.numSpeakers, n)) : null;
  const maxK = o.maxK ?? 6;
  const window = Math.max(2, o.window ?? CLUSTER_WINDOW);
  const finalStop = (best: number, alive: number) => (target !== null ? alive <= target : best >= 1 && alive <= maxK);
  let level: Cluster[] = items.map((s, i) => ({ stats: s, members: [i] }));
  while (level.length > window) {
    // windows stop where the natural criterion stops (a window may hold fewer speakers than the target)
    const wk = Math.max(maxK, target ?? 0);
    const next: Cluster[] = [];
    for (let w = 0; w < level.length; w += window) {
      next.push(...agglomerate(level.slice(w, w + window), o, (best, alive) => best >= 1 && alive <= wk));
    }
    if (next.length >= level.length) break; // nothing merged: cluster what is left in one go
    level = next;
  }
  const clusters = agglomerate(level, o, finalStop);
  const raw = new Array<number>(n).fill(0);
  clusters.forEach((c, ci) => c.members.forEach((m) => (raw[m] = ci)));
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

export interface DspDiarizationOptions extends BicOptions {
  maxSpeakers?: number;
  /** Regions with fewer speech frames (10 ms) are not clustered but assigned afterwards (default 50). */
  minClusterFrames?: number;
  /** Mean pitch under this is reported as male (default 165 Hz). */
  maleBelowHz?: number;
}

/** The features of a region kept between the passes (its frames wait in the spool). */
export type RegionSummary = Omit<RegionFeatures, 'frames'> & { frameCount: number };

export interface DiarizationDetail {
  labels: string[];
  profiles: SpeakerProfile[];
  features: RegionSummary[];
}

/** Where the cepstral frames of the regions wait between the two passes. */
interface FrameSpool {
  put(frames: readonly Float64Array[]): void;
  /** The frames of the i-th region put, in order. */
  get(i: number): Float64Array[];
  close(): void;
}

function memorySpool(): FrameSpool {
  const all: Array<readonly Float64Array[]> = [];
  return { put: (f) => void all.push(f), get: (i) => all[i]!.map((x) => Float64Array.from(x)), close: () => void all.splice(0) };
}

/** A spool file: 8-byte doubles, N_CEP per frame, region after region (exact round trip). */
function fileSpool(dir: string): FrameSpool {
  const tmp = mkdtempSync(join(dir, 'diar-'));
  const spool = spoolFile(join(tmp, 'frames.f64'));
  return { ...spool, close: () => {
    spool.close();
    rmSync(tmp, { recursive: true, force: true });
  } };
}

/** A spool at `path` (created), with the frame count of each region put. */
function spoolFile(path: string): FrameSpool & { counts: number[] } {
  const fd = openSync(path, 'w+');
  const counts: number[] = [];
  const at: number[] = [];
  let offset = 0;
  return {
    counts,
    put(frames) {
      const buf = Buffer.allocUnsafe(frames.length * N_CEP * 8);
      frames.forEach((x, k) => {
        for (let i = 0; i < N_CEP; i++) buf.writeDoubleLE(x[i]!, (k * N_CEP + i) * 8);
      });
      if (buf.length) writeSync(fd, buf, 0, buf.length, offset);
      at.push(offset);
      counts.push(frames.length);
      offset += buf.length;
    },
    get: (i) => readFrames(fd, at[i]!, counts[i]!),
    close: () => closeSync(fd),
  };
}

function readFrames(fd: number, offset: number, count: number): Float64Array[] {
  const buf = Buffer.allocUnsafe(count * N_CEP * 8);
  let got = 0;
  while (got < buf.length) {
    const r = readSync(fd, buf, got, buf.length - got, offset + got);
    if (r <= 0) throw new Error('diarization spool file is short');
    got += r;
  }
  return Array.from({ length: count }, (_, k) => {
    const x = new Float64Array(N_CEP);
    for (let j = 0; j < N_CEP; j++) x[j] = buf.readDoubleLE((k * N_CEP + j) * 8);
    return x;
  });
}

/** The spool files of consecutive parts of the regions, read as one spool (region i of the whole, in order). */
function partsSpool(parts: readonly DiarizationPartFrames[]): FrameSpool {
  const where: Array<{ fd: number; offset: number; count: number }> = [];
  const fds: number[] = [];
  try {
    for (const p of parts) {
      const fd = openSync(p.spool, 'r');
      fds.push(fd);
      let offset = 0;
      for (const count of p.counts) {
        where.push({ fd, offset, count });
        offset += count * N_CEP * 8;
      }
    }
  } catch (e) {
    for (const fd of fds) closeSync(fd);
    throw e;
  }
  return {
    put: () => {
      throw new Error('a parts spool is read-only');
    },
    get: (i) => readFrames(where[i]!.fd, where[i]!.offset, where[i]!.count),
    close: () => fds.forEach((fd) => closeSync(fd)),
  };
}

/** What a part's features pass leaves: its regions' summaries and their frames in a spool file. */
export interface DiarizationPartFrames {
  spool: string;
  counts: number[];
  features: RegionSummary[];
}

type DiarizeOptions = DspDiarizationOptions & { numSpeakers?: number; signal?: AbortSignal; onProgress?: (fraction: number) => void };

/** Pass 1: each region's features, its frames to the spool. Progress goes to 0.9 of `o.onProgress`. */
function featurePass(
  regions: readonly SpeechRegion[],
  samplesOf: (r: SpeechRegion) => Float32Array,
  spool: FrameSpool,
  o: DiarizeOptions,
): RegionSummary[] {
  const feats: RegionSummary[] = [];
  let lastReport = 0;
  regions.forEach((r, i) => {
    throwIfAborted(o.signal);
    const { frames, ...rest } = regionFeatures(samplesOf(r));
    spool.put(frames);
    feats.push({ ...rest, frameCount: frames.length });
    if (o.onProgress && (i + 1) / regions.length - lastReport >= 0.01) {
      lastReport = (i + 1) / regions.length;
      o.onProgress(0.9 * lastReport);
    }
  });
  return feats;
}

/**
 * The engine's work over any source of region samples: features region by region (frames to the
 * spool), then clusterPass.
 */
function diarizeRegions(
  regions: readonly SpeechRegion[],
  samplesOf: (r: SpeechRegion) => Float32Array,
  spool: FrameSpool,
  o: DiarizeOptions,
): DiarizationDetail {
  if (regions.length === 0) return { labels: [], profiles: [], features: [] };
  return clusterPass(regions, featurePass(regions, samplesOf, spool, o), spool, o);
}

/**
 * After the features: the global normalisation (the frames' sums in region order, from the spool), each region's
 * Gaussian statistics, clustering, assignment of the short regions, profiles.
 */
function clusterPass(regions: readonly SpeechRegion[], feats: RegionSummary[], spool: FrameSpool, o: DiarizeOptions): DiarizationDetail {
  const d = N_CEP;
  const mean = new Float64Array(d);
  const sq = new Float64Array(d);
  let nAll = 0;
  for (let i = 0; i < feats.length; i++) {
    throwIfAborted(o.signal);
    for (const x of spool.get(i)) {
      nAll++;
      for (let k = 0; k < d; k++) {
        mean[k]! += x[k]!;
        sq[k]! += x[k]! * x[k]!;
      }
    }
  }
  const sd = new Float64Array(d);
  if (nAll > 0) {
    for (let k = 0; k < d; k++) {
      mean[k]! /= nAll;
      sd[k] = Math.sqrt(Math.max(sq[k]! / nAll - mean[k]! ** 2, 1e-9));
    }
  }
  // pass 2: each region's statistics of its normalised frames
  const stats = feats.map((f, i) => {
    throwIfAborted(o.signal);
    const frames = spool.get(i);
    if (nAll > 0) for (const x of frames) for (let k = 0; k < d; k++) x[k] = (x[k]! - mean[k]!) / sd[k]!;
    return { ...statsOf(frames), pitchN: f.voicedFrames, pitchSum: f.pitchSemitoneSum };
  });
  o.onProgress?.(0.95);
  const minFrames = o.minClusterFrames ?? 50;
  let core = feats.map((_, i) => i).filter((i) => feats[i]!.frameCount >= minFrames);
  if (core.length === 0) {
    const withFrames = feats.map((_, i) => i).filter((i) => feats[i]!.frameCount > N_CEP);
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
    const clusterStats: Array<GaussStats | null> = new Array(k).fill(null);
    core.forEach((i, j) => {
      const c = res.labels[j]!;
      clusterStats[c] = clusterStats[c] ? addStats(clusterStats[c]!, stats[i]!) : stats[i]!;
    });
    for (let i = 0; i < regions.length; i++) {
      if (raw[i]! >= 0) continue;
      if (feats[i]!.frameCount > 2) {
        let best = 0;
        let bestS = Infinity;
        clusterStats.forEach((cs, c) => {
          const sc = compareClusters(cs!, stats[i]!, o).gainPerFrame;
          if (sc < bestS) {
            bestS = sc;
            best = c;
          }
        });
        raw[i] = best;
      }
    }
  }
  assignByTime(regions, raw);
  const ids = relabelByAppearance(raw);
  const maleBelow = o.maleBelowHz ?? 165;
  const nSpk = new Set(ids).size;
  const pitchSum = new Array<number>(nSpk).fill(0);
  const pitchCnt = new Array<number>(nSpk).fill(0);
  ids.forEach((l, i) => {
    const f = feats[i]!;
    if (f.voicedFrames > 0) {
      pitchSum[l]! += f.meanPitchHz * f.voicedFrames;
      pitchCnt[l]! += f.voicedFrames;
    }
  });
  const profiles: SpeakerProfile[] = Array.from({ length: nSpk }, (_, sp) => {
    const mean = pitchCnt[sp] ? pitchSum[sp]! / pitchCnt[sp]! : 0;
    return {
      speaker: `SPEAKER_${sp}`,
      gender: mean > 0 && mean >= maleBelow ? 'female' : 'male',
      meanPitchHz: Math.round(mean * 10) / 10,
    };
  });
  o.onProgress?.(1);
  return { labels: ids.map((l) => `SPEAKER_${l}`), profiles, features: feats };
}

/**
 * Regions still without a speaker (no usable frames), in input order, take the speaker of the nearest
 * labelled region by start time (the first such region in input order on a tie), regions labelled so far
 * included; none labelled: speaker 0. A sorted list and binary search keep it O(n log n) for few such
 * regions.
 */
function assignByTime(regions: readonly SpeechRegion[], raw: number[]): void {
  const labelled = raw.map((_, j) => j).filter((j) => raw[j]! >= 0).sort((a, b) => regions[a]!.start - regions[b]!.start || a - b);
  /** Position of the first labelled region whose start is >= t (or, with `index`, after (t, index)). */
  const lowerBound = (t: number, index = -1) => {
    let lo = 0;
    let hi = labelled.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const m = regions[labelled[mid]!]!.start;
      if (m < t || (m === t && labelled[mid]! < index)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  for (let i = 0; i < regions.length; i++) {
    if (raw[i]! >= 0) continue;
    const t = regions[i]!.start;
    if (labelled.length === 0) {
      raw[i] = 0;
      labelled.push(i);
      continue;
    }
    const lo = lowerBound(t);
    // candidates: the group of equal starts just before t and the one at/after t; smallest distance, then index
    let best = -1;
    let bestD = Infinity;
    const consider = (from: number, step: number) => {
      if (from < 0 || from >= labelled.length) return;
      const s0 = regions[labelled[from]!]!.start;
      for (let q = from; q >= 0 && q < labelled.length && regions[labelled[q]!]!.start === s0; q += step) {
        const j = labelled[q]!;
        const dist = Math.abs(s0 - t);
        if (dist < bestD || (dist === bestD && j < best)) {
          bestD = dist;
          best = j;
        }
      }
    };
    consider(lo - 1, -1);
    consider(lo, 1);
    raw[i] = raw[best]!;
    labelled.splice(lowerBound(t, i), 0, i);
  }
}

/** Diarizes regions of 16 kHz mono samples held in memory (the file engine reads region by region instead). @internal */
export function diarizeSamples(samples: Float32Array, regions: readonly SpeechRegion[], o: DiarizeOptions = {}): DiarizationDetail {
  const spool = memorySpool();
  try {
    return diarizeRegions(regions, (r) => samples.subarray(...regionSpan(r, samples.length)), spool, o);
  } finally {
    spool.close();
  }
}

/** A 16 kHz WAV file opened for reading region by region (its samples in a region's span). */
function openRegionReader(wav16kMono: string): { samplesOf: (r: SpeechRegion) => Float32Array; close: () => void } {
  const reader = new WavReader(wav16kMono);
  if (reader.info.sampleRate !== SR) {
    reader.close();
    throw new EngineError('bad_input', `diarization needs 16 kHz audio, got ${reader.info.sampleRate} Hz`);
  }
  const length = reader.info.frames;
  return {
    samplesOf: (r) => {
      const [s0, s1] = regionSpan(r, length);
      return reader.readMono(s0, s1 - s0);
    },
    close: () => reader.close(),
  };
}

/**
 * Diarizes regions of a 16 kHz WAV file, reading it region by region: memory stays the same for a
 * 3-hour file as for a short one. Runs where it is called (the engine calls it in a worker thread).
 */
export function diarizeFile(wav16kMono: string, regions: readonly SpeechRegion[], o: DiarizeOptions & { tmpDir?: string } = {}): DiarizationDetail {
  const reader = openRegionReader(wav16kMono);
  let spool: FrameSpool | null = null;
  try {
    spool = fileSpool(o.tmpDir ?? tmpdir());
    return diarizeRegions(regions, reader.samplesOf, spool, o);
  } finally {
    spool?.close();
    reader.close();
  }
}

/** The features pass over one part of the regions (a thread of its own), its frames to the spool file `spool`. */
export function diarizePartFeatures(wav16kMono: string, regions: readonly SpeechRegion[], spool: string, o: DiarizeOptions = {}): DiarizationPartFrames {
  const reader = openRegionReader(wav16kMono);
  const out = spoolFile(spool);
  try {
    const features = featurePass(regions, reader.samplesOf, out, o);
    return { spool, counts: out.counts, features };
  } finally {
    out.close();
    reader.close();
  }
}

/** The rest of the diarization of `regions`, from the features passes of its consecutive parts. */
export function diarizeFromParts(regions: readonly SpeechRegion[], parts: readonly DiarizationPartFrames[], o: DiarizeOptions = {}): DiarizationDetail {
  if (regions.length === 0) return { labels: [], profiles: [], features: [] };
  const spool = partsSpool(parts);
  try {
    return clusterPass(regions, parts.flatMap((p) => p.features), spool, o);
  } finally {
    spool.close();
  }
}

/** Speech (seconds, over all regions) from which the features pass runs in two parts at once, a thread each. */
export const DIARIZE_PARTS_FROM_SEC = 120;

/** The regions in consecutive parts of about the same speech: two from DIARIZE_PARTS_FROM_SEC, else one. */
export function diarizationParts(regions: readonly SpeechRegion[]): SpeechRegion[][] {
  const dur = (r: SpeechRegion) => Math.max(0, r.end - r.start);
  const total = regions.reduce((a, r) => a + dur(r), 0);
  if (regions.length < 2 || total < DIARIZE_PARTS_FROM_SEC) return [regions.slice()];
  let acc = 0;
  let cut = 0;
  while (cut < regions.length - 1 && acc + dur(regions[cut]!) / 2 < total / 2) acc += dur(regions[cut++]!);
  cut = Math.max(1, cut);
  return [regions.slice(0, cut), regions.slice(cut)];
}

export function createDspDiarization(opts: DspDiarizationOptions = {}): DiarizationEngine {
  return {
    id: 'dsp-diarization',
    label: 'Built-in acoustic clustering (MFCC + ΔBIC)',
    available: () => true,
    async init() {},
    async diarize(wav16kMono, regions, o = {}) {
      const options = { ...opts, numSpeakers: o.numSpeakers };
      const parts = diarizationParts(regions);
      if (parts.length === 1) {
        const r = await runInThread<{ labels: string[]; profiles: SpeakerProfile[] }>(
          'diarize',
          { wav: wav16kMono, regions, options },
          { signal: o.signal, onProgress: o.onProgress },
        );
        return { labels: r.labels, profiles: r.profiles };
      }
      // a long input: the features (most of the time) of its two halves at once, a thread each, then the rest
      const dir = mkdtempSync(join(tmpdir(), 'diar-parts-'));
      try {
        const speech = parts.map((p) => p.reduce((a, r) => a + Math.max(0, r.end - r.start), 0));
        const done = parts.map(() => 0);
        const progress = (i: number) => (f: number) => {
          done[i] = f * speech[i]!;
          o.onProgress?.(done.reduce((a, b) => a + b, 0) / speech.reduce((a, b) => a + b, 0));
        };
        const frames = await runInThreads<DiarizationPartFrames>(
          parts.map((p, i) => ({ task: 'diarizeFeatures', payload: { wav: wav16kMono, regions: p, spool: join(dir, `part-${i}.f64`) }, onProgress: progress(i) })),
          o.signal,
        );
        const r = await runInThread<{ labels: string[]; profiles: SpeakerProfile[] }>('diarizeParts', { regions, parts: frames, options }, { signal: o.signal });
        o.onProgress?.(1);
        return { labels: r.labels, profiles: r.profiles };
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
