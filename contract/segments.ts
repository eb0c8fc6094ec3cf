// Transcript segment rules shared by the editor (marks) and the server (refuses the save), spec section 5:
// a segment ends after it starts; segments of the SAME speaker never overlap (touching is fine).

export interface TimedSegment {
  id: string;
  start: number;
  end: number;
  speaker: string;
}

/** Tolerance of the time comparisons (seconds). */
export const SEGMENT_TIME_EPS = 1e-6;

/** A segment ends after it starts. */
export function endsAfterStart(s: { start: number; end: number }): boolean {
  return s.end > s.start + SEGMENT_TIME_EPS;
}

/** Two segments of the same speaker whose times overlap (touching is not overlapping). */
export function sameSpeakerOverlap(a: TimedSegment, b: TimedSegment): boolean {
  return a.id !== b.id && a.speaker === b.speaker && a.start < b.end - SEGMENT_TIME_EPS && b.start < a.end - SEGMENT_TIME_EPS;
}

/** The first overlapping pair with one of them in `changed`, earlier segment first (the server's check). */
export function findOverlap(all: readonly TimedSegment[], changed: ReadonlySet<string>): [TimedSegment, TimedSegment] | null {
  const ch = all.filter((s) => changed.has(s.id)).sort((a, b) => a.start - b.start);
  for (const a of ch) {
    for (const b of all) {
      if (sameSpeakerOverlap(a, b)) return a.start <= b.start ? [a, b] : [b, a];
    }
  }
  return null;
}

export type OverlapEdge = 'start' | 'end';

/**
 * Every overlap, for the editor's marks: id -> overlapped edges. For each overlapping pair (a starts no later
 * than b) a's 'end' and b's 'start' are marked.
 */
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
    // Segments still "open" at the current start (typically very few).
    let active: TimedSegment[] = [];
    for (const b of sorted) {
      active = active.filter((a) => a.end - SEGMENT_TIME_EPS > b.start);
      for (const a of active) {
        if (!sameSpeakerOverlap(a, b)) continue;
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
