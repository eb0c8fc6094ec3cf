// Pure parts of lip-sync: the mouth warp changes nothing outside its region and nothing at delta 0, opens a
// gap between the lips; the face check's summary; the voice -> opening mapping; speaker <-> face matching.
import { describe, expect, it } from 'vitest';
import { openingsFromRms, correlation } from '../../../server/engines/builtin/lipsync/envelope';
import { insideFactor, mouthGeometry, warpBounds, warpMouthYuv420, type MouthGeometry } from '../../../server/engines/builtin/lipsync/mouth';
import { activeTracks, planSpeakers, speakerWeights } from '../../../server/engines/builtin/lipsync/speakers';
import { trackFaces, type FaceTrack } from '../../../server/engines/builtin/lipsync/tracks';
import type { Point } from '../../../server/engines/types';
import { summarizeFaceCheck } from '../../../server/domains/projects/stages/lipsync';
import { decodeFramesArgs, encodeFramesArgs } from '../../../server/media/args';

/** 68 landmarks of an upright face whose mouth is `w` wide at (cx, cy), lips `gap` apart. */
function face(cx: number, cy: number, w: number, gap = 0): Point[] {
  const p: Point[] = Array.from({ length: 68 }, () => [cx, cy] as Point);
  for (let i = 0; i <= 16; i++) p[i] = [cx - w * 1.3 + (i / 16) * w * 2.6, cy - w * 0.6 + Math.sin((i / 16) * Math.PI) * w * 1.1];
  p[8] = [cx, cy + w * 0.55];
  p[33] = [cx, cy - w * 0.45];
  p[48] = [cx - w / 2, cy];
  p[54] = [cx + w / 2, cy];
  for (const i of [50, 51, 52]) p[i] = [cx + (i - 51) * w * 0.15, cy - gap / 2 - w * 0.12];
  for (const i of [56, 57, 58]) p[i] = [cx + (57 - i) * w * 0.15, cy + gap / 2 + w * 0.14];
  for (const i of [61, 62, 63]) p[i] = [cx + (i - 62) * w * 0.15, cy - gap / 2];
  for (const i of [65, 66, 67]) p[i] = [cx + (66 - i) * w * 0.15, cy + gap / 2];
  return p;
}

function testFrame(w: number, h: number): Uint8Array {
  const f = new Uint8Array((w * h * 3) / 2);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) f[y * w + x] = (x * 7 + y * 13) % 200 + 30;
  for (let i = w * h; i < f.length; i++) f[i] = 100 + (i % 50);
  return f;
}

describe('mouth warp', () => {
  const W = 320;
  const H = 240;
  const g = mouthGeometry(face(160, 150, 60));

  it('opens the mouth inside its region and leaves every pixel outside it as it was', () => {
    const src = testFrame(W, H);
    const out = Uint8Array.from(src);
    const rect = warpMouthYuv420(out, W, H, g, 0.3 * g.width)!;
    expect(rect).not.toBeNull();
    let changedInside = 0;
    let changedOutside = 0;
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        const inside = x >= rect.x0 && x <= rect.x1 && y >= rect.y0 && y <= rect.y1;
        if (out[i] !== src[i]) {
          if (inside) changedInside++;
          else changedOutside++;
        }
      }
    }
    expect(changedOutside).toBe(0);
    expect(changedInside).toBeGreaterThan(200);
    // The middle of the new gap is dark (the inside of the mouth).
    expect(out[Math.round(g.cy + 0.12 * g.width) * W + Math.round(g.cx)]!).toBeLessThan(90);
    // Chroma outside the region's blocks is untouched too.
    const cw = W / 2;
    let chromaOutside = 0;
    for (let j = 0; j < H / 2; j++) {
      for (let i = 0; i < cw; i++) {
        if (2 * i >= rect.x0 && 2 * i <= rect.x1 && 2 * j >= rect.y0 && 2 * j <= rect.y1) continue;
        for (const off of [W * H, W * H + cw * (H / 2)]) if (out[off + j * cw + i] !== src[off + j * cw + i]) chromaOutside++;
      }
    }
    expect(chromaOutside).toBe(0);
  });

  it('changes nothing for a tiny delta, and the bounds cover the band from under the nose to below the chin', () => {
    const src = testFrame(W, H);
    const out = Uint8Array.from(src);
    expect(warpMouthYuv420(out, W, H, g, 0.1)).toBeNull();
    expect(Buffer.compare(Buffer.from(out), Buffer.from(src))).toBe(0);
    const b = warpBounds(g);
    expect(b.y0).toBeGreaterThan(150 - 0.45 * 60 - 1);
    expect(b.y1).toBeGreaterThan(150 + 0.55 * 60);
  });

  it('fades out a mouth reaching the border of the frame', () => {
    expect(insideFactor(g, W, H)).toBe(1);
    const atEdge: MouthGeometry = { ...g, cx: 20 };
    expect(insideFactor(atEdge, W, H)).toBe(0);
  });
});

describe('face check summary', () => {
  it('one face in most frames', () => {
    const s = summarizeFaceCheck([...Array(9).fill({ usable: 1, small: 0 }), { usable: 0, small: 0 }]);
    expect(s).toMatchObject({ faces_found: 1, face_share: 0.9, multiple_faces: false, lipsync_possible: true, frames_checked: 10 });
  });
  it('two faces seen together in at least two frames; one stray detection is not a second person', () => {
    expect(summarizeFaceCheck([{ usable: 2, small: 0 }, { usable: 2, small: 0 }, { usable: 1, small: 0 }])).toMatchObject({ faces_found: 2, multiple_faces: true });
    expect(summarizeFaceCheck([{ usable: 2, small: 0 }, { usable: 1, small: 0 }, { usable: 1, small: 0 }])).toMatchObject({ faces_found: 1, multiple_faces: false });
  });
  it('no face, faces too small, and a face in too few frames are not offered lip-sync', () => {
    expect(summarizeFaceCheck(Array(8).fill({ usable: 0, small: 0 }))).toMatchObject({ faces_found: 0, lipsync_possible: false, message: expect.stringMatching(/No face/) });
    expect(summarizeFaceCheck(Array(8).fill({ usable: 0, small: 1 }))).toMatchObject({ small_faces: true, lipsync_possible: false });
    expect(summarizeFaceCheck([...Array(19).fill({ usable: 0, small: 0 }), { usable: 1, small: 0 }])).toMatchObject({ faces_found: 1, lipsync_possible: false });
  });
});

describe('voice -> mouth opening', () => {
  it('follows the level of the voice, closed in silence', () => {
    const hop = 0.01;
    const rms = new Float32Array(200);
    for (let i = 0; i < 200; i++) rms[i] = i < 40 ? 0 : 0.2 * (0.5 + 0.5 * Math.sin(i / 5));
    const o = openingsFromRms(rms, hop, 25, 50);
    expect(o[2]).toBe(0);
    expect(Math.max(...o)).toBeGreaterThan(0.8);
    const level = Array.from({ length: 50 }, (_, f) => rms[Math.min(199, Math.round((f / 25) * 100))]!);
    expect(correlation(o.slice(12), level.slice(12))).toBeGreaterThan(0.7);
  });
});

describe('speakers and faces', () => {
  const track = (id: number, x: number, width: number, motionIn: [number, number] | null, frames = 100): FaceTrack => ({
    id, first: 0, meanWidth: width, meanX: x,
    points: Array.from({ length: frames }, (_, f) => face(x, 100, 40, motionIn && f >= motionIn[0] && f < motionIn[1] ? (f % 2) * 8 : 0)),
  });
  const turns = [{ speaker: 'A', start: 0, end: 2 }, { speaker: 'B', start: 2, end: 3.2 }];

  it('with several speakers each face speaks for the speaker its mouth moved with', () => {
    const left = track(0, 80, 50, [50, 80]); // moves during B
    const right = track(1, 240, 50, [0, 50]); // moves during A
    const plan = planSpeakers([left, right], turns, 25, 100, true);
    expect(plan.bySpeaker.get('A')).toEqual([1]);
    expect(plan.bySpeaker.get('B')).toEqual([0]);
    expect(activeTracks(plan, [left, right], turns, 10, 25).map((t) => t.track.id)).toEqual([1]);
    expect(activeTracks(plan, [left, right], turns, 90, 25)).toEqual([]);
  });

  it('with one speaker only the most active (else the largest) face moves', () => {
    const small = track(0, 80, 30, null);
    const big = track(1, 240, 60, null);
    const plan = planSpeakers([small, big], turns, 25, 100, false);
    expect(activeTracks(plan, [small, big], turns, 10, 25).map((t) => t.track.id)).toEqual([1]);
    expect(speakerWeights(turns, 3.25).get('B')).toBeCloseTo(0.5, 5);
  });
});

describe('frame argument builders', () => {
  it('decode to raw frames of a fixed size and rate, encode raw yuv420p with the colour tags', () => {
    expect(decodeFramesArgs('in.mp4', { width: 640, height: 360, pixFmt: 'rgb24', fps: '30000/1001' })).toEqual([
      '-nostdin', '-hide_banner', '-loglevel', 'error', '-y', '-i', 'in.mp4', '-map', '0:v:0', '-an', '-sn', '-dn',
      '-vf', 'fps=30000/1001,scale=640:360:flags=area,format=rgb24', '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1',
    ]);
    const enc = encodeFramesArgs({ width: 640, height: 360, fps: '25', audioFrom: 'dub.m4a', out: 'o.mp4', durationSec: 4, color: { space: 'bt709', range: 'tv' } });
    expect(enc.slice(5, 17)).toEqual(['-f', 'rawvideo', '-pix_fmt', 'yuv420p', '-s', '640x360', '-r', '25', '-colorspace', 'bt709', '-color_range', 'tv']);
    expect(enc).toContain('dub.m4a');
    expect(enc.slice(-3)).toEqual(['-f', 'mp4', 'o.mp4']);
  });
});

describe('face tracking: the detector only where it is needed', () => {
  // A scripted face engine: one face at (160, 120), present on every frame except `gone`; the landmark net loses
  // it on `lostAt` (a jump), and each call is recorded by frame index.
  function scripted(o: { gone?: Set<number>; lostAt?: number }) {
    const detects: number[] = [];
    let frame = 0;
    const pts = (dx = 0) => face(160 + dx, 120, 40);
    const engine = {
      id: 'scripted',
      label: 'scripted',
      async detect() {
        detects.push(frame);
        if (o.gone?.has(frame)) return [];
        return [{ box: { x: 100, y: 60, width: 120, height: 120 }, score: 0.9, landmarks: pts() }];
      },
      async landmarks(_img: unknown, boxes: unknown[]) {
        if (o.gone?.has(frame)) return boxes.map(() => null as unknown as Point[]);
        return boxes.map(() => pts(frame === o.lostAt ? 80 : 0));
      },
    };
    async function* frames(n: number) {
      for (frame = 0; frame < n; frame++) yield new Uint8Array(4 * 4 * 3);
    }
    return { engine, detects, frames };
  }

  it('runs the detector every key interval until a face is found, then every rescan interval and after a loss', async () => {
    const s = scripted({ gone: new Set([0, 1, 2, 3, 4, 5, 6]), lostAt: 70 });
    const r = await trackFaces(s.frames(130), s.engine as never, { width: 320, height: 240, keyEvery: 6, rescanEvery: 50 });
    // no face on 0 and 6: every 6 frames; found on 12; then every 50 frames (62, 112) and on the frame after the
    // landmark net lost the face (70 -> 71), which resets the schedule (121).
    expect(s.detects).toEqual([0, 6, 12, 62, 71, 121]);
    expect(r.frames).toBe(130);
    expect(r.tracks.length).toBe(2); // the track lost on 70 ends there; the detection on 71 starts another
    expect(r.tracks[0]!.first).toBe(12);
  });

  it('without a rescan interval the detector runs on every key frame (as the synchrony measure uses it)', async () => {
    const s = scripted({});
    await trackFaces(s.frames(30), s.engine as never, { width: 320, height: 240, keyEvery: 6 });
    expect(s.detects).toEqual([0, 6, 12, 18, 24]);
  });
});
