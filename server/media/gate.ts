// Control curves the mix multiplies a track by (issue 28): the voice's gain curve, so the dub follows the original
// speech's level segment by segment. Written as a small float WAV that ffmpeg reads beside the audio (an expression
// per segment does not scale to thousands of segments).
import { open } from 'node:fs/promises';

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
