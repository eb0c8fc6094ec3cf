// Which part of the video the timeline shows: its measured width, the zoom and left edge (kept inside the video),
// wheel panning and Ctrl/Cmd + wheel zoom, the zoom buttons, and bringing a segment selected elsewhere into view.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { MutableRefObject, RefObject } from 'react';
import { clampView, fitZoom, panBy, zoomAt, ZOOM_STEP, type TimelineView } from './view';

function useWidth(ref: RefObject<HTMLElement | null>, fallback: number, remountKey: unknown): number {
  const [w, setW] = useState(fallback);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const measure = () => {
      const cw = el.clientWidth;
      if (cw > 0) setW(cw);
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref, remountKey]);
  return w;
}

export function useTimelineViewport(o: { durationSec: number | null; segments: readonly { end: number }[]; collapsed: boolean }) {
  const { durationSec, segments, collapsed } = o;
  /** The timeline's body (wheel events) and its time area (the cells right of the labels: width, pointer x). */
  const body = useRef<HTMLDivElement>(null);
  const area = useRef<HTMLDivElement>(null);
  const areaWidth = useWidth(area, 900, collapsed);
  const width = Math.max(100, areaWidth);
  const duration = useMemo(() => {
    if (durationSec && durationSec > 0) return durationSec;
    let end = 0;
    for (const s of segments) if (s.end > end) end = s.end;
    return Math.max(1, end);
  }, [durationSec, segments]);

  const [view, setViewRaw] = useState<TimelineView>(() => ({ pxPerSec: Math.max(fitZoom(duration, width), Math.min(100, width / Math.min(duration, 30))), startSec: 0 }));
  const v = useMemo(() => clampView(view, duration, width), [view, duration, width]);
  /** The current view for handlers and frames between renders. */
  const vRef = useRef(v);
  vRef.current = v;
  const setView = useCallback((fn: (cur: TimelineView) => TimelineView) => {
    setViewRaw((cur) => fn(clampView(cur, duration, width)));
  }, [duration, width]);
  /** Puts a view already clamped (following the playhead between renders). */
  const jumpTo = useCallback((next: TimelineView) => {
    vRef.current = next;
    setViewRaw(next);
  }, []);

  // ------------------------------------------------------------------ wheel: pan, Ctrl/Cmd zoom
  useEffect(() => {
    const el = body.current;
    if (!el) return;
    const onWheel = (e: WheelEvent) => {
      if (e.ctrlKey || e.metaKey) {
        e.preventDefault();
        const x = e.clientX - (area.current?.getBoundingClientRect().left ?? 0);
        setView((cur) => zoomAt(cur, e.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP, x, duration, width));
        return;
      }
      // The timeline is horizontal: both wheel directions pan it.
      const d = Math.abs(e.deltaX) > Math.abs(e.deltaY) ? e.deltaX : e.deltaY;
      if (d === 0) return;
      e.preventDefault();
      const px = e.deltaMode === 1 ? d * 16 : d;
      setView((cur) => panBy(cur, px, duration, width));
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    return () => el.removeEventListener('wheel', onWheel);
  }, [setView, duration, width, collapsed]);

  const zoomBy = (factor: number) => setView((cur) => zoomAt(cur, factor, width / 2, duration, width));
  const showWholeVideo = () => setView(() => ({ pxPerSec: fitZoom(duration, width), startSec: 0 }));
  /** Zooms in around pixel x of the time area. */
  const zoomInAt = (x: number) => setView((cur) => zoomAt(cur, 4, x, duration, width));
  const scrollTo = (startSec: number) => setView((cur) => ({ ...cur, startSec }));

  return { body, area, width, duration, v, vRef, setView, jumpTo, zoomBy, showWholeVideo, zoomInAt, scrollTo };
}

/** A segment selected elsewhere (the list, the quality report) is brought into view. */
export function useRevealSelected(o: {
  selectedId: string | null;
  segments: readonly { start: number; end: number }[];
  indexOf: ReadonlyMap<string, number>;
  width: number;
  vRef: MutableRefObject<TimelineView>;
  setView: (fn: (cur: TimelineView) => TimelineView) => void;
}) {
  const { selectedId, segments, indexOf, width, vRef, setView } = o;
  const lastSelected = useRef<string | null>(null);
  useEffect(() => {
    if (selectedId === lastSelected.current) return;
    lastSelected.current = selectedId;
    const s = selectedId ? segments[indexOf.get(selectedId) ?? -1] : undefined;
    if (!s) return;
    const cur = vRef.current;
    const visibleSec = width / cur.pxPerSec;
    if (s.end < cur.startSec || s.start > cur.startSec + visibleSec) setView((c) => ({ ...c, startSec: s.start - visibleSec * 0.2 }));
  }, [selectedId, segments, indexOf, width, setView, vRef]);
}
