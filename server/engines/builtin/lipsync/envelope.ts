// How open the mouth should be at each video frame, from the dub's voice track: the speech level in dB
// mapped onto 0..1 over the top `rangeDb` of the track's speech (so syllables open the mouth and the dips
// between them close it), averaged over each frame's duration.
import { wavRmsEnvelope } from '../../../media/wav';

export interface OpeningOptions {
  /** Level range mapped to 0..1, below the track's loud speech (default 26 dB). */
  rangeDb?: number;
  /** The mouth moves this much before the sound (default 0.02 s). */
  leadSec?: number;
}

/** 0..1 per frame from RMS levels measured every `hopSec`. */
export function openingsFromRms(rms: Float32Array, hopSec: number, fps: number, frames: number, o: OpeningOptions = {}): Float32Array {
  const range = o.rangeDb ?? 26;
  const lead = o.leadSec ?? 0.02;
  const db = new Float32Array(rms.length);
  let max = -Infinity;
  for (let i = 0; i < rms.length; i++) {
    db[i] = 20 * Math.log10(Math.max(rms[i]!, 1e-6));
    if (db[i]! > max) max = db[i]!;
  }
  const out = new Float32Array(frames);
  if (!Number.isFinite(max) || max < -70) return out; // silence
  // Reference: the 95th percentile of the hops within 45 dB of the loudest (the speech, not the pauses).
  const active = Array.from(db).filter((d) => d > max - 45).sort((a, b) => a - b);
  const ref = active[Math.min(active.length - 1, Math.floor(active.length * 0.95))] ?? max;
  const lo = ref - range;
  for (let f = 0; f < frames; f++) {
    const t0 = (f - 0.5) / fps + lead;
    const t1 = (f + 0.5) / fps + lead;
    const h0 = Math.max(0, Math.floor(t0 / hopSec));
    const h1 = Math.min(rms.length - 1, Math.max(h0, Math.ceil(t1 / hopSec) - 1));
    let s = 0;
    let n = 0;
    for (let h = h0; h <= h1; h++) {
      s += Math.min(1, Math.max(0, (db[h]! - lo) / range));
      n++;
    }
    out[f] = n ? s / n : 0;
  }
  return out;
}

/** Mouth openings (0..1) for `frames` frames at `fps` from a voice WAV. */
export function mouthOpeningsFromVoice(voiceWav: string, fps: number, frames: number, o: OpeningOptions = {}): Float32Array {
  const { hopSec, rms } = wavRmsEnvelope(voiceWav, 0.01);
  return openingsFromRms(rms, hopSec, fps, frames, o);
}

/** Pearson correlation of two series (0 when either is constant). @internal */
export function correlation(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  if (n < 3) return 0;
  let ma = 0;
  let mb = 0;
  for (let i = 0; i < n; i++) {
    ma += a[i]!;
    mb += b[i]!;
  }
  ma /= n;
  mb /= n;
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i]! - ma;
    const y = b[i]! - mb;
    sab += x * y;
    saa += x * x;
    sbb += y * y;
  }
  if (saa < 1e-12 || sbb < 1e-12) return 0;
  return sab / Math.sqrt(saa * sbb);
}
