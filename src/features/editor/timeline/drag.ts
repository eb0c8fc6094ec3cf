// Dragging a segment block on the timeline, pure: moving it or one of its edges, kept inside the video and out of
// the other segments of the same speaker (the list's overlap rule, contract/segments.ts), snapped to speech edges
// and segment edges nearby, rounded to the millisecond (the hh:mm:ss,mmm text form). Tested in
// tests/web/timeline-logic.test.ts.
import { SEGMENT_TIME_EPS, sameSpeakerOverlap, type TimedSegment } from '../../../../contract/segments';
import type { Lane } from './view';

export type DragMode = 'move' | 'start' | 'end';

/** Shortest a segment may become by dragging (seconds). */
export const MIN_SEGMENT_SEC = 0.1;
/** Snap distance (pixels). */
export const SNAP_PX = 8;
/** Pixels of a block's edge that grab the edge rather than the block. */
export const EDGE_GRAB_PX = 6;

const ms = (t: number) => Math.round(t * 1000) / 1000;

/** What a press at `x` pixels into a block `widthPx` wide grabs: an edge near it, else the whole block. */
export function grabMode(x: number, widthPx: number): DragMode {
  const grab = Math.min(EDGE_GRAB_PX, widthPx / 3);
  if (x <= grab) return 'start';
  if (x >= widthPx - grab) return 'end';
  return 'move';
}

/**
 * Where the segment may go: between the end of the previous and the start of the next segment of its speaker
 * (segments it already overlaps are left to the overlap marks), and within the video.
 */
export function dragBounds<T extends TimedSegment>(lane: Lane<T>, seg: TimedSegment, durationSec: number | null): { lo: number; hi: number } {
  let lo = 0;
  let hi = durationSec != null && durationSec > 0 ? durationSec : Infinity;
  for (const o of lane.items) {
    if (o.id === seg.id || o.speaker !== seg.speaker || sameSpeakerOverlap(o, seg)) continue;
    if (o.end <= seg.start + SEGMENT_TIME_EPS && o.end > lo) lo = o.end;
    if (o.start >= seg.end - SEGMENT_TIME_EPS && o.start < hi) hi = o.start;
  }
  return { lo, hi };
}

/** The target of `targets` (sorted) nearest to t within `within`, or null. */
export function nearest(targets: readonly number[], t: number, within: number): number | null {
  let lo = 0;
  let hi = targets.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (targets[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  let best: number | null = null;
  for (const i of [lo - 1, lo]) {
    const c = targets[i];
    if (c === undefined) continue;
    const d = Math.abs(c - t);
    if (d <= within && (best === null || d < Math.abs(best - t))) best = c;
  }
  return best;
}

export interface DragInput {
  segment: TimedSegment;
  mode: DragMode;
  /** Pointer movement since the press (seconds). */
  deltaSec: number;
  bounds: { lo: number; hi: number };
  /** Speech and segment edges to snap to, sorted (seconds); empty to not snap. */
  snapTargets: readonly number[];
  /** Snap distance (seconds). */
  snapSec: number;
}

export interface DragResult {
  start: number;
  end: number;
  /** The edge time it snapped to, if any. */
  snapped: number | null;
}

/** The segment's times while dragging. */
export function dragTimes(d: DragInput): DragResult {
  const { segment: s, bounds } = d;
  const len = s.end - s.start;
  let snapped: number | null = null;
  if (d.mode === 'move') {
    const room = bounds.hi - bounds.lo;
    if (room < len) return { start: s.start, end: s.end, snapped: null };
    let start = s.start + d.deltaSec;
    // Snap the edge that is closer to a target.
    const a = nearest(d.snapTargets, start, d.snapSec);
    const b = nearest(d.snapTargets, start + len, d.snapSec);
    if (a !== null && (b === null || Math.abs(a - start) <= Math.abs(b - start - len))) {
      start = a;
      snapped = a;
    } else if (b !== null) {
      start = b - len;
      snapped = b;
    }
    start = Math.min(bounds.hi - len, Math.max(bounds.lo, start));
    if (snapped !== null && Math.abs(snapped - start) > 1e-9 && Math.abs(snapped - start - len) > 1e-9) snapped = null;
    const st = ms(start);
    return { start: st, end: ms(st + len), snapped };
  }
  if (d.mode === 'start') {
    let start = s.start + d.deltaSec;
    const t = nearest(d.snapTargets, start, d.snapSec);
    if (t !== null) {
      start = t;
      snapped = t;
    }
    const clamped = Math.min(s.end - MIN_SEGMENT_SEC, Math.max(bounds.lo, start));
    if (clamped !== start) snapped = null;
    return { start: ms(clamped), end: s.end, snapped };
  }
  let end = s.end + d.deltaSec;
  const t = nearest(d.snapTargets, end, d.snapSec);
  if (t !== null) {
    end = t;
    snapped = t;
  }
  const clamped = Math.max(s.start + MIN_SEGMENT_SEC, Math.min(bounds.hi, end));
  if (clamped !== end) snapped = null;
  return { start: s.start, end: ms(clamped), snapped };
}

/**
 * Speech edges in a run of peaks (min,max pairs starting at bucket `firstBucket` of `resolution` per second):
 * where the level rises above `threshold` after at least `minQuietSec` of quiet, and where it falls back for as
 * long. Times in seconds, sorted.
 */
export function speechEdges(pairs: Int8Array, firstBucket: number, resolution: number, threshold: number, minQuietSec = 0.15): number[] {
  const n = pairs.length >> 1;
  const minQuiet = Math.max(1, Math.round(minQuietSec * resolution));
  const out: number[] = [];
  let inSpeech = false;
  let quiet = minQuiet; // the run starts as if after quiet
  let lastLoud = -1;
  for (let i = 0; i < n; i++) {
    const level = Math.max(-pairs[i * 2]!, pairs[i * 2 + 1]!);
    if (level >= threshold) {
      if (!inSpeech && quiet >= minQuiet) out.push(ms((firstBucket + i) / resolution));
      inSpeech = true;
      quiet = 0;
      lastLoud = i;
    } else {
      quiet++;
      if (inSpeech && quiet >= minQuiet) {
        out.push(ms((firstBucket + lastLoud + 1) / resolution));
        inSpeech = false;
      }
    }
  }
  return out;
}

/** Edges of the other segments (any speaker) in [t0, t1], for snapping. */
export function segmentEdges(segments: Iterable<TimedSegment>, exceptId: string, t0: number, t1: number): number[] {
  const out: number[] = [];
  for (const s of segments) {
    if (s.id === exceptId) continue;
    if (s.start >= t0 && s.start <= t1) out.push(s.start);
    if (s.end >= t0 && s.end <= t1) out.push(s.end);
  }
  return out;
}
