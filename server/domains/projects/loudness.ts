// Loudness of the dub (issue 28): it respects the source. The dubbed voice follows the original speech's level
// segment by segment (a gain curve: a far speaker stays quieter than a near one, so the loudness range is kept), and
// the whole mix is brought to the Teamspace's target: by default the source's own integrated loudness; or web
// (-14/-16 LUFS) or broadcast (-23 LUFS). A limiter holds the true peak at or under -1 dBTP.
import type { LoudnessTargetKey } from '../../../contract/schemas/space';
import type { Envelope } from './quality';

/** Integrated loudness of each fixed target (LUFS). */
export const TARGET_LUFS: Record<Exclude<LoudnessTargetKey, 'source'>, number> = { 'web_-14': -14, 'web_-16': -16, 'broadcast_-23': -23 };
/** When the source's loudness is unknown or silent: the web's usual level. */
export const FALLBACK_LUFS = -16;

/** The integrated loudness the dub is brought to. */
export function targetLufs(target: LoudnessTargetKey, sourceLufs: number | null): number {
  if (target !== 'source') return TARGET_LUFS[target];
  if (sourceLufs === null || !Number.isFinite(sourceLufs) || sourceLufs < -50) return FALLBACK_LUFS;
  // a source louder than any sane delivery (clipped) is brought down to -9 LUFS at most
  return Math.min(-9, sourceLufs);
}

export interface PlacedSegment {
  /** The source segment's slot (seconds). */
  start: number;
  end: number;
  /** Where its dubbed clip sits on the voice track (seconds). */
  placedStart: number;
  placedEnd: number;
}

/** Spread of the per-segment gains kept around their median (dB): beyond, the estimate is not trusted. */
const MAX_SPREAD_DB = 20;
/** Seconds over which the gain moves between segments (inside the pauses). */
const RAMP_SEC = 0.05;

/** Active level (mean power of the frames within 30 dB of the loudest) of an envelope over [a, b) seconds. */
export function activePower(env: Envelope, a: number, b: number): number | null {
  const f0 = Math.max(0, Math.floor(a / env.hopSec));
  const f1 = Math.min(env.rms.length, Math.ceil(b / env.hopSec));
  let peak = 0;
  for (let f = f0; f < f1; f++) peak = Math.max(peak, env.rms[f]! ** 2);
  if (peak < 1e-9) return null;
  let sum = 0;
  let n = 0;
  for (let f = f0; f < f1; f++) {
    const p = env.rms[f]! ** 2;
    if (p >= peak * 1e-3) {
      sum += p;
      n++;
    }
  }
  return n ? sum / n : null;
}

/**
 * The voice's gain curve (linear amplitude at points in time): each segment's dub at the level of the original
 * speech in its slot (measured on the separation's speech estimate), gains kept within MAX_SPREAD_DB of their median;
 * a segment without a measurement gets the median. Null when nothing could be measured (the voice stays as it is).
 */
export function voiceGainPoints(segments: readonly PlacedSegment[], speech: Envelope, dub: Envelope): Array<{ t: number; gain: number }> | null {
  const placed = [...segments].filter((s) => s.placedEnd > s.placedStart).sort((a, b) => a.placedStart - b.placedStart);
  const db: Array<number | null> = placed.map((s) => {
    const src = activePower(speech, s.start, s.end);
    const out = activePower(dub, s.placedStart, s.placedEnd);
    return src === null || out === null ? null : 10 * Math.log10(src / out);
  });
  const known = db.filter((x): x is number => x !== null).sort((a, b) => a - b);
  if (known.length === 0) return null;
  const median = known[Math.floor(known.length / 2)]!;
  const points: Array<{ t: number; gain: number }> = [];
  for (const [i, s] of placed.entries()) {
    const d = Math.min(median + MAX_SPREAD_DB, Math.max(median - MAX_SPREAD_DB, db[i] ?? median));
    const gain = 10 ** (d / 20);
    const a = Math.max(0, s.placedStart - RAMP_SEC);
    const b = s.placedEnd + RAMP_SEC;
    // overlapping clips: the later one's gain starts where the earlier one ends
    const last = points.at(-1);
    points.push({ t: last ? Math.max(a, last.t) : a, gain }, { t: Math.max(b, last ? last.t : b), gain });
  }
  return points;
}
