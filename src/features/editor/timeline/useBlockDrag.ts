// Dragging a segment block on the timeline with the pointer (the block or one of its edges, snapped to speech and
// segment edges; Alt drags freely; Escape cancels) and nudging the selected one with the arrow keys. A drag is
// shown locally and handed to onChange on release.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { KeyboardEvent as ReactKeyboardEvent, MutableRefObject, PointerEvent as ReactPointerEvent, RefObject } from 'react';
import type { EditorSegment } from '../lib/segments';
import { dragBounds, dragTimes, grabMode, segmentEdges, SNAP_PX, speechEdges, type DragMode } from './drag';
import { loudest, type ChunkAccess } from './draw';
import { OVERVIEW_RESOLUTION } from './peaks';
import type { Track } from './useTrackPeaks';
import { chunksFor, inView, timeToX, type Lane, type TimelineView } from './view';

/** A drag in progress: what was grabbed, where it may go, and where it is now. */
export interface Drag {
  id: string;
  mode: DragMode;
  x0: number;
  orig: EditorSegment;
  bounds: { lo: number; hi: number };
  snapTargets: number[];
  start: number;
  end: number;
  snapped: number | null;
  moved: boolean;
}

export function useBlockDrag(o: {
  /** The time area (pointer x is measured from its left edge). */
  area: RefObject<HTMLDivElement>;
  vRef: MutableRefObject<TimelineView>;
  width: number;
  /** The current zoom (pixels per second). */
  pxPerSec: number;
  lanes: readonly Lane<EditorSegment>[];
  snapping: boolean;
  chunkAccess: (track: Track) => ChunkAccess | null;
  resolution: number;
  readOnly: boolean;
  durationSec: number | null;
  onSelect: (id: string) => void;
  onChange: (id: string, times: { start: number; end: number }) => void;
}) {
  const { area, vRef, width, pxPerSec, lanes, snapping, chunkAccess, resolution } = o;
  const [drag, setDrag] = useState<Drag | null>(null);
  const dragRef = useRef<Drag | null>(null);
  dragRef.current = drag;

  const snapTargetsFor = useCallback(
    (seg: EditorSegment): number[] => {
      if (!snapping) return [];
      const span = Math.max(seg.end - seg.start, width / pxPerSec);
      const a = seg.start - span;
      const b = seg.end + span;
      const out = segmentEdges(lanes.flatMap((lane) => {
        const [i, j] = inView(lane, a, b);
        return lane.items.slice(i, j);
      }), seg.id, a, b);
      // Speech edges of the source in the loaded peaks around the segment.
      const acc = chunkAccess('source');
      if (acc?.overview) {
        const threshold = Math.max(3, Math.round(loudest(acc.overview) * 0.12));
        if (resolution === OVERVIEW_RESOLUTION) out.push(...speechEdges(acc.overview.data, 0, resolution, threshold));
        else for (const c of chunksFor(resolution, a, b, null)) {
          const chunk = acc.at(c);
          if (chunk) out.push(...speechEdges(chunk.data, chunk.from, resolution, threshold));
        }
      }
      return out.filter((t) => t >= a && t <= b).sort((x, y) => x - y);
    },
    [snapping, lanes, width, pxPerSec, chunkAccess, resolution],
  );

  const pressBlock = (e: ReactPointerEvent<HTMLDivElement>, seg: EditorSegment) => {
    if (e.button !== 0) return;
    o.onSelect(seg.id);
    if (o.readOnly) return;
    e.preventDefault();
    // Where in the block the press is, from the view (the lanes start where the ruler does).
    const x = e.clientX - (area.current?.getBoundingClientRect().left ?? 0);
    const mode = grabMode(x - timeToX(vRef.current, seg.start), (seg.end - seg.start) * vRef.current.pxPerSec);
    const lane = lanes.find((l) => l.speaker === seg.speaker) ?? ({ speaker: seg.speaker, items: [seg], maxLen: seg.end - seg.start } as Lane<EditorSegment>);
    try {
      e.currentTarget.setPointerCapture(e.pointerId);
    } catch {
      // not capturable (synthetic events)
    }
    setDrag({
      id: seg.id, mode, x0: e.clientX, orig: seg, bounds: dragBounds(lane, seg, o.durationSec), snapTargets: snapTargetsFor(seg),
      start: seg.start, end: seg.end, snapped: null, moved: false,
    });
  };

  useEffect(() => {
    if (!drag) return;
    const onMove = (e: PointerEvent) => {
      const d = dragRef.current;
      if (!d) return;
      const dx = e.clientX - d.x0;
      if (!d.moved && Math.abs(dx) < 3) return;
      const r = dragTimes({
        segment: d.orig, mode: d.mode, deltaSec: dx / vRef.current.pxPerSec, bounds: d.bounds,
        snapTargets: e.altKey ? [] : d.snapTargets, snapSec: SNAP_PX / vRef.current.pxPerSec,
      });
      setDrag({ ...d, start: r.start, end: r.end, snapped: r.snapped, moved: true });
    };
    const onUp = () => {
      const d = dragRef.current;
      setDrag(null);
      if (d && d.moved && (d.start !== d.orig.start || d.end !== d.orig.end)) o.onChange(d.id, { start: d.start, end: d.end });
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setDrag(null);
    };
    window.addEventListener('pointermove', onMove);
    window.addEventListener('pointerup', onUp);
    window.addEventListener('pointercancel', onUp);
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('pointermove', onMove);
      window.removeEventListener('pointerup', onUp);
      window.removeEventListener('pointercancel', onUp);
      window.removeEventListener('keydown', onKey);
    };
    // Listeners follow the drag's existence, not each move.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [drag === null]);

  /** Arrow keys move the selected block by 10 ms (Shift: 100 ms); with Alt they move its end only. */
  const keyOnBlock = (e: ReactKeyboardEvent<HTMLDivElement>, seg: EditorSegment) => {
    if (o.readOnly || (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight')) return;
    e.preventDefault();
    const step = (e.shiftKey ? 0.1 : 0.01) * (e.key === 'ArrowLeft' ? -1 : 1);
    const lane = lanes.find((l) => l.speaker === seg.speaker);
    if (!lane) return;
    const r = dragTimes({ segment: seg, mode: e.altKey ? 'end' : 'move', deltaSec: step, bounds: dragBounds(lane, seg, o.durationSec), snapTargets: [], snapSec: 0 });
    if (r.start !== seg.start || r.end !== seg.end) o.onChange(seg.id, { start: r.start, end: r.end });
  };
  // Stable handlers for the memoised blocks (panning must not re-render every block); they call the latest ones.
  const latest = useRef({ pressBlock, keyOnBlock });
  latest.current = { pressBlock, keyOnBlock };
  const onBlockPointerDown = useCallback((e: ReactPointerEvent<HTMLDivElement>, seg: EditorSegment) => {
    const block = e.currentTarget;
    latest.current.pressBlock(e, seg);
    // A click selects and focuses the block, so the arrow-key nudge works right after it (pressBlock prevents
    // the pointer's default, which would have focused it).
    block.focus({ preventScroll: true });
  }, []);
  const onBlockKeyDown = useCallback((e: ReactKeyboardEvent<HTMLDivElement>, seg: EditorSegment) => latest.current.keyOnBlock(e, seg), []);

  return { drag, dragRef, onBlockPointerDown, onBlockKeyDown };
}
