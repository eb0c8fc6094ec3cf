// How well a segment's dub fits its slot (issue 29), from the last voiceover's speed factor and overflow: green
// within 0.9-1.1x, amber to 1.25x (or down to 0.75x), red beyond or when the voice was cut. Words, not only colour.
import type { Segment } from '../../../../contract/schemas/project';

export type FitLevel = 'good' | 'tight' | 'bad' | 'kept' | 'unknown';

export interface SegmentFit {
  level: FitLevel;
  /** Short visible word(s). */
  label: string;
  /** The whole description (the accessible name and tooltip). */
  description: string;
  /** Where the fill of the bar ends, 0..1 (speed 0.75x..1.5x). */
  fill: number;
  /** The segment may be helped by shorten / borrow / keep original. */
  fixable: boolean;
}

/** Seconds cut off below this are rounding, not a cut. */
const CUT_SEC = 0.02;

const fmt = (x: number, d = 2) => x.toFixed(d);

export function segmentFit(s: Pick<Segment, 'speed_factor' | 'overflow' | 'keep_original'>, driftSec?: number | null): SegmentFit {
  const drift = driftSec !== undefined && driftSec !== null ? `, starts ${fmt(Math.abs(driftSec))} s ${driftSec >= 0 ? 'late' : 'early'}` : '';
  if (s.keep_original) {
    return { level: 'kept', label: 'Original audio', description: 'Original audio kept here: this segment is not dubbed', fill: 0, fixable: false };
  }
  const sf = s.speed_factor;
  if (sf === null || sf === undefined || !Number.isFinite(sf)) {
    return { level: 'unknown', label: 'Not dubbed yet', description: 'Timing: not dubbed yet', fill: 0, fixable: false };
  }
  const cut = (s.overflow ?? 0) > CUT_SEC ? s.overflow! : 0;
  const dev = Math.abs(sf - 1);
  const level: FitLevel = cut > 0 || dev > 0.25 + 1e-9 ? 'bad' : dev > 0.1 + 1e-9 ? 'tight' : 'good';
  const label = cut > 0 ? 'Cut' : level === 'good' ? 'Fits' : sf > 1 ? (level === 'bad' ? 'Too fast' : 'Fast') : level === 'bad' ? 'Too slow' : 'Slow';
  const what = cut > 0 ? `voice cut by ${fmt(cut)} s` : level === 'good' ? 'fits its slot' : sf > 1 ? 'spoken faster than natural' : 'spoken slower than natural';
  return {
    level,
    label: `${label} ${fmt(sf)}×`,
    description: `Timing: ${what}, speed ${fmt(sf)} times natural${drift}`,
    fill: Math.min(1, Math.max(0, (sf - 0.75) / 0.75)),
    fixable: level === 'bad' || level === 'tight',
  };
}

/** Counts of each level, for the summary above the list. */
export function fitCounts(segments: ReadonlyArray<Pick<Segment, 'speed_factor' | 'overflow' | 'keep_original'>>): Record<FitLevel, number> {
  const out: Record<FitLevel, number> = { good: 0, tight: 0, bad: 0, kept: 0, unknown: 0 };
  for (const s of segments) out[segmentFit(s).level]++;
  return out;
}
