// The timeline editor under the player (issue 15, `audio_track_editor`): a ruler, the source waveform, the dub
// waveform once generated, and one lane per speaker with the segments as blocks. Drag a block or its edges to
// change its start and end (snapped to speech and segment edges; Alt drags freely), zoom with Ctrl + wheel or the
// buttons, pan with the wheel or the bar, and the view follows the playhead. Waveforms are drawn on canvases for
// the visible window only, from peaks the server computed once; only the blocks in view are mounted (when more
// than MAX_DOM_BLOCKS would be, the lanes are drawn on a canvas and a click zooms in). A drag is shown locally and
// handed to the editor's store on release, like an edit of the time fields (same save call, same rules).
import { forwardRef, memo, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { formatNumber } from '../../../lib/format';
import type { KeyboardEvent as ReactKeyboardEvent, PointerEvent as ReactPointerEvent, ReactNode, RefObject } from 'react';
import { formatSrtTime } from '../../../../contract/timecodes';
import type { EditorSegment } from '../lib/segments';
import { dragBounds, dragTimes, grabMode, segmentEdges, SNAP_PX, speechEdges, type DragMode } from './drag';
import { OVERVIEW_RESOLUTION, PeaksCache, rangeMinMax, type PeaksChunk } from './peaks';
import {
  chunksFor, clampView, fitZoom, follow, inView, lanesOf, panBy, pickResolution, tickLabel, tickStep, timeToX, xToTime, zoomAt,
  ZOOM_STEP, type Lane, type TimelineView,
} from './view';
import { segmentFit } from '../lib/timing';
import './timeline.css';

export const GUTTER_PX = 112;
const RULER_H = 20;
const WAVE_H = 40;
const LANE_H = 26;
/** More blocks than this in view: the lanes are drawn instead of mounted. */
export const MAX_DOM_BLOCKS = 400;
/** Lanes shown before the lane area scrolls. */
const MAX_LANES_SHOWN = 4;

const sharedCache = new PeaksCache();

const loudestOf = new WeakMap<PeaksChunk, number>();
/** The loudest bucket of a track (from its overview; computed once per chunk). */
function loudest(overview: PeaksChunk | null): number {
  if (!overview) return 1;
  let peak = loudestOf.get(overview);
  if (peak === undefined) {
    peak = 1;
    const d = overview.data;
    for (let i = 0; i < d.length; i++) if (Math.abs(d[i]!) > peak) peak = Math.abs(d[i]!);
    loudestOf.set(overview, peak);
  }
  return peak;
}

export interface TimelineHandle {
  /** The player's position (the view follows it when following is on). */
  setPlayhead(t: number, playing: boolean): void;
}

export interface TimelineProps {
  projectId: string;
  durationSec: number | null;
  segments: readonly EditorSegment[];
  speakers: readonly { id: string; name: string }[];
  selectedId: string | null;
  dirty: ReadonlySet<string>;
  readOnly: boolean;
  /** The source audio exists (ingest done). */
  sourceReady: boolean;
  /** Identifies the current dub (null before the first generate). */
  dubVersion: string | null;
  collapsed: boolean;
  onCollapsedChange: (collapsed: boolean) => void;
  onSelect: (id: string) => void;
  onSeek: (t: number) => void;
  onChange: (id: string, times: { start: number; end: number }) => void;
  /** Peaks source (tests); the page's shared cache by default. */
  cache?: PeaksCache;
}

interface Drag {
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

function setupCanvas(c: HTMLCanvasElement | null, w: number, h: number): CanvasRenderingContext2D | null {
  if (!c) return null;
  const dpr = typeof window !== 'undefined' ? window.devicePixelRatio || 1 : 1;
  const pw = Math.max(1, Math.round(w * dpr));
  const ph = Math.max(1, Math.round(h * dpr));
  if (c.width !== pw) c.width = pw;
  if (c.height !== ph) c.height = ph;
  let ctx: CanvasRenderingContext2D | null = null;
  try {
    ctx = c.getContext('2d');
  } catch {
    ctx = null;
  }
  if (!ctx) return null;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  return ctx;
}

interface BlockProps {
  seg: EditorSegment;
  index: number;
  left: number;
  width: number;
  selected: boolean;
  dirty: boolean;
  dragging: boolean;
  readOnly: boolean;
  onPointerDown: (e: ReactPointerEvent<HTMLDivElement>, seg: EditorSegment) => void;
  onKeyDown: (e: ReactKeyboardEvent<HTMLDivElement>, seg: EditorSegment) => void;
}

const Block = memo(function Block(p: BlockProps) {
  const s = p.seg;
  const overlap = !!s.overlappedTimestamps?.length;
  // the dub's fit (issue 29), in words too: "Too fast 1.32×", "Original audio"
  const fit = segmentFit(s);
  const fitText = fit.level === 'unknown' ? '' : `, ${fit.label}`;
  return (
    <div
      className="tl-block"
      role="button"
      tabIndex={p.selected ? 0 : -1}
      data-tl-segment={s.id}
      data-selected={p.selected}
      data-dirty={p.dirty}
      data-overlap={overlap}
      data-dragging={p.dragging}
      data-fit={fit.level}
      aria-label={`Segment ${p.index + 1}: ${formatSrtTime(s.start)} to ${formatSrtTime(s.end)}${fitText}`}
      aria-pressed={p.selected}
      style={{ transform: `translateX(${p.left}px)`, width: Math.max(2, p.width) }}
      onPointerDown={(e) => p.onPointerDown(e, s)}
      onKeyDown={(e) => p.onKeyDown(e, s)}
      title={`${formatSrtTime(s.start)} – ${formatSrtTime(s.end)}${overlap ? ' · overlaps another segment of this speaker' : ''}${fit.level === 'unknown' ? '' : ` · ${fit.description}`}`}
    >
      {!p.readOnly && p.width >= 14 && <span className="tl-edge tl-edge-start" data-edge="start" aria-hidden />}
      {p.width >= 28 && <span className="tl-block-text">{s.dst.text || s.src.text}</span>}
      {!p.readOnly && p.width >= 14 && <span className="tl-edge tl-edge-end" data-edge="end" aria-hidden />}
    </div>
  );
});

export const Timeline = memo(forwardRef<TimelineHandle, TimelineProps>(function Timeline(p, ref) {
  const cache = p.cache ?? sharedCache;
  const area = useRef<HTMLDivElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const areaWidth = useWidth(area, 900, p.collapsed);
  const width = Math.max(100, areaWidth);
  const duration = useMemo(() => {
    if (p.durationSec && p.durationSec > 0) return p.durationSec;
    let end = 0;
    for (const s of p.segments) if (s.end > end) end = s.end;
    return Math.max(1, end);
  }, [p.durationSec, p.segments]);

  const [view, setViewRaw] = useState<TimelineView>(() => ({ pxPerSec: Math.max(fitZoom(duration, width), Math.min(100, width / Math.min(duration, 30))), startSec: 0 }));
  const v = useMemo(() => clampView(view, duration, width), [view, duration, width]);
  const vRef = useRef(v);
  vRef.current = v;
  const setView = useCallback((fn: (cur: TimelineView) => TimelineView) => {
    setViewRaw((cur) => fn(clampView(cur, duration, width)));
  }, [duration, width]);
  const [following, setFollowing] = useState(true);
  const [snapping, setSnapping] = useState(true);
  const [drag, setDrag] = useState<Drag | null>(null);
  const dragRef = useRef<Drag | null>(null);
  dragRef.current = drag;

  // Peaks arrive asynchronously: redraw when one lands.
  const [, setLanded] = useState(0);
  useEffect(() => cache.subscribe(() => setLanded((n) => n + 1)), [cache]);

  const speakerOrder = useMemo(() => p.speakers.map((s) => s.id), [p.speakers]);
  const lanes = useMemo(() => lanesOf(p.segments, speakerOrder), [p.segments, speakerOrder]);
  const indexOf = useMemo(() => {
    const m = new Map<string, number>();
    p.segments.forEach((s, i) => m.set(s.id, i));
    return m;
  }, [p.segments]);
  const nameOf = useMemo(() => new Map(p.speakers.map((s) => [s.id, s.name])), [p.speakers]);

  const t0 = v.startSec;
  const t1 = v.startSec + width / v.pxPerSec;
  const resolution = pickResolution(v.pxPerSec);

  // ------------------------------------------------------------------ peaks
  const overviewReq = useCallback(
    (track: 'source' | 'dub', version: string) => ({ projectId: p.projectId, track, version, resolution: OVERVIEW_RESOLUTION, chunk: 'all' as const }),
    [p.projectId],
  );
  const trackVersion = useCallback((track: 'source' | 'dub') => (track === 'source' ? (p.sourceReady ? 'source' : null) : p.dubVersion), [p.sourceReady, p.dubVersion]);
  /** The loaded chunk accessor of a track at the current resolution, asking for the visible chunks. */
  const chunkAccess = useCallback(
    (track: 'source' | 'dub'): { at: (i: number) => PeaksChunk | null; overview: PeaksChunk | null } | null => {
      const version = trackVersion(track);
      if (!version) return null;
      const overview = cache.get(overviewReq(track, version));
      if (resolution === OVERVIEW_RESOLUTION) return { at: () => overview, overview };
      const loaded = new Map<number, PeaksChunk | null>();
      const totalAtRes = overview ? Math.ceil((overview.total * resolution) / OVERVIEW_RESOLUTION) : null;
      for (const c of chunksFor(resolution, t0, t1, totalAtRes)) {
        loaded.set(c, cache.get({ projectId: p.projectId, track, version, resolution, chunk: c }));
      }
      return { at: (i) => loaded.get(i) ?? null, overview };
    },
    [cache, overviewReq, trackVersion, resolution, t0, t1, p.projectId],
  );

  const srcCanvas = useRef<HTMLCanvasElement>(null);
  const dubCanvas = useRef<HTMLCanvasElement>(null);
  const rulerCanvas = useRef<HTMLCanvasElement>(null);
  const lanesCanvas = useRef<HTMLCanvasElement>(null);

  const drawWave = useCallback(
    (canvas: HTMLCanvasElement | null, track: 'source' | 'dub', color: string) => {
      // Asks for the peaks of the window even where nothing can be drawn.
      const acc = chunkAccess(track);
      const ctx = setupCanvas(canvas, width, WAVE_H);
      if (!ctx || !acc) return;
      const gain = Math.min(6, 127 / Math.max(8, loudest(acc.overview)));
      const mid = WAVE_H / 2;
      const scale = (mid - 1) / 127;
      ctx.fillStyle = color;
      const secPerPx = 1 / v.pxPerSec;
      for (let x = 0; x < width; x++) {
        const ta = v.startSec + x * secPerPx;
        if (ta >= duration) break;
        const b0 = Math.floor(ta * resolution);
        const b1 = Math.max(b0 + 1, Math.floor((ta + secPerPx) * resolution));
        const mm = rangeMinMax(acc.at, b0, b1);
        if (!mm) continue;
        const top = mid - Math.min(127, mm[1] * gain) * scale;
        const bottom = mid - Math.max(-127, mm[0] * gain) * scale;
        ctx.fillRect(x, top, 1, Math.max(1, bottom - top));
      }
    },
    [chunkAccess, width, v, resolution, duration],
  );

  const drawRuler = useCallback(() => {
    const ctx = setupCanvas(rulerCanvas.current, width, RULER_H);
    if (!ctx) return;
    const step = tickStep(v.pxPerSec);
    ctx.fillStyle = '#6d7175';
    ctx.strokeStyle = '#c9cccf';
    ctx.font = '10px system-ui, sans-serif';
    ctx.textBaseline = 'top';
    const first = Math.floor(t0 / step) * step;
    ctx.beginPath();
    for (let t = first; t <= t1 + step; t += step) {
      const x = Math.round(timeToX(v, t)) + 0.5;
      if (x < -1 || x > width + 1) continue;
      ctx.moveTo(x, RULER_H - 6);
      ctx.lineTo(x, RULER_H);
      ctx.fillText(tickLabel(t, step), x + 3, 3);
    }
    ctx.stroke();
  }, [width, v, t0, t1]);

  // Blocks in view per lane; too many -> the lanes are drawn.
  const visible = useMemo(() => lanes.map((lane) => inView(lane, t0, t1)), [lanes, t0, t1]);
  const visibleCount = visible.reduce((n, [a, b]) => n + (b - a), 0);
  const dense = visibleCount > MAX_DOM_BLOCKS;
  const lanesShown = Math.max(1, lanes.length);

  const drawLanes = useCallback(() => {
    const h = lanesShown * LANE_H;
    const ctx = setupCanvas(lanesCanvas.current, width, h);
    if (!ctx || !dense) return;
    lanes.forEach((lane, li) => {
      const [a, b] = visible[li]!;
      const y = li * LANE_H + 4;
      ctx.fillStyle = '#9fc3f5';
      let lastX = -1;
      for (let i = a; i < b; i++) {
        const s = lane.items[i]!;
        const x = Math.floor(timeToX(v, s.start));
        const w = Math.max(1, Math.ceil((s.end - s.start) * v.pxPerSec));
        if (x + w <= lastX) continue; // already covered at this zoom
        ctx.fillRect(x, y, w, LANE_H - 8);
        lastX = x + w;
      }
    });
  }, [lanes, visible, dense, lanesShown, width, v]);

  // Draw after every render that can change a picture (cheap: only the visible window).
  useLayoutEffect(() => {
    drawRuler();
    drawWave(srcCanvas.current, 'source', '#5b6cbf');
    if (p.dubVersion) drawWave(dubCanvas.current, 'dub', '#2f8f5b');
    drawLanes();
  });

  // ------------------------------------------------------------------ playhead
  // The player reports its time a few times a second; while it plays, the line moves every frame from the last
  // report (so it glides), and the view turns the page when the line leaves it.
  const playheadEl = useRef<HTMLDivElement>(null);
  const playhead = useRef({ t: 0, playing: false, at: 0 });
  const playheadNow = useCallback(() => {
    const ph = playhead.current;
    return ph.playing ? Math.min(duration, ph.t + (performance.now() - ph.at) / 1000) : ph.t;
  }, [duration]);
  const placePlayhead = useCallback(() => {
    const el = playheadEl.current;
    if (!el) return;
    const x = timeToX(vRef.current, playheadNow());
    const w = el.parentElement?.clientWidth ?? width;
    el.style.display = x < 0 || x > w ? 'none' : 'block';
    el.style.transform = `translateX(${x}px)`;
  }, [width, playheadNow]);
  useLayoutEffect(placePlayhead);
  const followingRef = useRef(following);
  followingRef.current = following;
  /** Follows the playhead; true when the view moved (the next render places the line). */
  const followPlayhead = useCallback((): boolean => {
    if (!followingRef.current || dragRef.current) return false;
    const next = follow(vRef.current, playheadNow(), duration, width);
    if (next === vRef.current) return false;
    vRef.current = next;
    setViewRaw(next);
    return true;
  }, [playheadNow, duration, width]);
  const frame = useRef(0);
  const tick = useRef<() => void>(() => {});
  tick.current = () => {
    frame.current = 0;
    if (!playhead.current.playing) return;
    if (!followPlayhead()) placePlayhead();
    frame.current = requestAnimationFrame(() => tick.current());
  };
  useEffect(() => () => cancelAnimationFrame(frame.current), []);
  useImperativeHandle(ref, () => ({
    setPlayhead(t, playing) {
      playhead.current = { t, playing, at: performance.now() };
      if (!followPlayhead()) placePlayhead();
      if (playing && !frame.current) frame.current = requestAnimationFrame(() => tick.current());
    },
  }), [followPlayhead, placePlayhead]);

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
  }, [setView, duration, width, p.collapsed]);

  const zoomButton = (factor: number) => setView((cur) => zoomAt(cur, factor, width / 2, duration, width));

  // ------------------------------------------------------------------ dragging
  const snapTargetsFor = useCallback(
    (seg: EditorSegment): number[] => {
      if (!snapping) return [];
      const span = Math.max(seg.end - seg.start, width / v.pxPerSec);
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
    [snapping, lanes, width, v.pxPerSec, chunkAccess, resolution],
  );

  const pressBlock = (e: ReactPointerEvent<HTMLDivElement>, seg: EditorSegment) => {
    if (e.button !== 0) return;
    p.onSelect(seg.id);
    if (p.readOnly) return;
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
      id: seg.id, mode, x0: e.clientX, orig: seg, bounds: dragBounds(lane, seg, p.durationSec), snapTargets: snapTargetsFor(seg),
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
      if (d && d.moved && (d.start !== d.orig.start || d.end !== d.orig.end)) p.onChange(d.id, { start: d.start, end: d.end });
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
    if (p.readOnly || (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight')) return;
    e.preventDefault();
    const step = (e.shiftKey ? 0.1 : 0.01) * (e.key === 'ArrowLeft' ? -1 : 1);
    const lane = lanes.find((l) => l.speaker === seg.speaker);
    if (!lane) return;
    const r = dragTimes({ segment: seg, mode: e.altKey ? 'end' : 'move', deltaSec: step, bounds: dragBounds(lane, seg, p.durationSec), snapTargets: [], snapSec: 0 });
    if (r.start !== seg.start || r.end !== seg.end) p.onChange(seg.id, { start: r.start, end: r.end });
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

  // The selected block gets the keyboard focus target; a block selected elsewhere is brought into view.
  const lastSelected = useRef<string | null>(null);
  useEffect(() => {
    if (p.selectedId === lastSelected.current) return;
    lastSelected.current = p.selectedId;
    const s = p.selectedId ? p.segments[indexOf.get(p.selectedId) ?? -1] : undefined;
    if (!s) return;
    const cur = vRef.current;
    const visibleSec = width / cur.pxPerSec;
    if (s.end < cur.startSec || s.start > cur.startSec + visibleSec) setView((c) => ({ ...c, startSec: s.start - visibleSec * 0.2 }));
  }, [p.selectedId, p.segments, indexOf, width, setView]);

  // ------------------------------------------------------------------ clicks on the ruler and waves seek
  const seekAt = (e: ReactPointerEvent<HTMLElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    p.onSeek(Math.max(0, Math.min(duration, xToTime(v, e.clientX - rect.left))));
  };
  const onDenseLaneClick = (e: ReactPointerEvent<HTMLDivElement>) => {
    const rect = e.currentTarget.getBoundingClientRect();
    const x = e.clientX - rect.left;
    // Zoom in around the click until the blocks can be grabbed.
    setView((cur) => zoomAt(cur, 4, x, duration, width));
  };

  const sourceError = p.sourceReady ? cache.error(overviewReq('source', 'source')) : null;
  const dubError = p.dubVersion ? cache.error(overviewReq('dub', p.dubVersion)) : null;
  const dragged = drag ? p.segments[indexOf.get(drag.id) ?? -1] : undefined;
  const shownTimes = drag?.moved ? { start: drag.start, end: drag.end } : dragged ? { start: dragged.start, end: dragged.end } : null;
  const selected = p.selectedId ? p.segments[indexOf.get(p.selectedId) ?? -1] : undefined;
  const readout = shownTimes ?? (selected ? { start: selected.start, end: selected.end } : null);
  const visibleSec = width / v.pxPerSec;

  return (
    <section className="tl" data-tour="timeline" aria-label="Timeline" data-collapsed={p.collapsed}>
      <div className="tl-toolbar">
        <strong className="tl-title">Timeline</strong>
        <button type="button" className="ed-btn" onClick={() => zoomButton(1 / ZOOM_STEP)} aria-label="Zoom out" disabled={p.collapsed}>−</button>
        <button type="button" className="ed-btn" onClick={() => zoomButton(ZOOM_STEP)} aria-label="Zoom in" disabled={p.collapsed}>+</button>
        <button type="button" className="ed-btn" onClick={() => setView(() => ({ pxPerSec: fitZoom(duration, width), startSec: 0 }))} disabled={p.collapsed}>
          Whole video
        </button>
        <label className="tl-check">
          <input type="checkbox" checked={following} onChange={(e) => setFollowing(e.target.checked)} /> Follow playhead
        </label>
        <label className="tl-check">
          <input type="checkbox" checked={snapping} onChange={(e) => setSnapping(e.target.checked)} /> Snap to speech
        </label>
        <span className="tl-readout" aria-live="polite" data-testid="timeline-readout">
          {readout ? `${formatSrtTime(readout.start)} – ${formatSrtTime(readout.end)}${drag?.snapped != null ? ' · snapped' : ''}` : ''}
        </span>
        <span className="ed-spacer" />
        <span className="tl-hint">Drag a block or its edges · Ctrl + wheel zooms · Alt drags without snapping</span>
        <button type="button" className="ed-btn" onClick={() => p.onCollapsedChange(!p.collapsed)} aria-expanded={!p.collapsed}>
          {p.collapsed ? 'Show timeline' : 'Hide timeline'}
        </button>
      </div>
      {!p.collapsed && (
        <div className="tl-body" ref={body} data-testid="timeline-area">
          <div className="tl-row" style={{ height: RULER_H }}>
            <div className="tl-label" style={{ width: GUTTER_PX }} />
            <div className="tl-cell" ref={area}>
              <canvas ref={rulerCanvas} className="tl-canvas" style={{ height: RULER_H }} onPointerDown={seekAt} aria-label="Time ruler: click to move the playhead" />
            </div>
          </div>
          <div className="tl-row" style={{ height: WAVE_H }}>
            <div className="tl-label" style={{ width: GUTTER_PX }}>Source</div>
            <div className="tl-cell tl-wave" onPointerDown={seekAt}>
              <canvas ref={srcCanvas} className="tl-canvas" style={{ height: WAVE_H }} aria-label="Source waveform" data-testid="timeline-source-wave" />
              {!p.sourceReady && <span className="tl-note">The waveform appears once the video is processed</span>}
              {sourceError != null && <span className="tl-note">The source waveform could not be loaded</span>}
            </div>
          </div>
          <div className="tl-row" style={{ height: WAVE_H }}>
            <div className="tl-label" style={{ width: GUTTER_PX }}>Dub</div>
            <div className="tl-cell tl-wave" onPointerDown={seekAt}>
              <canvas ref={dubCanvas} className="tl-canvas" style={{ height: WAVE_H, display: p.dubVersion ? 'block' : 'none' }} aria-label="Dub waveform" data-testid="timeline-dub-wave" />
              {!p.dubVersion && <span className="tl-note">The dub waveform appears once the video is generated</span>}
              {dubError != null && <span className="tl-note">The dub waveform could not be loaded</span>}
            </div>
          </div>
          <div className="tl-lanes-scroll" style={{ maxHeight: MAX_LANES_SHOWN * LANE_H }}>
            <div className="tl-row" style={{ height: lanesShown * LANE_H }}>
              <div className="tl-gutter" style={{ width: GUTTER_PX }}>
                {lanes.map((lane) => (
                  <div key={lane.speaker} className="tl-label" style={{ height: LANE_H }} title={nameOf.get(lane.speaker) ?? lane.speaker}>
                    {nameOf.get(lane.speaker) ?? (lane.speaker || 'No speaker')}
                  </div>
                ))}
              </div>
              <div className="tl-cell tl-lanes">
                <canvas ref={lanesCanvas} className="tl-canvas" style={{ height: lanesShown * LANE_H, display: dense ? 'block' : 'none' }} />
                {dense ? (
                  <div className="tl-dense" onPointerDown={onDenseLaneClick} title="Click to zoom in and edit the segments">
                    <span className="tl-note">{formatNumber(visibleCount)} segments in view: click or zoom in to drag them</span>
                  </div>
                ) : (
                  lanes.map((lane, li) => {
                    const [a, b] = visible[li]!;
                    const blocks: ReactNode[] = [];
                    for (let i = a; i < b; i++) {
                      const s0 = lane.items[i]!;
                      const s = drag && drag.id === s0.id && drag.moved ? { ...s0, start: drag.start, end: drag.end } : s0;
                      blocks.push(
                        <Block
                          key={s.id}
                          seg={s}
                          index={indexOf.get(s.id) ?? 0}
                          left={s.start * v.pxPerSec}
                          width={(s.end - s.start) * v.pxPerSec}
                          selected={s.id === p.selectedId}
                          dirty={p.dirty.has(s.id)}
                          dragging={drag?.id === s.id}
                          readOnly={p.readOnly}
                          onPointerDown={onBlockPointerDown}
                          onKeyDown={onBlockKeyDown}
                        />,
                      );
                    }
                    return (
                      <div key={lane.speaker} className="tl-lane" style={{ top: li * LANE_H, height: LANE_H }} data-speaker={lane.speaker}>
                        {/* Blocks sit at their time (px from 0 s); panning moves only this strip, not each block. */}
                        <div className="tl-strip" style={{ transform: `translateX(${-v.startSec * v.pxPerSec}px)` }}>
                          {blocks}
                        </div>
                      </div>
                    );
                  })
                )}
              </div>
            </div>
          </div>
          <div className="tl-row">
            <div className="tl-label" style={{ width: GUTTER_PX }} />
            <div className="tl-cell">
              <input
                type="range"
                className="tl-scroll"
                aria-label="Scroll the timeline"
                min={0}
                max={Math.max(0, Math.round((duration - visibleSec) * 1000))}
                value={Math.round(v.startSec * 1000)}
                disabled={duration <= visibleSec}
                onChange={(e) => {
                  const s = Number(e.target.value) / 1000;
                  setView((cur) => ({ ...cur, startSec: s }));
                }}
              />
            </div>
          </div>
          <div className="tl-overlay" style={{ left: GUTTER_PX }} aria-hidden>
            {drag?.snapped != null && <div className="tl-snap" style={{ transform: `translateX(${timeToX(v, drag.snapped)}px)` }} />}
            <div className="tl-playhead" ref={playheadEl} />
          </div>
        </div>
      )}
    </section>
  );
}));
