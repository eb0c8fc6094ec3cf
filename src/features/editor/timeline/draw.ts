// Drawing the timeline's canvases (ruler ticks, waveforms, the lanes when too many blocks are in view), pure.
import { rangeMinMax, type PeaksChunk } from './peaks';
import { LANE_H, RULER_H, WAVE_H } from './layout';
import { tickLabel, tickStep, timeToX, type Lane, type TimelineView } from './view';

const loudestOf = new WeakMap<PeaksChunk, number>();
/** The loudest bucket of a track (from its overview; computed once per chunk). */
export function loudest(overview: PeaksChunk | null): number {
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

/** The loaded peaks of one track: a chunk by index at the current resolution, and the whole-track overview. */
export interface ChunkAccess {
  at: (i: number) => PeaksChunk | null;
  overview: PeaksChunk | null;
}

/** A waveform of the visible window, one column per pixel. */
export function drawWave(
  canvas: HTMLCanvasElement | null, acc: ChunkAccess | null, color: string,
  o: { width: number; v: TimelineView; resolution: number; duration: number },
): void {
  const { width, v, resolution, duration } = o;
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
}

/** The time ruler: a tick and a label per step, the step chosen for the zoom. */
export function drawRuler(canvas: HTMLCanvasElement | null, o: { width: number; v: TimelineView; t0: number; t1: number }): void {
  const { width, v, t0, t1 } = o;
  const ctx = setupCanvas(canvas, width, RULER_H);
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
}

/** The lanes as bars (when too many blocks are in view to mount); cleared when they are mounted instead. */
export function drawLanes<T extends { start: number; end: number }>(
  canvas: HTMLCanvasElement | null,
  o: { lanes: readonly Lane<T>[]; visible: readonly (readonly [number, number])[]; dense: boolean; lanesShown: number; width: number; v: TimelineView },
): void {
  const { lanes, visible, dense, lanesShown, width, v } = o;
  const h = lanesShown * LANE_H;
  const ctx = setupCanvas(canvas, width, h);
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
}
