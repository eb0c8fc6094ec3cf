// Overlap detection of spec section 5: segment times compared among segments of the SAME speaker.
// For every overlapping pair (a starts no later than b) a's 'end' and b's 'start' are marked.

export type OverlapEdge = 'start' | 'end';

export interface TimedSegment {
  id: string;
  start: number;
  end: number;
  speaker: string;
}

/** id -> overlapped edges, only for segments that overlap another segment of their speaker. */
export function findOverlaps(segments: readonly TimedSegment[]): Map<string, OverlapEdge[]> {
  const bySpeaker = new Map<string, TimedSegment[]>();
  for (const s of segments) {
    const list = bySpeaker.get(s.speaker);
    if (list) list.push(s);
    else bySpeaker.set(s.speaker, [s]);
  }
  const marks = new Map<string, Set<OverlapEdge>>();
  const mark = (id: string, edge: OverlapEdge) => {
    const set = marks.get(id);
    if (set) set.add(edge);
    else marks.set(id, new Set([edge]));
  };
  for (const list of bySpeaker.values()) {
    const sorted = [...list].sort((a, b) => a.start - b.start || a.end - b.end);
    // Segments that are still "open" (end after the current start). Typically tiny.
    let active: TimedSegment[] = [];
    for (const b of sorted) {
      active = active.filter((a) => a.end > b.start);
      for (const a of active) {
        mark(a.id, 'end');
        mark(b.id, 'start');
      }
      active.push(b);
    }
  }
  const out = new Map<string, OverlapEdge[]>();
  for (const [id, set] of marks) out.set(id, (['start', 'end'] as const).filter((e) => set.has(e)));
  return out;
}

/** Returns the list with overlappedTimestamps set (or removed) on each segment; unchanged objects are reused. */
export function withOverlaps<T extends TimedSegment & { overlappedTimestamps?: OverlapEdge[] }>(segments: readonly T[]): T[] {
  const overlaps = findOverlaps(segments);
  return segments.map((s) => {
    const edges = overlaps.get(s.id);
    const prev = s.overlappedTimestamps;
    if (!edges) {
      if (!prev || prev.length === 0) return s;
      const { overlappedTimestamps: _drop, ...rest } = s;
      return rest as T;
    }
    if (prev && prev.length === edges.length && prev.every((e, i) => e === edges[i])) return s;
    return { ...s, overlappedTimestamps: edges };
  });
}
