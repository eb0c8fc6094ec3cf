// Signal processing for the built-in engines: FFT, YIN pitch, mel filterbank / MFCC, spectral shape.
// Pure functions on Float32Array samples.

/** In-place iterative radix-2 complex FFT. Lengths must be powers of two. */
export function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const ang = (-2 * Math.PI) / len;
    const wr = Math.cos(ang);
    const wi = Math.sin(ang);
    for (let i = 0; i < n; i += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = i + k;
        const b = a + len / 2;
        const tr = re[b]! * cr - im[b]! * ci;
        const ti = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
        const ncr = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = ncr;
      }
    }
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
  const re = new Float64Array(nfft);
  const im = new Float64Array(nfft);
  const w = hann(frame.length);
  for (let i = 0; i < frame.length && i < nfft; i++) re[i] = frame[i]! * w[i]!;
  fft(re, im);
  const out = new Float64Array(nfft / 2 + 1);
  for (let k = 0; k <= nfft / 2; k++) out[k] = re[k]! * re[k]! + im[k]! * im[k]!;
  return out;
}

export function rms(x: Float32Array): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s / Math.max(1, x.length));
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
  const d = new Float64Array(tauMax + 1);
  for (let tau = 1; tau <= tauMax; tau++) {
    let s = 0;
    for (let j = 0; j < W; j++) {
      const diff = frame[j]! - frame[j + tau]!;
      s += diff * diff;
    }
    d[tau] = s;
  }
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

/** DCT-II of log mel energies -> cepstral coefficients 0..n-1. */
export function dct(x: Float64Array, n: number): Float64Array {
  const N = x.length;
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    let s = 0;
    for (let i = 0; i < N; i++) s += x[i]! * Math.cos((Math.PI * k * (i + 0.5)) / N);
    out[k] = s * Math.sqrt(2 / N);
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
