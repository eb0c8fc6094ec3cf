// The built-in engines' signal processing (server/engines/builtin/dsp.ts) by transforms (issue 30: diarization's
// features 3-6x faster): each function gives what its textbook definition gives, computed here the slow way, on real
// speech (LibriVox) and on planted signals.
import { describe, expect, it } from 'vitest';
import { dct, fft, powerSpectrum, yin } from '../../../server/engines/builtin/dsp';
import { readWav } from '../../../server/media/wav';
import { librivoxWav, tempDir } from '../../fixtures/media';
import { runToolOutput } from '../../../server/media/ffmpeg';
import { join } from 'node:path';

/** The DFT by its definition (e^-i). */
function dft(re: Float64Array, im: Float64Array): [Float64Array, Float64Array] {
  const n = re.length;
  const R = new Float64Array(n);
  const I = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    for (let t = 0; t < n; t++) {
      const a = (-2 * Math.PI * k * t) / n;
      R[k] += re[t]! * Math.cos(a) - im[t]! * Math.sin(a);
      I[k] += re[t]! * Math.sin(a) + im[t]! * Math.cos(a);
    }
  }
  return [R, I];
}

/** YIN's pitch from its difference function computed by the direct double loop (de Cheveigné & Kawahara 2002). */
function yinDirect(frame: Float32Array, sr: number, fmin: number, fmax: number, thr: number): number | null {
  const tauMin = Math.max(2, Math.floor(sr / fmax));
  const tauMax = Math.min(Math.floor(sr / fmin), Math.floor(frame.length / 2));
  const W = frame.length - tauMax;
  const d = new Float64Array(tauMax + 1);
  for (let tau = 1; tau <= tauMax; tau++) for (let j = 0; j < W; j++) d[tau] += (frame[j]! - frame[j + tau]!) ** 2;
  const cmnd = new Float64Array(tauMax + 1);
  let run = 0;
  for (let tau = 1; tau <= tauMax; tau++) {
    run += d[tau]!;
    cmnd[tau] = run > 0 ? (d[tau]! * tau) / run : 1;
  }
  for (let t = tauMin; t <= tauMax; t++) {
    if (cmnd[t]! < thr) {
      while (t + 1 <= tauMax && cmnd[t + 1]! < cmnd[t]!) t++;
      const [a, b, c] = [cmnd[t - 1]!, cmnd[t]!, cmnd[t + 1] ?? cmnd[t]!];
      const den = a - 2 * b + c;
      return sr / (t > 1 && t < tauMax && den !== 0 ? t + (a - c) / (2 * den) : t);
    }
  }
  return null;
}

async function speech16k(): Promise<Float32Array> {
  const out = join(tempDir('dsp-'), 'speech.wav');
  await runToolOutput('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', librivoxWav('0870'), '-ar', '16000', '-ac', '1', '-c:a', 'pcm_s16le', out], {});
  return readWav(out).channelData[0]!;
}

describe('dsp by transforms', () => {
  it('fft is the DFT', () => {
    for (const n of [8, 64, 512]) {
      const re = Float64Array.from({ length: n }, (_, i) => Math.sin(i * 0.37) + (i % 5) * 0.1);
      const im = Float64Array.from({ length: n }, (_, i) => Math.cos(i * 0.11) * 0.5);
      const [R, I] = dft(re, im);
      fft(re, im);
      for (let k = 0; k < n; k++) {
        expect(re[k]).toBeCloseTo(R[k]!, 8);
        expect(im[k]).toBeCloseTo(I[k]!, 8);
      }
    }
  });

  it('powerSpectrum is |DFT|^2 of the Hann-windowed frame, zero-padded', () => {
    const frame = Float32Array.from({ length: 400 }, (_, i) => Math.sin(i * 0.2) * 0.5 + Math.sin(i * 1.3) * 0.2);
    const nfft = 512;
    const re = new Float64Array(nfft);
    for (let i = 0; i < frame.length; i++) re[i] = frame[i]! * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (frame.length - 1)));
    const [R, I] = dft(re, new Float64Array(nfft));
    const p = powerSpectrum(frame, nfft);
    expect(p).toHaveLength(nfft / 2 + 1);
    for (let k = 0; k <= nfft / 2; k++) expect(p[k]).toBeCloseTo(R[k]! ** 2 + I[k]! ** 2, 6);
  });

  it('dct is the orthonormal-scaled DCT-II', () => {
    const x = Float64Array.from({ length: 26 }, (_, i) => Math.log(1 + i) - 0.3 * i);
    const c = dct(x, 13);
    for (let k = 0; k < 13; k++) {
      let s = 0;
      for (let i = 0; i < 26; i++) s += x[i]! * Math.cos((Math.PI * k * (i + 0.5)) / 26);
      expect(c[k]).toBeCloseTo(s * Math.sqrt(2 / 26), 10);
    }
  });

  it('yin gives the direct difference function’s pitch on every frame of real speech, and a planted tone’s', async () => {
    const x = await speech16k();
    let voiced = 0;
    for (let f = 0; f + 800 <= x.length; f += 320) {
      const frame = x.subarray(f, f + 800);
      const want = yinDirect(frame, 16000, 60, 420, 0.2);
      const got = yin(frame, 16000, { fmin: 60, fmax: 420, threshold: 0.2 });
      if (want === null) {
        expect(got).toBeNull();
        continue;
      }
      voiced++;
      expect(got!.f0).toBeCloseTo(want, 6);
    }
    // the reading's voiced frames (one every 20 ms): the comparison covered over a hundred pitched frames
    expect(voiced).toBeGreaterThan(100);
    const tone = Float32Array.from({ length: 800 }, (_, i) => Math.sin((2 * Math.PI * 132 * i) / 16000));
    expect(yin(tone, 16000)!.f0).toBeCloseTo(132, 0);
  });
});
