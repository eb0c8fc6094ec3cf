// The timeline's view, pure: which seconds are on screen (zoom in px per second, the time at the left edge),
// zooming around a point, following the playhead, which peaks resolution and which chunks of it to draw, and
// which segments of a lane are in view (only those are mounted). Tested in tests/web/timeline-logic.test.ts.
import { PEAKS_RESOLUTIONS, type PeaksResolution } from '../../../../contract/peaks';

export interface TimelineView {
  /** Zoom: pixels per second. */
  pxPerSec: number;
  /** Time at the left edge (seconds). */
  startSec: number;
}

/** Most zoomed in: 400 px per second (2.5 ms a pixel). */
export const MAX_PX_PER_SEC = 400;
/** Zoom steps of the buttons and of one wheel notch. */
export const ZOOM_STEP = 1.5;

/** The zoom that shows the whole video in `widthPx` (never more zoomed in than MAX_PX_PER_SEC). */
export function fitZoom(durationSec: number, widthPx: number): number {
  if (!(durationSec > 0) || !(widthPx > 0)) return 100;
  return Math.min(MAX_PX_PER_SEC, widthPx / durationSec);
}

/** The view kept inside the video: zoom between fit and MAX_PX_PER_SEC, left edge between 0 and the end. */
export function clampView(v: TimelineView, durationSec: number, widthPx: number): TimelineView {
  const minZoom = Math.min(fitZoom(durationSec, widthPx), MAX_PX_PER_SEC);
  const pxPerSec = Math.min(MAX_PX_PER_SEC, Math.max(minZoom, v.pxPerSec));
  const visible = widthPx / pxPerSec;
  const maxStart = Math.max(0, durationSec - visible);
  const startSec = Math.min(maxStart, Math.max(0, Number.isFinite(v.startSec) ? v.startSec : 0));
  return { pxPerSec, startSec };
}

export const timeToX = (v: TimelineView, t: number) => (t - v.startSec) * v.pxPerSec;
export const xToTime = (v: TimelineView, x: number) => v.startSec + x / v.pxPerSec;

/** Zooms by `factor` keeping the time under pixel `anchorX` where it is. */
export function zoomAt(v: TimelineView, factor: number, anchorX: number, durationSec: number, widthPx: number): TimelineView {
  const t = xToTime(v, anchorX);
  const z = clampView({ pxPerSec: v.pxPerSec * factor, startSec: 0 }, durationSec, widthPx).pxPerSec;
  return clampView({ pxPerSec: z, startSec: t - anchorX / z }, durationSec, widthPx);
}

/** Pans by `dx` pixels. */
export function panBy(v: TimelineView, dx: number, durationSec: number, widthPx: number): TimelineView {
  return clampView({ ...v, startSec: v.startSec + dx / v.pxPerSec }, durationSec, widthPx);
}

/**
 * Following the playhead: when it leaves the view (or nears its right edge while playing), the view turns
 * the page so the playhead sits at `lead` of the width; otherwise the view is unchanged (same object).
 */
export function follow(v: TimelineView, t: number, durationSec: number, widthPx: number, lead = 0.1): TimelineView {
  const visible = widthPx / v.pxPerSec;
  if (t >= v.startSec && t <= v.startSec + visible * 0.95) return v;
  return clampView({ ...v, startSec: t - visible * lead }, durationSec, widthPx);
}

/** The coarsest resolution with at least one bucket per pixel (the finest when none has). */
export function pickResolution(pxPerSec: number): PeaksResolution {
  for (const r of PEAKS_RESOLUTIONS) if (r >= pxPerSec) return r;
  return PEAKS_RESOLUTIONS[PEAKS_RESOLUTIONS.length - 1]!;
}

/** Buckets per fetched chunk of peaks. */
export const PEAKS_CHUNK = 8192;

/** The chunks (indexes) of a resolution that cover [t0, t1). */
export function chunksFor(resolution: number, t0: number, t1: number, totalBuckets: number | null): number[] {
  const first = Math.max(0, Math.floor((Math.max(0, t0) * resolution) / PEAKS_CHUNK));
  let last = Math.floor((Math.max(t0, t1) * resolution) / PEAKS_CHUNK);
  if (totalBuckets !== null) last = Math.min(last, Math.max(0, Math.ceil(totalBuckets / PEAKS_CHUNK) - 1));
  const out: number[] = [];
  for (let c = first; c <= last; c++) out.push(c);
  return out;
}

export interface Lane<T> {
  speaker: string;
  /** Segments of the speaker sorted by start. */
  items: T[];
  /** The longest segment of the lane (seconds): bounds the search for segments in view. */
  maxLen: number;
}

/** One lane per speaker, in the order given, then any other speaker the segments name. */
export function lanesOf<T extends { speaker: string; start: number; end: number }>(segments: readonly T[], speakerOrder: readonly string[]): Lane<T>[] {
  const by = new Map<string, Lane<T>>();
  for (const id of speakerOrder) by.set(id, { speaker: id, items: [], maxLen: 0 });
  for (const s of segments) {
    let lane = by.get(s.speaker);
    if (!lane) {
      lane = { speaker: s.speaker, items: [], maxLen: 0 };
      by.set(s.speaker, lane);
    }
    lane.items.push(s);
    if (s.end - s.start > lane.maxLen) lane.maxLen = s.end - s.start;
  }
  for (const lane of by.values()) {
    // The editor's snapshot is already sorted by start; sort only when it is not.
    let sorted = true;
    for (let i = 1; i < lane.items.length && sorted; i++) if (lane.items[i - 1]!.start > lane.items[i]!.start) sorted = false;
    if (!sorted) lane.items.sort((a, b) => a.start - b.start);
  }
  return [...by.values()];
}

/** Index range [first, last) of a lane's segments that intersect [t0, t1). */
export function inView<T extends { start: number; end: number }>(lane: Lane<T>, t0: number, t1: number): [number, number] {
  const items = lane.items;
  // First segment that starts at or after t0 - maxLen (anything earlier ends before t0).
  let lo = 0;
  let hi = items.length;
  const from = t0 - lane.maxLen;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid]!.start < from) lo = mid + 1;
    else hi = mid;
  }
  let first = lo;
  while (first < items.length && items[first]!.end <= t0) first++;
  let last = first;
  lo = first;
  hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid]!.start < t1) lo = mid + 1;
    else hi = mid;
  }
  last = lo;
  return [first, Math.max(first, last)];
}

/** Ruler ticks: a step (seconds) giving labels at least `minPx` apart. */
export function tickStep(pxPerSec: number, minPx = 80): number {
  const steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];
  for (const s of steps) if (s * pxPerSec >= minPx) return s;
  return 7200;
}

/** A ruler label: m:ss, h:mm:ss, with tenths/hundredths when the step needs them. */
export function tickLabel(t: number, step: number): string {
  const neg = t < 0;
  const abs = Math.abs(t);
  const decimals = step < 0.1 ? 2 : step < 1 ? 1 : 0;
  const whole = Math.floor(abs + 1e-9);
  const h = Math.floor(whole / 3600);
  const m = Math.floor(whole / 60) % 60;
  const s = whole % 60;
  const frac = decimals > 0 ? '.' + String(Math.round((abs - whole) * 10 ** decimals)).padStart(decimals, '0').slice(0, decimals) : '';
  const body = h > 0 ? `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}` : `${m}:${String(s).padStart(2, '0')}`;
  return `${neg ? '-' : ''}${body}${frac}`;
}
