// Face tracks through a video: the detector looks for faces a few times a second until it finds some; the
// 68-point landmark net then follows each face on every frame from the box of the previous frame, and the
// detector runs again only now and then (`rescanEvery`, for faces that come in) and right after the net lost a
// face. A face that a detection does not find again ends its track (its last frames are dropped, the face may
// already be leaving); a face whose landmarks jump or change size abruptly ends there too.
import type { FaceBox, FaceEngine, Point } from '../../types';

export interface FaceTrack {
  id: number;
  /** Frame index of the first entry of `points`. */
  first: number;
  /** 68 landmarks (analysis pixels) per frame from `first`, null where the face was not followed. */
  points: Array<Point[] | null>;
  /** Mean jaw width and its centre x over the track (analysis pixels). */
  meanWidth: number;
  meanX: number;
}

export interface TrackOptions {
  width: number;
  height: number;
  /** Detector every this many frames while no face is followed (default 6). */
  keyEvery?: number;
  /**
   * While faces are followed, the detector runs only every this many frames (to find faces that come in) and on
   * the frame after the landmark net lost one; default `keyEvery` (the detector on every key frame).
   */
  rescanEvery?: number;
  /** Faces narrower than this (analysis pixels) are ignored (default 24). */
  minFacePx?: number;
  minScore?: number;
  signal?: AbortSignal;
  /** Called after each frame with its index. */
  onFrame?: (index: number) => void;
}

interface Live {
  track: FaceTrack;
  /** Box, centroid and spread at the last detection. */
  keyBox: FaceBox;
  keyC: Point;
  keyS: number;
  /** Centroid and spread now. */
  c: Point;
  s: number;
  lastDetected: number;
}

function centroid(l: readonly Point[]): { c: Point; s: number } {
  let x = 0;
  let y = 0;
  for (const p of l) {
    x += p[0];
    y += p[1];
  }
  x /= l.length;
  y /= l.length;
  let s = 0;
  for (const p of l) s += (p[0] - x) ** 2 + (p[1] - y) ** 2;
  return { c: [x, y], s: Math.sqrt(s / l.length) };
}

export function iou(a: FaceBox, b: FaceBox): number {
  const x0 = Math.max(a.x, b.x);
  const y0 = Math.max(a.y, b.y);
  const x1 = Math.min(a.x + a.width, b.x + b.width);
  const y1 = Math.min(a.y + a.height, b.y + b.height);
  const inter = Math.max(0, x1 - x0) * Math.max(0, y1 - y0);
  const union = a.width * a.height + b.width * b.height - inter;
  return union > 0 ? inter / union : 0;
}

function predictBox(l: Live): FaceBox {
  const k = l.s / l.keyS;
  return {
    x: l.c[0] + (l.keyBox.x - l.keyC[0]) * k,
    y: l.c[1] + (l.keyBox.y - l.keyC[1]) * k,
    width: l.keyBox.width * k,
    height: l.keyBox.height * k,
  };
}

/** Follows every face through the frames (RGB, `width`x`height`); returns the tracks and the frame count. */
export async function trackFaces(
  frames: AsyncIterable<Uint8Array>,
  face: FaceEngine,
  o: TrackOptions,
): Promise<{ tracks: FaceTrack[]; frames: number }> {
  const keyEvery = Math.max(1, o.keyEvery ?? 6);
  const rescanEvery = Math.max(keyEvery, o.rescanEvery ?? keyEvery);
  let lastScan = -Infinity;
  let lost = false;
  const minFace = o.minFacePx ?? 24;
  const all: FaceTrack[] = [];
  let live: Live[] = [];
  let nextId = 0;
  let i = 0;
  const set = (l: Live, index: number, pts: Point[] | null) => {
    const t = l.track;
    while (t.first + t.points.length < index) t.points.push(null);
    t.points.push(pts);
  };
  const end = (l: Live, dropAfter: number) => {
    const t = l.track;
    t.points.length = Math.max(0, Math.min(t.points.length, dropAfter - t.first + 1));
    while (t.points.length && t.points[t.points.length - 1] === null) t.points.pop();
  };
  for await (const data of frames) {
    if (o.signal?.aborted) throw o.signal.reason instanceof Error ? o.signal.reason : new DOMException('aborted', 'AbortError');
    const img = { data, width: o.width, height: o.height };
    const scan = live.length === 0 ? i - lastScan >= keyEvery : lost || i - lastScan >= rescanEvery;
    if (scan) {
      lastScan = i;
      lost = false;
      const found = (await face.detect(img, { signal: o.signal, minScore: o.minScore })).filter((f) => f.box.width >= minFace);
      const pairs: Array<{ l: number; f: number; score: number }> = [];
      live.forEach((l, li) => {
        const pb = predictBox(l);
        found.forEach((f, fi) => {
          const s = iou(pb, f.box);
          if (s > 0.25) pairs.push({ l: li, f: fi, score: s });
        });
      });
      pairs.sort((a, b) => b.score - a.score);
      const usedL = new Set<number>();
      const usedF = new Set<number>();
      const next: Live[] = [];
      for (const p of pairs) {
        if (usedL.has(p.l) || usedF.has(p.f)) continue;
        usedL.add(p.l);
        usedF.add(p.f);
        const l = live[p.l]!;
        const f = found[p.f]!;
        const { c, s } = centroid(f.landmarks);
        Object.assign(l, { keyBox: f.box, keyC: c, keyS: s, c, s, lastDetected: i });
        set(l, i, f.landmarks);
        next.push(l);
      }
      // Faces not found again: their track ends; its last frames (half a key interval) are dropped, the face may
      // already have been leaving.
      live.forEach((l, li) => {
        if (!usedL.has(li)) end(l, Math.max(l.lastDetected, i - Math.ceil(keyEvery / 2)));
      });
      found.forEach((f, fi) => {
        if (usedF.has(fi)) return;
        const track: FaceTrack = { id: nextId++, first: i, points: [], meanWidth: 0, meanX: 0 };
        all.push(track);
        const { c, s } = centroid(f.landmarks);
        const l: Live = { track, keyBox: f.box, keyC: c, keyS: s, c, s, lastDetected: i };
        set(l, i, f.landmarks);
        next.push(l);
      });
      live = next;
    } else if (live.length) {
      const boxes = live.map(predictBox);
      const pts = await face.landmarks(img, boxes, { signal: o.signal });
      const next: Live[] = [];
      live.forEach((l, k) => {
        const p = pts[k];
        if (!p) {
          lost = true;
          return end(l, i - 1);
        }
        const { c, s } = centroid(p);
        const jump = Math.hypot(c[0] - l.c[0], c[1] - l.c[1]);
        // A jump or a sudden change of size: the net lost the face (it left, or something covered it).
        if (jump > 0.3 * boxes[k]!.width || s / l.s > 1.25 || s / l.s < 0.8) {
          lost = true;
          return end(l, i - 1);
        }
        l.c = c;
        l.s = s;
        set(l, i, p);
        next.push(l);
      });
      live = next;
    }
    o.onFrame?.(i);
    i++;
  }
  // Size and place of each face: jaw width (landmarks 0-16) and its middle, averaged over the track.
  for (const t of all) {
    const present = t.points.filter((p): p is Point[] => !!p);
    if (!present.length) continue;
    t.meanWidth = present.reduce((a, p) => a + (p[16]![0] - p[0]![0]), 0) / present.length;
    t.meanX = present.reduce((a, p) => a + (p[0]![0] + p[16]![0]) / 2, 0) / present.length;
  }
  return { tracks: all.filter((t) => t.points.some((p) => p)), frames: i };
}

/** The landmarks of a track at a frame, or null. */
export function pointsAt(t: FaceTrack, frame: number): Point[] | null {
  const k = frame - t.first;
  return k >= 0 && k < t.points.length ? t.points[k]! : null;
}
