// The built-in lip-sync engine (offline, CPU). Two passes over the dubbed video:
//  1. analysis: frames at most 640 px wide go through the face engine (the detector until faces are found, then
//     every 2 s and where the tracker lost one; 68-point landmarks on every frame) -> face tracks; tracks are matched to the dub's speakers;
//  2. render: full-size yuv420p frames; on every frame where a matched face's speaker talks in the dub,
//     the mouth is opened or closed to the opening the dub's voice asks for at that moment (its level),
//     with a feathered warp of the region around the mouth. Every other frame, and every pixel outside
//     the mouth regions, goes to the encoder exactly as it was decoded.
// The output is an H.264/AAC MP4 with the dub's soundtrack, the same size, rate and duration.
import { openFrameWriter, readFrames, videoGeometry, fitSize } from '../../../media/frames';
import { EngineError, type EngineCallOptions, type FaceEngine, type LipsyncEngine, type LipsyncRequest, type LipsyncResult, type Point } from '../../types';
import { mouthOpeningsFromVoice } from './envelope';
import { insideFactor, meanGeometry, mouthGeometry, scalePoints, warpMouthYuv420, type MouthGeometry } from './mouth';
import { activeTracks, planSpeakers } from './speakers';
import { pointsAt, trackFaces, type FaceTrack } from './tracks';

export const BUILTIN_LIPSYNC_ID = 'builtin-lipsync';

export interface BuiltinLipsyncOptions {
  /** Longer side of the analysis frames (default 640). */
  analysisMaxSide?: number;
  /** Detector runs every this many seconds while no face is followed (default 0.24 s). */
  keyIntervalSec?: number;
  /** While faces are followed, the detector looks for new ones every this many seconds (default 2 s). */
  rescanIntervalSec?: number;
  /** Widest opening, as a share of the mouth width (default 0.34). */
  maxOpening?: number;
  /** Faces narrower than this in the source video (pixels) are left alone (default 40). */
  minFacePx?: number;
}

/** Smallest face (jaw width, source pixels) the built-in lip-sync animates. */
export const MIN_FACE_PX = 40;

export function createBuiltinLipsync(face: FaceEngine, opts: BuiltinLipsyncOptions = {}): LipsyncEngine {
  return {
    id: BUILTIN_LIPSYNC_ID,
    label: 'Built-in mouth warp driven by the dub (offline, CPU)',
    init: () => face.init?.() ?? Promise.resolve(),
    available: () => (face.available ? face.available() : true),
    async lipsync(req: LipsyncRequest, o: EngineCallOptions = {}): Promise<LipsyncResult> {
      return runBuiltinLipsync(face, req, { ...opts, signal: o.signal });
    },
  };
}

async function runBuiltinLipsync(face: FaceEngine, req: LipsyncRequest, o: BuiltinLipsyncOptions & { signal?: AbortSignal }): Promise<LipsyncResult> {
  const geo = await videoGeometry(req.video, { signal: o.signal });
  const analysis = fitSize(geo.width, geo.height, o.analysisMaxSide ?? 640);
  const minFace = o.minFacePx ?? MIN_FACE_PX;
  const progress = throttle(req.onProgress);
  // Frame count is only known after decoding; the probe's estimate drives the progress.
  const expected = geo.frames;

  // 1. Analysis.
  const { tracks, frames } = await trackFaces(
    readFrames(req.video, { ...analysis, pixFmt: 'rgb24', fps: geo.rate, signal: o.signal }),
    face,
    {
      ...analysis,
      keyEvery: Math.max(1, Math.round((o.keyIntervalSec ?? 0.24) * geo.fps)),
      rescanEvery: Math.max(1, Math.round((o.rescanIntervalSec ?? 2) * geo.fps)),
      minFacePx: Math.max(12, (minFace * analysis.width) / geo.width),
      signal: o.signal,
      onFrame: (i) => progress(0.6 * Math.min(1, (i + 1) / expected)),
    },
  );
  if (tracks.length === 0) {
    throw new EngineError('no_face', 'No face large enough for lip-sync was found in the video');
  }
  const plan = planSpeakers(tracks, req.turns, geo.fps, frames, req.multipleSpeakers);
  const openings = mouthOpeningsFromVoice(req.voice, geo.fps, frames);
  const maxOpening = o.maxOpening ?? 0.34;
  const sx = geo.evenWidth / analysis.width;
  const sy = geo.evenHeight / analysis.height;

  // Smoothed mouth geometry of a track at a frame (mean of the frame and its neighbours), render pixels.
  const geometryAt = (t: FaceTrack, f: number): MouthGeometry | null => {
    const own = pointsAt(t, f);
    if (!own) return null;
    const gs: MouthGeometry[] = [];
    for (let k = f - 1; k <= f + 1; k++) {
      const p: Point[] | null = pointsAt(t, k);
      if (p) gs.push(mouthGeometry(scalePoints(p, sx, sy)));
    }
    return meanGeometry(gs);
  };

  // 2. Render.
  const writer = openFrameWriter({
    width: geo.evenWidth,
    height: geo.evenHeight,
    fps: geo.rate,
    audioFrom: req.audio ?? req.video,
    out: req.outPath,
    durationSec: geo.durationSec,
    color: geo.probe.color,
    signal: o.signal,
  });
  let f = 0;
  let changed = 0;
  const used = new Set<number>();
  try {
    for await (const frame of readFrames(req.video, { width: geo.evenWidth, height: geo.evenHeight, pixFmt: 'yuv420p', fps: geo.rate, signal: o.signal })) {
      let touched = false;
      for (const { track, weight } of activeTracks(plan, tracks, req.turns, f, geo.fps)) {
        const g = geometryAt(track, f);
        if (!g || g.width < minFace * 0.3) continue;
        const inside = insideFactor(g, geo.evenWidth, geo.evenHeight);
        if (inside <= 0) continue;
        const target = (openings[f] ?? 0) * maxOpening * g.width;
        const delta = (target - g.gap) * weight * inside;
        if (warpMouthYuv420(frame, geo.evenWidth, geo.evenHeight, g, delta)) {
          touched = true;
          used.add(track.id);
        }
      }
      if (touched) changed++;
      await writer.write(frame);
      f++;
      progress(0.6 + 0.4 * Math.min(1, f / Math.max(1, frames)));
    }
    await writer.finish();
  } catch (e) {
    writer.abort();
    throw e;
  }
  progress(1, true);
  const speakerFaces: Record<string, number> = {};
  for (const [s, ids] of plan.bySpeaker) {
    const first = ids.find((id) => used.has(id));
    if (first !== undefined) speakerFaces[s] = first;
  }
  return { engine: BUILTIN_LIPSYNC_ID, frames: f, framesChanged: changed, faces: tracks.length, speakerFaces };
}

/** Calls `fn` at most every 250 ms (and always when forced). */
function throttle(fn?: (x: number) => void): (x: number, force?: boolean) => void {
  let last = 0;
  return (x, force) => {
    if (!fn) return;
    const now = Date.now();
    if (!force && now - last < 250) return;
    last = now;
    fn(Math.max(0, Math.min(1, x)));
  };
}
