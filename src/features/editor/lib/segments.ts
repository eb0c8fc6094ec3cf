// Pure segment edits: split, merge preview, new segment placement, search by time.
import type { Segment } from '../../../../contract/schemas/project';
import type { OverlapEdge } from '../../../../contract/segments';

/** A segment as the editor holds it (spec section 3: plus isSavingError and overlappedTimestamps). */
export type EditorSegment = Segment & { isSavingError?: boolean; overlappedTimestamps?: OverlapEdge[] };

/** The fields a person edits. */
export type SegmentPatch = Partial<Pick<Segment, 'start' | 'end' | 'speaker'>> & {
  srcText?: string;
  dstText?: string;
};

export function applyPatch<T extends Segment>(s: T, p: SegmentPatch): T {
  return {
    ...s,
    ...(p.start !== undefined ? { start: p.start } : {}),
    ...(p.end !== undefined ? { end: p.end } : {}),
    ...(p.speaker !== undefined ? { speaker: p.speaker } : {}),
    src: p.srcText !== undefined ? { ...s.src, text: p.srcText } : s.src,
    dst: p.dstText !== undefined ? { ...s.dst, text: p.dstText } : s.dst,
  };
}

/** Strips client-only fields before sending. */
export function toServer(s: EditorSegment): Segment {
  return { id: s.id, start: s.start, end: s.end, speaker: s.speaker, src: { ...s.src }, dst: { ...s.dst }, status: s.status };
}

export function sameContent(a: Segment, b: Segment): boolean {
  return (
    a.start === b.start && a.end === b.end && a.speaker === b.speaker &&
    a.src.text === b.src.text && a.dst.text === b.dst.text && a.src.lang === b.src.lang && a.dst.lang === b.dst.lang
  );
}

export function sortByTime<T extends Segment>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => a.start - b.start || a.end - b.end || a.id.localeCompare(b.id));
}

/** Splits a text at a character index, or at the word boundary nearest the middle when none is given. */
export function splitText(text: string, at?: number): [string, string] {
  if (at === undefined) {
    const mid = Math.floor(text.length / 2);
    let best = -1;
    for (let i = 0; i < text.length; i++) {
      if (/\s/.test(text[i]) && (best < 0 || Math.abs(i - mid) < Math.abs(best - mid))) best = i;
    }
    at = best < 0 ? mid : best;
  }
  const i = Math.max(0, Math.min(text.length, at));
  return [text.slice(0, i).trim(), text.slice(i).trim()];
}

export interface SplitResult {
  first: Segment;
  second: Omit<Segment, 'id' | 'status'>;
}

/**
 * Splits a segment into two at `atSec` (default: its middle). Texts are split in proportion (at the
 * caret of the source or translated text when given). Throws when the point is not strictly inside.
 */
export function splitSegment(s: Segment, o: { atSec?: number; srcAt?: number; dstAt?: number } = {}): SplitResult {
  const at = Math.round((o.atSec ?? (s.start + s.end) / 2) * 1000) / 1000;
  if (!(at > s.start && at < s.end)) throw new Error('The split point must be inside the segment');
  const ratio = (at - s.start) / (s.end - s.start);
  const [src1, src2] = splitText(s.src.text, o.srcAt ?? (o.dstAt === undefined ? undefined : Math.round(s.src.text.length * ratio)));
  const [dst1, dst2] = splitText(s.dst.text, o.dstAt ?? (o.srcAt === undefined ? undefined : Math.round(s.dst.text.length * ratio)));
  return {
    first: { ...s, end: at, src: { ...s.src, text: src1 }, dst: { ...s.dst, text: dst1 } },
    second: { start: at, end: s.end, speaker: s.speaker, src: { ...s.src, text: src2 }, dst: { ...s.dst, text: dst2 } },
  };
}

/** Whether segment i can be merged with the next one (same speaker, adjacent in time order). */
export function canMergeWithNext(list: readonly Segment[], index: number): boolean {
  const a = list[index];
  const b = list[index + 1];
  return !!a && !!b && a.speaker === b.speaker;
}

export const MIN_NEW_SEGMENT_SEC = 0.2;

/**
 * Where a new segment goes: after `afterIndex` (or at the start when -1), in the gap before the next one,
 * at most `length` seconds. null when there is no room (less than MIN_NEW_SEGMENT_SEC free).
 */
export function newSegmentSlot(list: readonly Segment[], afterIndex: number, durationSec: number | null, length = 2): { start: number; end: number } | null {
  const prev = list[afterIndex];
  const next = list[afterIndex + 1];
  const start = prev ? prev.end : 0;
  let end = start + length;
  if (next) end = Math.min(end, next.start);
  if (durationSec != null && durationSec > 0) end = Math.min(end, durationSec);
  if (end - start < MIN_NEW_SEGMENT_SEC) return null;
  return { start: Math.round(start * 1000) / 1000, end: Math.round(end * 1000) / 1000 };
}

/** Index of the segment under time t (start <= t < end) in a list sorted by start; -1 when none. */
export function segmentAt(list: readonly Segment[], t: number): number {
  let lo = 0;
  let hi = list.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].start <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  // Overlapping segments: walk back to the latest-starting one that still covers t.
  for (let i = found; i >= 0 && i > found - 8; i--) {
    if (list[i].start <= t && t < list[i].end) return i;
  }
  return -1;
}
