// Mouth-audio synchrony of a video: per frame, the mouth opening of its main face as the landmark
// detector sees it, correlated with the speech envelope of a voice track at the same frames. Used by the
// lip-sync benchmark and tests to compare a dubbed video with and without lip-sync.
import { fitSize, readFrames, videoGeometry } from '../../../media/frames';
import type { FaceEngine } from '../../types';
import { correlation, mouthOpeningsFromVoice } from './envelope';
import { mouthOpening } from './mouth';
import { pointsAt, trackFaces } from './tracks';

export interface SyncMeasure {
  /** Pearson correlation of mouth opening and speech envelope over the frames where the face was seen. */
  correlation: number;
  frames: number;
  framesWithFace: number;
  /** Per-frame mouth opening (NaN where no face) and envelope, for plots. */
  openings: number[];
  envelope: number[];
}

export async function measureMouthSync(video: string, voice: string, face: FaceEngine, o: { signal?: AbortSignal; maxSide?: number } = {}): Promise<SyncMeasure> {
  const geo = await videoGeometry(video, o);
  const size = fitSize(geo.width, geo.height, o.maxSide ?? 640);
  const { tracks, frames } = await trackFaces(readFrames(video, { ...size, pixFmt: 'rgb24', fps: geo.rate, signal: o.signal }), face, {
    ...size,
    keyEvery: Math.max(1, Math.round(0.24 * geo.fps)),
    signal: o.signal,
  });
  const env = mouthOpeningsFromVoice(voice, geo.fps, frames);
  const main = [...tracks].sort((a, b) => b.points.filter(Boolean).length * b.meanWidth - a.points.filter(Boolean).length * a.meanWidth)[0];
  const openings: number[] = [];
  const a: number[] = [];
  const b: number[] = [];
  for (let f = 0; f < frames; f++) {
    const p = main ? pointsAt(main, f) : null;
    const op = p ? mouthOpening(p) : NaN;
    openings.push(op);
    if (p) {
      a.push(op);
      b.push(env[f]!);
    }
  }
  return { correlation: correlation(a, b), frames, framesWithFace: a.length, openings, envelope: Array.from(env) };
}
