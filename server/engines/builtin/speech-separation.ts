// Built-in speech/background separation that follows the speech (issue 28). Over a short-time Fourier transform of
// the centre (mid) channel, a gain per time-frequency cell says how much of it is speech; the speech estimate V is
// that share of the centre, and the background is the input minus V on both channels, so the side channel (L-R)
// and everything the gains leave stay untouched: the stereo image is kept and no band is cut.
// The gain is a Wiener-like rule from two power estimates per cell:
// - the background's: the largest of (a) minimum statistics of the centre over +-W frames (speech comes and goes
//   at the syllable rate and its harmonics move with the pitch, the music under it stays), scaled by its bias,
//   and (b) the side channel scaled by the centre/side ratio the music has where nobody speaks over the last minute
//   or so (stereo music);
// - the speech's: what is above the background estimate, weighted toward the harmonics of the tracked pitch in
//   voiced frames (the speech's energy sits on them; the cells between keep the music).
// Speech regions (voice activity) gate it: outside them the background is the input, exactly.
// Work goes block by block (about 20 s, overlapping by the analysis context): memory stays bounded for any
// length; only frames near speech are transformed. Pure in-memory core (separateBlock) plus the file driver, which
// can run a long input in parts at once (separationParts: the same samples as in one run).
import { closeSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';
import FFT from 'fft.js';
import { readWavInfo, toPcm16, wavHeader, type WavInfo } from '../../media/wav';
import type { SpeechRegion } from '../types';

export interface SpeechSeparationOptions {
  /** Frame length in seconds (rounded to a power of two in samples). Default ~85 ms. */
  frameSec?: number;
  /** Frames each side over which the background's minimum is taken. Default 32 (~0.7 s at 48 kHz). */
  minFrames?: number;
  /** Scale of the minimum statistic (its bias: the minimum under-reads the mean). Default 1.5. */
  minBias?: number;
  /** Background weight in the gain: below 1 removes more speech (less leakage) at some cost to the music. */
  backgroundWeight?: number;
  /** Frequencies where speech is looked for (Hz): below and above, everything stays in the background. */
  speechHz?: [number, number];
  /** Seconds of ramp at region edges. Default 0.05. */
  rampSec?: number;
  /** Seconds around regions still analysed (context for the statistics). */
  contextSec?: number;
}

const DEFAULTS = { frameSec: 0.085, minFrames: 32, minBias: 1.5, backgroundWeight: 0.5, rampSec: 0.05, speechHz: [20, 12000] as [number, number] } as const;

export interface SeparationPlan {
  n: number;
  hop: number;
  bins: number;
  minFrames: number;
  minBias: number;
  backgroundWeight: number;
  /** Bins where speech is looked for. */
  k0: number;
  k1: number;
  window: Float64Array;
  fft: FFT;
}

export function separationPlan(sampleRate: number, o: SpeechSeparationOptions = {}): SeparationPlan {
  const want = (o.frameSec ?? DEFAULTS.frameSec) * sampleRate;
  let n = 256;
  while (n * 1.5 < want) n <<= 1;
  const window = new Float64Array(n);
  for (let i = 0; i < n; i++) window[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
  return {
    n,
    hop: n / 4,
    bins: n / 2 + 1,
    minFrames: o.minFrames ?? DEFAULTS.minFrames,
    minBias: o.minBias ?? DEFAULTS.minBias,
    backgroundWeight: o.backgroundWeight ?? DEFAULTS.backgroundWeight,
    k0: Math.max(1, Math.floor(((o.speechHz ?? DEFAULTS.speechHz)[0] * n) / sampleRate)),
    k1: Math.min(n / 2, Math.ceil(((o.speechHz ?? DEFAULTS.speechHz)[1] * n) / sampleRate)),
    window,
    fft: new FFT(n),
  };
}

/** The music's centre (mid) and side power per bin, summed over the frames nobody speaks in. */
export interface SideRatio {
  mid: Float64Array;
  side: Float64Array;
}

/** Blocks before the current one whose music teaches it the centre/side ratio (about a minute). */
export const RATIO_PAST_BLOCKS = 3;

/** The bytes of a block as read from the file (grown as needed). */
let raw = Buffer.alloc(0);
function rawBuffer(length: number): Buffer {
  if (raw.length < length) raw = Buffer.alloc(length);
  return raw.subarray(0, length);
}

function releaseWork(): void {
  workArrays.clear();
  raw = Buffer.alloc(0);
}

/** This thread's work arrays by name, grown as needed (separateBlock runs one block at a time per thread). */
const workArrays = new Map<string, Float32Array>();
function work(name: string, length: number): Float32Array {
  let a = workArrays.get(name);
  if (!a || a.length < length) {
    a = new Float32Array(length);
    workArrays.set(name, a);
  }
  return a.subarray(0, length);
}

/**
 * One block: `left`/`right` hold samples [offset, offset + length) of the input; `gate` (same length, 0..1) is the
 * speech-region gate. Frames are on the global grid (centres at multiples of the hop), so blocks join seamlessly.
 * Returns the voice estimate over the whole block (frames whose centres lie in [from, to) contribute; the caller
 * keeps the part it owns). `also` are other signals (same length, e.g. true stems in a benchmark) to which the same
 * gains are applied: the voice part of each is returned beside.
 */
export function separateBlock(
  plan: SeparationPlan,
  left: Float32Array,
  right: Float32Array,
  gate: Float32Array,
  offset: number,
  from: number,
  to: number,
  past: SideRatio,
  also: Float32Array[][] = [],
): { voice: Float32Array; alsoVoice: Float32Array[]; own: SideRatio } {
  const { n, hop, bins, fft, window } = plan;
  // bins above the speech band (plan.k1) are never speech: nothing there is computed (the background keeps them)
  const kTop = plan.k1;
  // rows of the block's spectra hold the bins up to kTop only
  const stride = kTop + 1;
  const len = left.length;
  const half = n / 2;
  // frames with centres in [c0, c1) (global sample index = f * hop)
  const f0 = Math.ceil(from / hop);
  const f1 = Math.ceil(to / hop);
  const W = plan.minFrames;
  const a0 = Math.max(Math.ceil((offset + half) / hop), f0 - W);
  const a1 = Math.min(Math.floor((offset + len - half) / hop) + 1, f1 + W);
  const nf = Math.max(0, a1 - a0);
  // the voice estimates are work arrays too: the caller writes them out before the next block
  const voice = work('voice', len).fill(0);
  const alsoVoice = also.map((_, q) => work(`alsoVoice${q}`, len).fill(0));
  const own: SideRatio = { mid: new Float64Array(bins), side: new Float64Array(bins) };
  if (nf === 0) return { voice, alsoVoice, own };
  // which frames are analysed: a gated frame, or within W frames of one
  const gateAt = (f: number) => {
    const c = f * hop - offset;
    let g = 0;
    for (let i = Math.max(0, c - half); i < Math.min(len, c + half); i += 64) g = Math.max(g, gate[i]!);
    return g;
  };
  const gf = new Float32Array(nf);
  const gc = new Float32Array(nf);
  for (let j = 0; j < nf; j++) {
    gf[j] = gateAt(a0 + j);
    const c = (a0 + j) * hop - offset;
    gc[j] = c >= 0 && c < len ? gate[c]! : 0;
  }
  const analysed = new Uint8Array(nf);
  for (let j = 0; j < nf; j++) if (gf[j]! > 0) for (let k = Math.max(0, j - W); k <= Math.min(nf - 1, j + W); k++) analysed[k] = 1;
  let count = 0;
  for (let j = 0; j < nf; j++) count += analysed[j]!;
  if (count === 0) return { voice, alsoVoice, own };

  // spectra: centre (complex, kept for the synthesis) and powers of centre and side
  const idx = new Int32Array(nf).fill(-1);
  let m = 0;
  for (let j = 0; j < nf; j++) if (analysed[j]) idx[j] = m++;
  // the block's spectra and statistics live in this thread's work arrays (kept from block to block: a block's arrays
  // are about 90 MB, and new ones per block left the collector several blocks behind); every cell read below is
  // written first for this block, except where a fill says otherwise
  const Mre = work('Mre', m * stride);
  const Mim = work('Mim', m * stride);
  const Pm = work('Pm', m * stride);
  const Ps = work('Ps', m * stride);
  const input = fft.createComplexArray() as number[];
  const out = fft.createComplexArray() as number[];
  for (let j = 0; j < nf; j++) {
    const r = idx[j]!;
    if (r < 0) continue;
    const s = (a0 + j) * hop - offset - half;
    for (let i = 0; i < n; i++) {
      const w = window[i]!;
      const l = left[s + i]!;
      const rr = right[s + i]!;
      input[2 * i] = 0.5 * (l + rr) * w;
      input[2 * i + 1] = 0.5 * (l - rr) * w;
    }
    fft.transform(out, input);
    const base = r * stride;
    for (let k = 0; k <= kTop; k++) {
      const nk = (n - k) % n;
      const xr = out[2 * k]!;
      const xi = out[2 * k + 1]!;
      const yr = out[2 * nk]!;
      const yi = out[2 * nk + 1]!;
      // M = (X_k + conj X_-k) / 2 ; S = (X_k - conj X_-k) / 2i
      const mr = 0.5 * (xr + yr);
      const mi = 0.5 * (xi - yi);
      const sr = 0.5 * (xi + yi);
      const si = -0.5 * (xr - yr);
      Mre[base + k] = mr;
      Mim[base + k] = mi;
      Pm[base + k] = mr * mr + mi * mi;
      Ps[base + k] = sr * sr + si * si;
    }
  }
  // the music's centre/side ratio where nobody speaks (frames analysed for context, gate 0): this block's frames and
  // the past blocks' (the last minute: the music of a long video changes)
  for (let j = 0; j < nf; j++) {
    const r = idx[j]!;
    if (r < 0 || gf[j]! > 0) continue;
    const base = r * stride;
    for (let k = 0; k <= kTop; k++) {
      own.mid[k]! += Pm[base + k]!;
      own.side[k]! += Ps[base + k]!;
    }
  }
  const ratio: SideRatio = { mid: new Float64Array(bins), side: new Float64Array(bins) };
  for (let k = 0; k < bins; k++) {
    ratio.mid[k] = past.mid[k]! + own.mid[k]!;
    ratio.side[k] = past.side[k]! + own.side[k]!;
  }
  let midSum = 0;
  let sideSum = 0;
  for (let k = 0; k <= kTop; k++) {
    midSum += ratio.mid[k]!;
    sideSum += ratio.side[k]!;
  }
  const useSide = sideSum > 1e-4 * midSum && midSum > 0;
  const rho = new Float32Array(bins);
  if (useSide) {
    // smoothed over +-4 bins; a floor keeps bins where the side is silent from dividing by nothing
    for (let k = 0; k <= kTop; k++) {
      let a = 0;
      let b = 0;
      for (let q = Math.max(0, k - 4); q <= Math.min(bins - 1, k + 4); q++) {
        a += ratio.mid[q]!;
        b += ratio.side[q]!;
      }
      rho[k] = b > 0 ? Math.min(1000, a / b) : 0;
    }
  }
  // time-smoothed centre power (3 frames) for the minimum statistic; rows of frames not analysed are +inf
  const big = 1e30;
  const sm = work('sm', nf * stride).fill(big);
  for (let j = 0; j < nf; j++) {
    const r = idx[j]!;
    if (r < 0) continue;
    const rp = (j > 0 && idx[j - 1]! >= 0 ? idx[j - 1]! : r) * stride;
    const rn = (j + 1 < nf && idx[j + 1]! >= 0 ? idx[j + 1]! : r) * stride;
    const rc = r * stride;
    const o = j * stride;
    for (let k = 0; k <= kTop; k++) sm[o + k] = 0.25 * (Pm[rp + k]! + 2 * Pm[rc + k]! + Pm[rn + k]!);
  }
  // minimum over +-W frames, per bin (van Herk / Gil-Werman: prefix and suffix minima in blocks of 2W+1 frames,
  // row by row so memory is read in order)
  const span = 2 * W + 1;
  const pre = work('pre', nf * stride);
  const suf = work('suf', nf * stride);
  for (let j = 0; j < nf; j++) {
    const o = j * stride;
    if (j % span === 0) pre.set(sm.subarray(o, o + stride), o);
    else for (let k = 0; k <= kTop; k++) pre[o + k] = Math.min(pre[o - stride + k]!, sm[o + k]!);
  }
  for (let j = nf - 1; j >= 0; j--) {
    const o = j * stride;
    if (j % span === span - 1 || j === nf - 1) suf.set(sm.subarray(o, o + stride), o);
    else for (let k = 0; k <= kTop; k++) suf[o + k] = Math.min(suf[o + stride + k]!, sm[o + k]!);
  }
  const minimum = work('minimum', m * stride);
  for (let j = 0; j < nf; j++) {
    const r = idx[j]!;
    if (r < 0 || gf[j]! === 0) continue;
    const lo = Math.max(0, j - W) * stride;
    const hi = Math.min(nf - 1, j + W) * stride;
    const o = r * stride;
    for (let k = 0; k <= kTop; k++) minimum[o + k] = Math.min(suf[lo + k]!, pre[hi + k]!);
  }
  // gains and synthesis of the voice estimate (two frames per inverse transform)
  const bias = plan.minBias;
  const beta = plan.backgroundWeight;
  const gains = new Float32Array(bins);
  const Vre = work('Vre', m * stride);
  const Vim = work('Vim', m * stride);
  const G = work('G', m * stride);
  for (let j = 0; j < nf; j++) {
    const r = idx[j]!;
    const c = a0 + j;
    if (r < 0 || gf[j]! === 0 || c < f0 || c >= f1) continue;
    const g = gc[j]!;
    const base = r * stride;
    gains.fill(0);
    for (let k = plan.k0; k <= plan.k1; k++) {
      const p = Pm[base + k]!;
      let noise = bias * minimum[base + k]!;
      if (useSide) noise = Math.max(noise, rho[k]! * Ps[base + k]!);
      const speech = Math.max(0, p - noise);
      const gain = speech > 0 ? speech / (speech + beta * noise) : 0;
      gains[k] = gain * g;
    }
    for (let k = 0; k <= kTop; k++) {
      G[base + k] = gains[k]!;
      Vre[base + k] = gains[k]! * Mre[base + k]!;
      Vim[base + k] = gains[k]! * Mim[base + k]!;
    }
  }
  // inverse transforms: the voice (from V) and, for `also`, the same gains on each signal's centre
  const norm = 1 / 1.5; // sum of hann^2 at a quarter-frame hop
  const synthesis = new Float64Array(n);
  for (let i = 0; i < n; i++) synthesis[i] = window[i]! * norm;
  const frameList: number[] = [];
  for (let j = 0; j < nf; j++) {
    const c = a0 + j;
    if (idx[j]! >= 0 && gf[j]! > 0 && c >= f0 && c < f1) frameList.push(j);
  }
  const inv = (re: Float32Array, im: Float32Array, dest: Float32Array) => {
    for (let q = 0; q < frameList.length; q += 2) {
      const ja = frameList[q]!;
      const jb = frameList[q + 1];
      const oa = idx[ja]! * stride;
      const ob = jb === undefined ? -1 : idx[jb]! * stride;
      // Z = A + iB over the full (Hermitian) spectra: re(z) = a, im(z) = b
      for (let k = 0; k <= half; k++) {
        // nothing above the speech band is the voice's
        const inBand = k <= kTop;
        const ar = inBand ? re[oa + k]! : 0;
        const ai = inBand ? im[oa + k]! : 0;
        const br = ob < 0 || !inBand ? 0 : re[ob + k]!;
        const bi = ob < 0 || !inBand ? 0 : im[ob + k]!;
        input[2 * k] = ar - bi;
        input[2 * k + 1] = ai + br;
        if (k > 0 && k < half) {
          // bin n-k: conj(A) + i conj(B)
          input[2 * (n - k)] = ar + bi;
          input[2 * (n - k) + 1] = -ai + br;
        }
      }
      fft.inverseTransform(out, input);
      for (let which = 0; which < 2; which++) {
        const j = which === 0 ? ja : jb;
        if (j === undefined) continue;
        const s = (a0 + j) * hop - offset - half;
        const i0 = Math.max(0, -s);
        const i1 = Math.min(n, len - s);
        for (let i = i0; i < i1; i++) dest[s + i]! += out[2 * i + which]! * synthesis[i]!;
      }
    }
  };
  inv(Vre, Vim, voice);
  // the same gains on other signals (their centre's spectrum, computed here)
  for (const [q, sig] of also.entries()) {
    const sre = new Float32Array(m * stride);
    const sim = new Float32Array(m * stride);
    const [L, R] = [sig[0]!, sig[1] ?? sig[0]!];
    for (const j of frameList) {
      const r = idx[j]!;
      const s = (a0 + j) * hop - offset - half;
      for (let i = 0; i < n; i++) {
        input[2 * i] = 0.5 * (L[s + i]! + R[s + i]!) * window[i]!;
        input[2 * i + 1] = 0;
      }
      fft.transform(out, input);
      for (let k = 0; k <= kTop; k++) {
        sre[r * stride + k] = G[r * stride + k]! * out[2 * k]!;
        sim[r * stride + k] = G[r * stride + k]! * out[2 * k + 1]!;
      }
    }
    inv(sre, sim, alsoVoice[q]!);
  }
  return { voice, alsoVoice, own };
}

// ------------------------------------------------------------------ files

/** Reads frames [start, start + count) of a PCM/float WAV, every channel (zeros past the end). */
function readBlock(fd: number, info: WavInfo, start: number, count: number, slot = 'in'): Float32Array[] {
  const { channels, bitsPerSample: bits, format, dataOffset, frames } = info;
  // the thread's work arrays (`slot` names them): the caller is done with a block before it reads the next
  const out = Array.from({ length: Math.max(2, channels) }, (_, c) => work(`${slot}${c}`, count).fill(0));
  const s = Math.max(0, start);
  const e = Math.min(frames, start + count);
  if (e <= s) return out;
  const bps = bits / 8;
  const frameBytes = bps * channels;
  const buf = rawBuffer((e - s) * frameBytes);
  let got = 0;
  while (got < buf.length) {
    const r = readSync(fd, buf, got, buf.length - got, dataOffset + s * frameBytes + got);
    if (r <= 0) break;
    got += r;
  }
  const whole = Math.floor(got / frameBytes);
  if (bits === 16 && format !== 3 && buf.byteOffset % 2 === 0) {
    const pcm = new Int16Array(buf.buffer, buf.byteOffset, whole * channels);
    for (let c = 0; c < channels; c++) {
      const o = out[c]!;
      const base = s - start;
      for (let i = 0, q = c; i < whole; i++, q += channels) o[base + i] = pcm[q]! / 32768;
    }
    if (channels === 1) out[1]!.set(out[0]!);
    return out;
  }
  let p = 0;
  for (let i = 0; i < whole; i++) {
    for (let c = 0; c < channels; c++) {
      let v: number;
      if (format === 3) v = bits === 64 ? buf.readDoubleLE(p) : buf.readFloatLE(p);
      else if (bits === 16) v = buf.readInt16LE(p) / 32768;
      else if (bits === 24) v = buf.readIntLE(p, 3) / 8388608;
      else if (bits === 32) v = buf.readInt32LE(p) / 2147483648;
      else v = (buf[p]! - 128) / 128;
      out[c]![s - start + i] = v;
      p += bps;
    }
  }
  if (channels === 1) out[1]!.set(out[0]!);
  return out;
}

/** Region gate over samples [start, start + count) at `sampleRate`, with linear ramps. */
function gateBlock(regions: readonly SpeechRegion[], sampleRate: number, start: number, count: number, rampSec: number): Float32Array {
  const g = work('gate', count).fill(0);
  const ramp = Math.max(1, Math.round(rampSec * sampleRate));
  for (const r of regions) {
    const a = Math.round(r.start * sampleRate);
    const b = Math.round(r.end * sampleRate);
    if (b + ramp <= start || a - ramp >= start + count) continue;
    for (let t = Math.max(start, a - ramp); t < Math.min(start + count, b + ramp); t++) {
      const v = t < a ? 1 - (a - t) / ramp : t >= b ? 1 - (t - b + 1) / ramp : 1;
      if (v > g[t - start]!) g[t - start] = v;
    }
  }
  return g;
}

/** Low-pass decimation by an integer factor (windowed sinc, 6 taps per side per factor); silence stays silence. Pure. */
export function decimate(x: Float32Array, factor: number, from: number, to: number): Float32Array {
  if (factor === 1) return x.slice(from, to);
  const taps = 6 * factor;
  const h = new Float64Array(2 * taps + 1);
  const fc = 0.45 / factor;
  let sum = 0;
  for (let i = -taps; i <= taps; i++) {
    const sinc = i === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * i) / (Math.PI * i);
    const w = 0.42 + 0.5 * Math.cos((Math.PI * i) / taps) + 0.08 * Math.cos((2 * Math.PI * i) / taps);
    h[i + taps] = sinc * w;
    sum += sinc * w;
  }
  for (let i = 0; i < h.length; i++) h[i]! /= sum;
  const n = Math.floor((to - from) / factor);
  const y = new Float32Array(n);
  // where the input is silent around an output sample, the output is 0 (the voice is silent outside speech)
  const loud = new Uint8Array(Math.ceil(x.length / 64) + 1);
  for (let i = 0; i < x.length; i++) if (x[i] !== 0) loud[i >> 6] = 1;
  for (let o = 0; o < n; o++) {
    const c = from + o * factor;
    const b0 = Math.max(0, (c - taps) >> 6);
    const b1 = Math.min(loud.length - 1, (c + taps) >> 6);
    let any = 0;
    for (let b = b0; b <= b1; b++) any |= loud[b]!;
    if (!any) continue;
    let acc = 0;
    for (let i = -taps; i <= taps; i++) {
      const t = c + i;
      if (t >= 0 && t < x.length) acc += x[t]! * h[i + taps]!;
    }
    y[o] = acc;
  }
  return y;
}

export interface SeparateFileRequest {
  input: string;
  regions: SpeechRegion[];
  background: string;
  voice?: string;
  /** Sample rate of the voice file: the input's, or an integer fraction of it (16000 from 48000). */
  voiceSampleRate?: number;
  options?: SpeechSeparationOptions;
  /** Signals (WAV paths, same length and rate) to which the same gains are applied: the voice part of each is written to `alsoOut`. */
  also?: string[];
  alsoOut?: string[];
  /**
   * Only the blocks of [from, to) (samples, on the block grid: see separationParts) are written, into outputs that
   * already exist at their full length (prepareSeparationOutputs); the blocks from `warmup` up to `from` run first
   * for the music's centre/side ratio only.
   */
  part?: SeparationPart;
}

export interface SeparationPart {
  warmup: number;
  from: number;
  to: number;
}

/** Seconds of output per block. */
const BLOCK_SEC = 20;
/** Inputs at least this long are separated in parts, one thread each. */
export const PARTS_FROM_SEC = 150;

/** The block length (samples) of a separation of `info` with these options. */
function blockLength(info: WavInfo, req: Pick<SeparateFileRequest, 'voice' | 'voiceSampleRate' | 'options'>): { block: number; vFactor: number } {
  const sr = info.sampleRate;
  const plan = separationPlan(sr, req.options);
  const vFactor = req.voice && req.voiceSampleRate && req.voiceSampleRate < sr && sr % req.voiceSampleRate === 0 ? sr / req.voiceSampleRate : 1;
  return { vFactor, block: Math.max(plan.hop * vFactor, Math.round((BLOCK_SEC * sr) / (plan.hop * vFactor)) * plan.hop * vFactor) };
}

/**
 * The parts a long input is separated in (each in its own thread): `count` runs of whole blocks, each after the first
 * preceded by the RATIO_PAST_BLOCKS blocks its first block learns the music's centre/side ratio from, run for that
 * only: the parts' output is the whole file's, sample for sample. One part, the whole file, below PARTS_FROM_SEC.
 */
export function separationParts(req: Pick<SeparateFileRequest, 'input' | 'voice' | 'voiceSampleRate' | 'options'>, count = 2): SeparationPart[] {
  const info = readWavInfo(req.input);
  const frames = info.frames;
  if (count < 2 || frames < PARTS_FROM_SEC * info.sampleRate) return [{ warmup: 0, from: 0, to: frames }];
  const { block } = blockLength(info, req);
  const blocks = Math.ceil(frames / block);
  const warm = RATIO_PAST_BLOCKS;
  // the later parts carry the warm-up: they get fewer blocks of their own
  const own = Math.ceil((blocks + warm * (count - 1)) / count);
  const parts: SeparationPart[] = [];
  for (let at = blocks, i = count - 1; i >= 0 && at > 0; i--) {
    const first = i === 0 ? 0 : Math.max(0, at - (own - warm));
    parts.unshift({ warmup: Math.max(0, first - warm) * block, from: first * block, to: Math.min(frames, at * block) });
    at = first;
  }
  return parts.filter((p) => p.to > p.from);
}

/** Writes the outputs' headers and sizes them (silence) for parts to fill in. */
export function prepareSeparationOutputs(req: SeparateFileRequest): void {
  const info = readWavInfo(req.input);
  const { vFactor } = blockLength(info, req);
  const make = (path: string, frames: number, rate: number, channels: number) => {
    const fd = openSync(path, 'w');
    try {
      const header = wavHeader(frames, rate, channels);
      writeSync(fd, header);
      ftruncateSync(fd, header.length + frames * channels * 2);
    } finally {
      closeSync(fd);
    }
  };
  make(req.background, info.frames, info.sampleRate, 2);
  if (req.voice) make(req.voice, Math.floor(info.frames / vFactor), info.sampleRate / vFactor, 1);
  for (const p of req.alsoOut ?? []) make(p, info.frames, info.sampleRate, 2);
}

/**
 * Separates a WAV file block by block (see the top of this file). CPU-bound: run it in a worker thread; it yields
 * between blocks, so a cancel reaches it within a block.
 */
export async function separateFile(req: SeparateFileRequest, o: { onProgress?: (f: number) => void; signal?: AbortSignal } = {}): Promise<void> {
  const info = readWavInfo(req.input);
  const sr = info.sampleRate;
  const plan = separationPlan(sr, req.options);
  const frames = info.frames;
  const regions = req.regions.filter((r) => Number.isFinite(r.start) && Number.isFinite(r.end) && r.end > r.start).sort((a, b) => a.start - b.start);
  const { block, vFactor } = blockLength(info, req);
  const vRate = sr / vFactor;
  const vFrames = Math.floor(frames / vFactor);
  const pad = plan.n + (plan.minFrames + 1) * plan.hop + 64 * vFactor;
  const ramp = req.options?.rampSec ?? DEFAULTS.rampSec;
  const part = req.part ?? { warmup: 0, from: 0, to: frames };
  if (part.from % block !== 0 || part.warmup % block !== 0 || part.warmup > part.from) throw new Error('a separation part must start on the block grid');
  // a part writes into outputs made at their full length; the whole file writes them from the start
  const mode = req.part ? 'r+' : 'w';
  const bgHeader = wavHeader(frames, sr, 2);
  const vHeader = wavHeader(vFrames, vRate, 1);
  const inFd = openSync(req.input, 'r');
  const bgFd = openSync(req.background, mode);
  const vFd = req.voice ? openSync(req.voice, mode) : null;
  const alsoIn = (req.also ?? []).map((p) => ({ fd: openSync(p, 'r'), info: readWavInfo(p) }));
  const alsoOut = (req.alsoOut ?? []).map((p) => openSync(p, mode));
  // the past blocks' share of the music's centre/side ratio, oldest first (summed in that order for each block)
  const recent: SideRatio[] = [];
  const pcmOut = new Int16Array(block * 2);
  try {
    if (!req.part) {
      writeSync(bgFd, bgHeader);
      if (vFd !== null) writeSync(vFd, vHeader);
      for (const fd of alsoOut) writeSync(fd, bgHeader);
    }
    for (let b0 = part.warmup; b0 < part.to; b0 += block) {
      await new Promise((r) => setImmediate(r));
      if (o.signal?.aborted) throw new DOMException('The separation was cancelled', 'AbortError');
      const b1 = Math.min(frames, b0 + block);
      const s = b0 - pad;
      const count = b1 - b0 + 2 * pad;
      const [L, R] = readBlock(inFd, info, s, count) as [Float32Array, Float32Array];
      const gate = gateBlock(regions, sr, s, count, ramp);
      const others = alsoIn.map((a, q) => readBlock(a.fd, a.info, s, count, `also${q}-`));
      const past: SideRatio = { mid: new Float64Array(plan.bins), side: new Float64Array(plan.bins) };
      for (const r of recent) {
        for (let k = 0; k < plan.bins; k++) {
          past.mid[k]! += r.mid[k]!;
          past.side[k]! += r.side[k]!;
        }
      }
      const res = separateBlock(plan, L, R, gate, s, b0, b1, past, others);
      recent.push(res.own);
      if (recent.length > RATIO_PAST_BLOCKS) recent.shift();
      // a warm-up block: its frames taught the ratio, its samples are another part's
      if (b0 < part.from) continue;
      const own = b1 - b0;
      const pcm = pcmOut.subarray(0, own * 2);
      const write = (fd: number, l: Float32Array, r: Float32Array, v: Float32Array) => {
        for (let i = 0; i < own; i++) {
          pcm[2 * i] = toPcm16(l[pad + i]! - v[pad + i]!);
          pcm[2 * i + 1] = toPcm16(r[pad + i]! - v[pad + i]!);
        }
        writeSync(fd, new Uint8Array(pcm.buffer), 0, own * 4, bgHeader.length + b0 * 4);
      };
      write(bgFd, L, R, res.voice);
      for (const [q, fd] of alsoOut.entries()) {
        const [l, r] = [others[q]![0]!, others[q]![1] ?? others[q]![0]!];
        // the part of this signal left in the background: the signal minus its voice part
        write(fd, l, r, res.alsoVoice[q]!);
      }
      if (vFd !== null) {
        const from = pad;
        const to = Math.min(pad + own, count);
        const v = decimate(res.voice, vFactor, from, to);
        const at = b0 / vFactor;
        const keep = Math.max(0, Math.min(v.length, vFrames - at));
        const vb = new Int16Array(keep);
        for (let i = 0; i < keep; i++) vb[i] = toPcm16(v[i]!);
        writeSync(vFd, new Uint8Array(vb.buffer), 0, keep * 2, vHeader.length + at * 2);
      }
      o.onProgress?.((b1 - part.from) / (part.to - part.from));
    }
    // the whole file: the voice estimate's tail the blocks did not reach is silence
    if (!req.part && vFd !== null) {
      const written = Math.min(vFrames, Math.ceil(frames / block) * (block / vFactor));
      if (written < vFrames) writeSync(vFd, Buffer.alloc((vFrames - written) * 2), 0, (vFrames - written) * 2, vHeader.length + written * 2);
    }
  } finally {
    // the work arrays go with the file (an idle thread, or its next task, does not keep them)
    releaseWork();
    closeSync(inFd);
    closeSync(bgFd);
    if (vFd !== null) closeSync(vFd);
    for (const a of alsoIn) closeSync(a.fd);
    for (const fd of alsoOut) closeSync(fd);
  }
}
