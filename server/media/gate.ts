// The region gate of the separation: a control signal that is 1 inside speech regions and 0 outside,
// with linear ramps at the edges. Rendered as a low-rate WAV that ffmpeg multiplies into the voice
// band (amultiply), so any number of regions works (an expression per region does not scale).

import { open } from 'node:fs/promises';
import { toPcm16, wavHeader } from './wav';

export const GATE_SAMPLE_RATE = 1000;

/** Gate samples at `sampleRate` covering `durationSec` (plus one sample). Pure. */
export function regionGate(
  regions: ReadonlyArray<{ start: number; end: number }>,
  o: { durationSec: number; sampleRate?: number; rampSec?: number },
): Float32Array {
  const sr = o.sampleRate ?? GATE_SAMPLE_RATE;
  const ramp = Math.max(o.rampSec ?? 0.04, 1 / sr);
  const n = Math.max(1, Math.ceil(o.durationSec * sr) + 1);
  const g = new Float32Array(n);
  for (const r of regions) {
    if (!(r.end > r.start)) continue;
    const i0 = Math.max(0, Math.floor((r.start - ramp) * sr));
    const i1 = Math.min(n - 1, Math.ceil((r.end + ramp) * sr));
    for (let i = i0; i <= i1; i++) {
      const t = i / sr;
      const v = Math.min(1, Math.max(0, Math.min(t - (r.start - ramp), r.end + ramp - t) / ramp));
      if (v > g[i]!) g[i] = v;
    }
  }
  return g;
}

/**
 * Writes the gate of `regions` as a 16-bit mono WAV, chunk by chunk: the same samples as
 * writeWav(path, [regionGate(...)]) with memory bounded by the chunk, whatever the duration.
 */
export async function writeRegionGateWav(
  path: string,
  regions: ReadonlyArray<{ start: number; end: number }>,
  o: { durationSec: number; sampleRate?: number; rampSec?: number; chunk?: number },
): Promise<void> {
  const sr = o.sampleRate ?? GATE_SAMPLE_RATE;
  const ramp = Math.max(o.rampSec ?? 0.04, 1 / sr);
  const n = Math.max(1, Math.ceil(o.durationSec * sr) + 1);
  const chunk = Math.max(1, o.chunk ?? 1 << 16);
  // sample ranges [i0, i1] of the regions, by start (i0 grows with the start: a moving window suffices)
  const spans = regions
    .filter((r) => r.end > r.start)
    .map((r) => ({ r, i0: Math.max(0, Math.floor((r.start - ramp) * sr)), i1: Math.min(n - 1, Math.ceil((r.end + ramp) * sr)) }))
    .sort((a, b) => a.i0 - b.i0);
  const fh = await open(path, 'w');
  try {
    await fh.write(wavHeader(n, sr, 1), 0, 44, 0);
    const g = new Float32Array(chunk);
    const pcm = Buffer.alloc(chunk * 2);
    let next = 0; // first span not yet active
    let active: typeof spans = [];
    for (let w0 = 0; w0 < n; w0 += chunk) {
      const w1 = Math.min(n, w0 + chunk);
      while (next < spans.length && spans[next]!.i0 < w1) active.push(spans[next++]!);
      active = active.filter((s) => s.i1 >= w0);
      g.fill(0);
      for (const { r, i0, i1 } of active) {
        for (let i = Math.max(i0, w0); i <= Math.min(i1, w1 - 1); i++) {
          const t = i / sr;
          const v = Math.min(1, Math.max(0, Math.min(t - (r.start - ramp), r.end + ramp - t) / ramp));
          if (v > g[i - w0]!) g[i - w0] = v;
        }
      }
      for (let i = 0; i < w1 - w0; i++) pcm.writeInt16LE(toPcm16(g[i]!), i * 2);
      await fh.write(pcm, 0, (w1 - w0) * 2, 44 + w0 * 2);
    }
  } finally {
    await fh.close();
  }
}

/** Rate of voice gain curves (samples per second). */
export const GAIN_CURVE_RATE = 100;

/**
 * A gain curve as a mono 32-bit float WAV at GAIN_CURVE_RATE: linear amplitude, piecewise linear through `points`
 * (seconds, sorted), held flat before the first and after the last. What the mix multiplies the voice track by.
 */
export async function writeGainCurveWav(path: string, points: ReadonlyArray<{ t: number; gain: number }>, durationSec: number): Promise<void> {
  const sr = GAIN_CURVE_RATE;
  const n = Math.max(1, Math.ceil(durationSec * sr) + 1);
  const pcm = Buffer.alloc(n * 4);
  let j = 0;
  for (let i = 0; i < n; i++) {
    const t = i / sr;
    while (j + 1 < points.length && points[j + 1]!.t <= t) j++;
    let g = 1;
    if (points.length > 0) {
      const a = points[j]!;
      const b = points[j + 1];
      if (t <= points[0]!.t) g = points[0]!.gain;
      else if (!b) g = a.gain;
      else g = a.gain + ((b.gain - a.gain) * (t - a.t)) / Math.max(1e-9, b.t - a.t);
    }
    pcm.writeFloatLE(g, 4 * i);
  }
  const head = Buffer.alloc(44);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(36 + pcm.length, 4);
  head.write('WAVE', 8, 'ascii');
  head.write('fmt ', 12, 'ascii');
  head.writeUInt32LE(16, 16);
  head.writeUInt16LE(3, 20);
  head.writeUInt16LE(1, 22);
  head.writeUInt32LE(sr, 24);
  head.writeUInt32LE(sr * 4, 28);
  head.writeUInt16LE(4, 32);
  head.writeUInt16LE(32, 34);
  head.write('data', 36, 'ascii');
  head.writeUInt32LE(pcm.length, 40);
  const fh = await open(path, 'w');
  try {
    await fh.write(head, 0, 44, 0);
    await fh.write(pcm, 0, pcm.length, 44);
  } finally {
    await fh.close();
  }
}
