// Overlap marks of spec section 5 on the editor's segments; the rule itself is the contract's (contract/segments.ts),
// the same one the server applies when it refuses a save.
import { findOverlaps, type OverlapEdge, type TimedSegment } from '../../../../contract/segments';

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
