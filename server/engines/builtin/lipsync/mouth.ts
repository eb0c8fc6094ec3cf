// The mouth of one face in one frame: its geometry from the 68 landmarks, and the warp that opens or
// closes it. The warp works on planar YUV 4:2:0 frames (what ffmpeg decodes to and encodes from, so the
// frame's colours are never converted). Pure functions: no I/O, deterministic, tested as data.
//
// Coordinates: u runs along the mouth (left corner -> right corner), v across it (down, toward the
// chin), both in pixels from the point between the inner lips. The lower lip and the jaw below it move
// by `delta` times a lens-shaped profile (full in the middle, nothing at the corners), tapering to zero
// at the region's edge below the chin; the upper lip moves a little the other way. Where the lips part
// further than they were, the gap is filled with the stretched inside of the mouth, darkened toward the
// colour of an open mouth. Outside the region (a band around the mouth from under the nose to below the
// chin) nothing changes, and the displacement falls to zero at its border, so there is no seam.
import type { Point } from '../../types';

export interface MouthGeometry {
  /** The point between the inner lips, image pixels. */
  cx: number;
  cy: number;
  /** Unit vector from the left to the right mouth corner. */
  ex: number;
  ey: number;
  /** Corner-to-corner distance, pixels. */
  width: number;
  /** Current distance between the inner lips (>= 0), pixels. */
  gap: number;
  /** v of the top of the upper lip (negative), the bottom of the lower lip, the chin, the nose base. */
  upperTop: number;
  lowerBottom: number;
  chin: number;
  nose: number;
}

const sub = (a: Point, b: Point): Point => [a[0] - b[0], a[1] - b[1]];
const avg = (...ps: Point[]): Point => [ps.reduce((s, p) => s + p[0], 0) / ps.length, ps.reduce((s, p) => s + p[1], 0) / ps.length];

/** Mouth opening of a face: the mean inner-lip distance divided by the mouth width (0 = closed). */
export function mouthOpening(l: readonly Point[]): number {
  const w = Math.hypot(l[54]![0] - l[48]![0], l[54]![1] - l[48]![1]);
  if (!(w > 0)) return 0;
  const d = (a: number, b: number) => Math.hypot(l[a]![0] - l[b]![0], l[a]![1] - l[b]![1]);
  return (d(61, 67) + d(62, 66) + d(63, 65)) / 3 / w;
}

export function mouthGeometry(l: readonly Point[]): MouthGeometry {
  if (l.length < 68) throw new Error(`68 landmarks needed, got ${l.length}`);
  const left = l[48]!;
  const right = l[54]!;
  const width = Math.hypot(right[0] - left[0], right[1] - left[1]);
  const ex = width > 0 ? (right[0] - left[0]) / width : 1;
  const ey = width > 0 ? (right[1] - left[1]) / width : 0;
  const upperInner = avg(l[61]!, l[62]!, l[63]!);
  const lowerInner = avg(l[65]!, l[66]!, l[67]!);
  const [cx, cy] = avg(upperInner, lowerInner);
  // v of a point: its projection on the normal (-ey, ex), which points down for an upright face.
  const v = (p: Point) => {
    const [dx, dy] = sub(p, [cx, cy]);
    return -dx * ey + dy * ex;
  };
  return {
    cx,
    cy,
    ex,
    ey,
    width,
    gap: Math.max(0, v(lowerInner) - v(upperInner)),
    upperTop: Math.min(v(l[50]!), v(l[51]!), v(l[52]!)),
    lowerBottom: Math.max(v(l[56]!), v(l[57]!), v(l[58]!)),
    chin: v(l[8]!),
    nose: v(l[33]!),
  };
}

/** Averages several geometries of the same mouth (temporal smoothing against landmark jitter). */
export function meanGeometry(gs: readonly MouthGeometry[]): MouthGeometry {
  const n = gs.length;
  const m = (k: keyof MouthGeometry) => gs.reduce((s, g) => s + g[k], 0) / n;
  const ex = m('ex');
  const ey = m('ey');
  const norm = Math.hypot(ex, ey) || 1;
  return {
    cx: m('cx'), cy: m('cy'), ex: ex / norm, ey: ey / norm, width: m('width'), gap: m('gap'),
    upperTop: m('upperTop'), lowerBottom: m('lowerBottom'), chin: m('chin'), nose: m('nose'),
  };
}

/** Limits of the warped band in (u, v). */
export function warpBand(g: MouthGeometry): { uMax: number; vTop: number; vBot: number } {
  const w = g.width;
  return {
    uMax: (w / 2) * 1.6,
    // From a little above the upper lip, never above the nose base, ...
    vTop: Math.max(g.upperTop - 0.25 * w, g.nose * 0.8, -0.9 * w),
    // ... to a little below the chin.
    vBot: Math.min(Math.max(g.chin, g.lowerBottom + 0.2 * w) + 0.3 * w, 2.2 * w),
  };
}

export interface Rect {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Axis-aligned bounds (image pixels, not clipped) of everything the warp of `g` may change. */
export function warpBounds(g: MouthGeometry): Rect {
  const { uMax, vTop, vBot } = warpBand(g);
  const xs: number[] = [];
  const ys: number[] = [];
  for (const u of [-uMax, uMax]) {
    for (const v of [vTop, vBot]) {
      xs.push(g.cx + u * g.ex - v * g.ey);
      ys.push(g.cy + u * g.ey + v * g.ex);
    }
  }
  return { x0: Math.floor(Math.min(...xs)), y0: Math.floor(Math.min(...ys)), x1: Math.ceil(Math.max(...xs)), y1: Math.ceil(Math.max(...ys)) };
}

/**
 * How far the mouth (lips, corners and a margin) is inside the frame, 0..1: 1 when it keeps a margin of 15 %
 * of the mouth width from every border, falling to 0 as it reaches a border. A face leaving the frame fades
 * out, and a mouth cut by the border is never warped. (The band below the chin may run off the frame: it
 * is clipped there, which leaves no seam.)
 */
export function insideFactor(g: MouthGeometry, width: number, height: number): number {
  const a = (g.width / 2) * 1.2;
  const xs: number[] = [];
  const ys: number[] = [];
  for (const u of [-a, a]) {
    for (const v of [g.upperTop - 0.1 * g.width, g.lowerBottom + 0.15 * g.width]) {
      xs.push(g.cx + u * g.ex - v * g.ey);
      ys.push(g.cy + u * g.ey + v * g.ex);
    }
  }
  const margin = Math.min(Math.min(...xs), Math.min(...ys), width - 1 - Math.max(...xs), height - 1 - Math.max(...ys));
  return Math.max(0, Math.min(1, margin / Math.max(1, 0.15 * g.width)));
}

const smooth = (t: number) => (t <= 0 ? 0 : t >= 1 ? 1 : t * t * (3 - 2 * t));

/** Colour of the inside of an open mouth (video-range YUV). */
export const CAVITY_YUV: readonly [number, number, number] = [34, 122, 142];
/** Share of the cavity colour at full opening (some texture of the stretched mouth stays). */
const CAVITY_MAX_ALPHA = 0.82;

interface Mapping {
  /** Source position (image pixels). */
  xs: number;
  ys: number;
  /** Share of the cavity colour, 0..1. */
  dark: number;
}

/** Where the output pixel (x, y) takes its value from, or null when it does not change. */
function mapPoint(g: MouthGeometry, band: ReturnType<typeof warpBand>, delta: number, x: number, y: number): Mapping | null {
  const dx = x - g.cx;
  const dy = y - g.cy;
  const u = dx * g.ex + dy * g.ey;
  const v = -dx * g.ey + dy * g.ex;
  if (v <= band.vTop || v >= band.vBot || Math.abs(u) >= band.uMax) return null;
  const a = g.width / 2;
  const half = g.gap / 2;
  const lower = v >= 0;
  // Taper across the band: rigid over the lip itself, then smoothly to zero at the band's edge.
  const lipEdge = lower ? Math.max(g.lowerBottom, half + 1) : Math.min(g.upperTop, -half - 1);
  const end = lower ? band.vBot : band.vTop;
  const t = (v - lipEdge) / (end - lipEdge);
  const taper = 1 - smooth(t);
  // Lens profile along the mouth, widening toward the jaw.
  const hw = a * (1 + 0.6 * smooth(t));
  const x01 = u / hw;
  if (Math.abs(x01) >= 1 || taper <= 0) return null;
  const lens = Math.cos((Math.PI / 2) * x01);
  const share = lower ? 0.8 : 0.2;
  const d = delta * share * lens * taper;
  if (Math.abs(d) < 1e-3) return null;
  // The lip edges after the warp (at this u): the gap widens by delta * lens0 (lens0 = the lip's own profile).
  const lens0 = Math.abs(u) < a ? Math.cos((Math.PI / 2) * (u / a)) : 0;
  const newLow = half + delta * 0.8 * lens0;
  const newUp = -half - delta * 0.2 * lens0;
  if (delta > 0 && v > newUp && v < newLow) {
    // Inside the opened mouth: the original gap (or the seam between closed lips) stretched over it, darkened.
    const span = newLow - newUp;
    const r = (v - newUp) / span; // 0 at the upper lip, 1 at the lower lip
    const vs = -half + r * g.gap;
    const added = delta * lens0;
    const edge = Math.min(v - newUp, newLow - v); // pixels to the nearest lip edge
    const dark = CAVITY_MAX_ALPHA * smooth(added / Math.max(2, 0.08 * g.width)) * smooth(edge / 1.5);
    return { xs: g.cx + u * g.ex - vs * g.ey, ys: g.cy + u * g.ey + vs * g.ex, dark };
  }
  // Lips and skin: lower part moves down by d (sample from above), upper part moves up.
  const vs = lower ? v - d : v + d;
  return { xs: g.cx + u * g.ex - vs * g.ey, ys: g.cy + u * g.ey + vs * g.ex, dark: 0 };
}

function bilinear(plane: Uint8Array, offset: number, w: number, h: number, x: number, y: number): number {
  const xc = Math.min(Math.max(x, 0), w - 1);
  const yc = Math.min(Math.max(y, 0), h - 1);
  const x0 = Math.floor(xc);
  const y0 = Math.floor(yc);
  const x1 = Math.min(x0 + 1, w - 1);
  const y1 = Math.min(y0 + 1, h - 1);
  const fx = xc - x0;
  const fy = yc - y0;
  const a = plane[offset + y0 * w + x0]!;
  const b = plane[offset + y0 * w + x1]!;
  const c = plane[offset + y1 * w + x0]!;
  const d = plane[offset + y1 * w + x1]!;
  return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy;
}

/**
 * Opens (delta > 0) or closes (delta < 0) the mouth of `g` by `delta` pixels in a yuv420p frame, in
 * place. Returns the rectangle of luma pixels it may have changed (clipped to the frame), or null when
 * nothing changed.
 */
export function warpMouthYuv420(frame: Uint8Array, width: number, height: number, g: MouthGeometry, delta: number): Rect | null {
  if (!Number.isFinite(delta) || Math.abs(delta) < 0.25 || !(g.width > 4)) return null;
  const band = warpBand(g);
  const b = warpBounds(g);
  const x0 = Math.max(0, b.x0);
  const y0 = Math.max(0, b.y0);
  const x1 = Math.min(width - 1, b.x1);
  const y1 = Math.min(height - 1, b.y1);
  if (x0 > x1 || y0 > y1) return null;
  // Read from a copy so the warp never samples pixels it already moved.
  const src = Uint8Array.from(frame);
  const cw = width >> 1;
  const ch = height >> 1;
  const uOff = width * height;
  const vOff = uOff + cw * ch;
  for (let y = y0; y <= y1; y++) {
    for (let x = x0; x <= x1; x++) {
      const m = mapPoint(g, band, delta, x, y);
      if (!m) continue;
      const val = bilinear(src, 0, width, height, m.xs, m.ys);
      frame[y * width + x] = Math.round(val * (1 - m.dark) + CAVITY_YUV[0] * m.dark);
    }
  }
  // Chroma: each sample sits at the centre of its 2x2 luma block.
  for (let j = y0 >> 1; j <= y1 >> 1 && j < ch; j++) {
    for (let i = x0 >> 1; i <= x1 >> 1 && i < cw; i++) {
      const m = mapPoint(g, band, delta, 2 * i + 0.5, 2 * j + 0.5);
      if (!m) continue;
      const sx = (m.xs - 0.5) / 2;
      const sy = (m.ys - 0.5) / 2;
      const uVal = bilinear(src, uOff, cw, ch, sx, sy);
      const vVal = bilinear(src, vOff, cw, ch, sx, sy);
      frame[uOff + j * cw + i] = Math.round(uVal * (1 - m.dark) + CAVITY_YUV[1] * m.dark);
      frame[vOff + j * cw + i] = Math.round(vVal * (1 - m.dark) + CAVITY_YUV[2] * m.dark);
    }
  }
  return { x0: x0 & ~1, y0: y0 & ~1, x1: Math.min(width - 1, x1 | 1), y1: Math.min(height - 1, y1 | 1) };
}

/** Landmarks scaled from analysis pixels to render pixels. */
export function scalePoints(l: readonly Point[], sx: number, sy: number): Point[] {
  return l.map(([x, y]) => [x * sx, y * sy]);
}
