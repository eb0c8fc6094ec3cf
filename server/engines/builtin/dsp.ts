// Signal processing for the built-in engines: FFT, YIN pitch, mel filterbank / MFCC, spectral shape.
// Pure functions on Float32Array samples. The transforms are fft.js's (tables made once per length).
import FFT from 'fft.js';

/** The transform of each length, made once (fft.js: radix-4, its tables precomputed). */
const plans = new Map<number, FFT>();
function planOf(n: number): FFT {
  let p = plans.get(n);
  if (!p) {
    p = new FFT(n);
    plans.set(n, p);
  }
  return p;
}

/** Scratch arrays of each length (the engines run one frame at a time per thread). */
const scratch = new Map<string, number[]>();
function scratchOf(name: string, n: number): number[] {
  const k = `${name}:${n}`;
  let a = scratch.get(k);
  if (!a) {
    a = new Array<number>(n).fill(0);
    scratch.set(k, a);
  }
  return a;
}

/** In-place complex FFT (forward, e^-i). Lengths must be powers of two. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  const p = planOf(n);
  const input = scratchOf('in', 2 * n);
  const out = scratchOf('out', 2 * n);
  for (let i = 0; i < n; i++) {
    input[2 * i] = re[i]!;
    input[2 * i + 1] = im[i]!;
  }
  p.transform(out, input);
  for (let i = 0; i < n; i++) {
    re[i] = out[2 * i]!;
    im[i] = out[2 * i + 1]!;
  }
}

const hannCache = new Map<number, Float64Array>();
export function hann(n: number): Float64Array {
  let w = hannCache.get(n);
  if (!w) {
    w = new Float64Array(n);
    for (let i = 0; i < n; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
    hannCache.set(n, w);
  }
  return w;
}

/** Power spectrum (n/2+1 bins) of a Hann-windowed frame. */
export function powerSpectrum(frame: Float32Array, nfft: number): Float64Array {
  const p = planOf(nfft);
  const input = scratchOf('real', nfft);
  const out = scratchOf('out', 2 * nfft);
  const w = hann(frame.length);
  const m = Math.min(frame.length, nfft);
  for (let i = 0; i < m; i++) input[i] = frame[i]! * w[i]!;
  for (let i = m; i < nfft; i++) input[i] = 0;
  // the real transform fills bins 0..n/2, the half this needs
  p.realTransform(out, input);
  const spec = new Float64Array(nfft / 2 + 1);
  for (let k = 0; k <= nfft / 2; k++) spec[k] = out[2 * k]! * out[2 * k]! + out[2 * k + 1]! * out[2 * k + 1]!;
  return spec;
}

export function rms(x: Float32Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s / Math.max(1, x.length));
}

/**
 * YIN's difference function d(tau) = sum over j < W of (x[j] - x[j + tau])^2 for tau in 1..tauMax, as
 * e(0) + e(tau) - 2 r(tau): the energies e of the windows from running sums, the correlation r of the first window
 * with the frame by one FFT product (no wrap-around: W + tauMax is the frame's length, within the transform's).
 */
function yinDifference(frame: Float32Array, W: number, tauMax: number): Float64Array {
  const L = frame.length;
  let n = 1;
  while (n < L) n <<= 1;
  const p = planOf(n);
  const a = scratchOf('yin-a', n);
  const b = scratchOf('yin-b', n);
  const A = scratchOf('yin-A', 2 * n);
  const B = scratchOf('yin-B', 2 * n);
  const C = scratchOf('yin-C', 2 * n);
  const r = scratchOf('yin-r', 2 * n);
  for (let i = 0; i < n; i++) {
    b[i] = i < L ? frame[i]! : 0;
    a[i] = i < W ? frame[i]! : 0;
  }
  p.realTransform(A, a);
  p.completeSpectrum(A);
  p.realTransform(B, b);
  p.completeSpectrum(B);
  // conj(A) * B: the correlation sum over j of a[j] b[j + tau]
  for (let k = 0; k < n; k++) {
    const ar = A[2 * k]!;
    const ai = A[2 * k + 1]!;
    const br = B[2 * k]!;
    const bi = B[2 * k + 1]!;
    C[2 * k] = ar * br + ai * bi;
    C[2 * k + 1] = ar * bi - ai * br;
  }
  p.inverseTransform(r, C);
  // running sums of squares: e(tau) = sq[tau + W] - sq[tau]
  const sq = new Float64Array(L + 1);
  for (let i = 0; i < L; i++) sq[i + 1] = sq[i]! + frame[i]! * frame[i]!;
  const e0 = sq[W]!;
  const d = new Float64Array(tauMax + 1);
  for (let tau = 1; tau <= tauMax; tau++) d[tau] = Math.max(0, e0 + (sq[tau + W]! - sq[tau]!) - 2 * r[2 * tau]!);
  return d;
}

/**
 * YIN fundamental frequency estimate (de Cheveigné & Kawahara 2002) of one frame. Returns the pitch in
 * Hz and the aperiodicity (cumulative-mean-normalised difference at the chosen lag, lower = more
 * periodic), or null when no lag passes `threshold`.
 */
export function yin(
  frame: Float32Array,
  sampleRate: number,
  o: { fmin?: number; fmax?: number; threshold?: number } = {},
): { f0: number; aperiodicity: number } | null {
  const fmin = o.fmin ?? 60;
  const fmax = o.fmax ?? 450;
  const thr = o.threshold ?? 0.15;
  const tauMin = Math.max(2, Math.floor(sampleRate / fmax));
  const tauMax = Math.min(Math.floor(sampleRate / fmin), Math.floor(frame.length / 2));
  if (tauMax <= tauMin + 1) return null;
  const W = frame.length - tauMax;
  const d = yinDifference(frame, W, tauMax);
  // cumulative mean normalised difference
  const cmnd = new Float64Array(tauMax + 1);
  cmnd[0] = 1;
  let run = 0;
  for (let tau = 1; tau <= tauMax; tau++) {
    run += d[tau]!;
    cmnd[tau] = run > 0 ? (d[tau]! * tau) / run : 1;
  }
  let tau = -1;
  for (let t = tauMin; t <= tauMax; t++) {
    if (cmnd[t]! < thr) {
      while (t + 1 <= tauMax && cmnd[t + 1]! < cmnd[t]!) t++;
      tau = t;
      break;
    }
  }
  if (tau < 0) return null;
  // parabolic interpolation
  let better = tau;
  if (tau > 1 && tau < tauMax) {
    const a = cmnd[tau - 1]!;
    const b = cmnd[tau]!;
    const c = cmnd[tau + 1]!;
    const den = a - 2 * b + c;
    if (den !== 0) better = tau + (a - c) / (2 * den);
  }
  return { f0: sampleRate / better, aperiodicity: cmnd[tau]! };
}

const hz2mel = (f: number) => 2595 * Math.log10(1 + f / 700);
const mel2hz = (m: number) => 700 * (10 ** (m / 2595) - 1);

/** Triangular mel filterbank: `nFilters` rows of (nfft/2+1) weights. */
export function melFilterbank(nFilters: number, nfft: number, sampleRate: number, fLow = 80, fHigh = sampleRate / 2): Float64Array[] {
  const nBins = nfft / 2 + 1;
  const mLow = hz2mel(fLow);
  const mHigh = hz2mel(fHigh);
  const pts = Array.from({ length: nFilters + 2 }, (_, i) => mel2hz(mLow + ((mHigh - mLow) * i) / (nFilters + 1)));
  const bins = pts.map((f) => (f * nfft) / sampleRate);
  return Array.from({ length: nFilters }, (_, m) => {
    const row = new Float64Array(nBins);
    const [l, c, r] = [bins[m]!, bins[m + 1]!, bins[m + 2]!];
    for (let k = 0; k < nBins; k++) {
      if (k > l && k < c) row[k] = (k - l) / (c - l);
      else if (k >= c && k < r) row[k] = (r - k) / (r - c);
    }
    return row;
  });
}

const dctTables = new Map<string, Float64Array>();
/** DCT-II of log mel energies -> cepstral coefficients 0..n-1 (the cosines of each size tabled once). */
export function dct(x: Float64Array, n: number): Float64Array {
  const N = x.length;
  const key = `${N}:${n}`;
  let table = dctTables.get(key);
  if (!table) {
    table = new Float64Array(n * N);
    for (let k = 0; k < n; k++) for (let i = 0; i < N; i++) table[k * N + i] = Math.cos((Math.PI * k * (i + 0.5)) / N) * Math.sqrt(2 / N);
    dctTables.set(key, table);
  }
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    let s = 0;
    for (let i = 0; i < N; i++) s += x[i]! * table[k * N + i]!;
    out[k] = s;
  }
  return out;
}

/** Spectral centroid (Hz) and roll-off frequency holding `rollPct` of the energy. */
export function spectralShape(power: Float64Array, sampleRate: number, rollPct = 0.85): { centroid: number; rolloff: number } {
  const nfft = (power.length - 1) * 2;
  let total = 0;
  let weighted = 0;
  for (let k = 0; k < power.length; k++) {
    total += power[k]!;
    weighted += power[k]! * ((k * sampleRate) / nfft);
  }
  if (total <= 0) return { centroid: 0, rolloff: 0 };
  let acc = 0;
  let roll = 0;
  for (let k = 0; k < power.length; k++) {
    acc += power[k]!;
    if (acc >= rollPct * total) {
      roll = (k * sampleRate) / nfft;
      break;
    }
  }
  return { centroid: weighted / total, rolloff: roll };
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.round((p / 100) * (s.length - 1))))]!;
}
