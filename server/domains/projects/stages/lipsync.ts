// Side tasks of issue 14: the face check (how many faces, in what share of the video, more than one
// person?) and the lip-sync of the dubbed video. Neither changes the project's status: the face check
// writes projects.face_check, the lip-sync its lipsync_* columns (progress while it runs, a failure with
// its reason, the result). The dubbed video is never touched.
import { segmentsOf } from '../transcript/repository';
import { MIN_FACE_PX } from '../../../engines/builtin/lipsync/engine';
import { EngineError, type SpeechTurn } from '../../../engines/types';
import { num } from '../../../media/args';
import { burnSubtitles, muxVideo } from '../../../media/ffmpeg';
import { fitSize, readFrames, videoGeometry } from '../../../media/frames';
import { mediaUrl } from '../../../storage/index';
import { S3Storage } from '../../../storage/s3';
import type { ProjectStageContext } from './common';
import * as jobsRepo from '../pipeline/repository';
import type { VoiceoverStats } from './voiceover';
import { A, checkAborted, input, loadJson, save, scratch, timed } from './common';
import { ready } from '../../../engines/registry';

/** Frames the face check looks at: 2 per second, between 8 and 60. */
export function faceCheckSampleCount(durationSec: number): number {
  return Math.max(8, Math.min(60, Math.round(durationSec * 2)));
}

export interface FaceCheckResult {
  status: 'done';
  faces_found: number;
  face_share: number;
  multiple_faces: boolean;
  small_faces: boolean;
  frames_checked: number;
  lipsync_possible: boolean;
  message: string;
  checked_at: string;
  error: null;
}

/** Share of the sampled frames a face must appear in for lip-sync to be offered. */
export const MIN_FACE_SHARE = 0.1;

/**
 * The face check's answer from per-frame counts: faces large enough for lip-sync (`usable`) and faces
 * seen but too small (`small`). faces_found is the most faces seen together in at least two frames (one
 * when a single frame was sampled), so one false detection does not make a crowd.
 */
export function summarizeFaceCheck(perFrame: ReadonlyArray<{ usable: number; small: number }>, now = new Date()): FaceCheckResult {
  const n = perFrame.length;
  const withFace = perFrame.filter((f) => f.usable > 0).length;
  const share = n ? withFace / n : 0;
  const need = n <= 1 ? 1 : 2;
  let found = 0;
  for (let k = 1; k <= 20; k++) {
    if (perFrame.filter((f) => f.usable >= k).length >= need) found = k;
    else break;
  }
  if (found === 0 && withFace > 0) found = 1;
  const small = withFace === 0 && perFrame.some((f) => f.small > 0);
  const possible = found > 0 && share >= MIN_FACE_SHARE;
  const pct = Math.round(share * 100);
  let message: string;
  if (small) message = 'The faces in this video are too small for lip-sync.';
  else if (found === 0) message = 'No face was found in this video: lip-sync needs a visible face.';
  else if (!possible) message = `A face is visible in only ${pct}% of the video: too little for lip-sync.`;
  else if (found > 1) message = `${found} faces are on screen together (a face in ${pct}% of the video). Tell us whether several people speak.`;
  else message = `One face is visible in ${pct}% of the video: lip-sync can follow it.`;
  return {
    status: 'done',
    faces_found: found,
    face_share: Math.round(share * 1000) / 1000,
    multiple_faces: found > 1,
    small_faces: small,
    frames_checked: n,
    lipsync_possible: possible,
    message,
    checked_at: now.toISOString(),
    error: null,
  };
}

export async function checkFace(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  if (!project.original_video) throw new EngineError('bad_input', 'The project has no video to check');
  const video = await deps.storage.localFile(project.original_video);
  const geo = await videoGeometry(video, { signal: ctx.signal });
  const size = fitSize(geo.width, geo.height, 640);
  const samples = faceCheckSampleCount(geo.durationSec);
  const rate = num(samples / Math.max(geo.durationSec, 0.1), 6);
  const face = await ready(deps.engines.face);
  const minUsable = (MIN_FACE_PX * size.width) / geo.width;
  const perFrame: Array<{ usable: number; small: number }> = [];
  await timed(ctx, 'faces', async () => {
    for await (const frame of readFrames(video, { ...size, pixFmt: 'rgb24', fps: rate, signal: ctx.signal })) {
      const faces = await face.detect({ data: frame, width: size.width, height: size.height }, { signal: ctx.signal, minScore: 0.5 });
      const usable = faces.filter((f) => f.box.width >= minUsable).length;
      perFrame.push({ usable, small: faces.length - usable });
      if (perFrame.length >= samples) break;
    }
  });
  checkAborted(ctx);
  await jobsRepo.setFaceCheck(deps.db, project.id, { ...summarizeFaceCheck(perFrame) });
}

/** Who speaks when in the dub: each segment's speaker over the slot its voice was placed in. */
export async function dubTurns(ctx: ProjectStageContext): Promise<SpeechTurn[]> {
  const segs = await segmentsOf(ctx.deps.db, ctx.project.id);
  const stats = await loadJson<VoiceoverStats>(ctx, 'voiceover_stats.json');
  const placed = new Map((stats?.fitted ?? []).map((f) => [f.id, f]));
  return segs
    .filter((s) => s.dst_text.trim() !== '' && s.end_sec > s.start_sec)
    .map((s) => {
      const p = placed.get(s.id);
      return p && p.placedEnd > p.placedStart
        ? { speaker: s.speaker, start: p.placedStart, end: p.placedEnd }
        : { speaker: s.speaker, start: s.start_sec, end: s.end_sec };
    })
    .sort((a, b) => a.start - b.start);
}

export async function lipsync(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  if (!project.translated_video || !project.translated_audio) throw new EngineError('bad_input', 'Generate the dubbed video first');
  const video = await deps.storage.localFile(project.translated_video);
  const soundtrack = await deps.storage.localFile(project.translated_audio);
  const voice = await input(ctx, A.voiceTrack);
  const turns = await dubTurns(ctx);
  if (turns.length === 0) throw new EngineError('bad_input', 'The dub has no speech to follow');
  const engine = await ready(deps.engines.lipsync);
  // Hosted engines fetch the media by URL when the app has a public address (or a bucket), else it is uploaded.
  const reachable = !!deps.config.publicUrl || deps.storage instanceof S3Storage;
  const urls = reachable
    ? { video: mediaUrl(deps, project.translated_video), voice: mediaUrl(deps, `projects/${project.id}/${A.voiceTrack}`) }
    : undefined;
  let lastWrite = 0;
  const out = scratch(ctx, 'lipsync_raw.mp4');
  const result = await timed(ctx, `lipsync (${engine.id})`, () =>
    engine.lipsync(
      {
        video,
        voice,
        audio: soundtrack,
        turns,
        multipleSpeakers: project.lipsync_multiple_speakers,
        outPath: out,
        urls,
        requestKey: `${project.id}-lipsync-${project.lipsync_runs}`,
        onProgress: (x) => {
          const now = Date.now();
          if (now - lastWrite < 1000) return;
          lastWrite = now;
          void jobsRepo.setLipsyncProgress(deps.db, project.id, 2 + x * 93).catch(() => {});
        },
      },
      { signal: ctx.signal },
    ),
  );
  checkAborted(ctx);
  ctx.log('lipsync result', { projectId: project.id, ...result });
  // The output carries the dub's full soundtrack and the source's exact duration whatever the engine did.
  let final = out;
  if (result.engine !== 'builtin-lipsync') {
    final = scratch(ctx, A.lipsyncVideo);
    await timed(ctx, 'mux', () => muxVideo({ video: out, audio: soundtrack, out: final }, { signal: ctx.signal }));
  }
  const geo = await videoGeometry(final, { signal: ctx.signal });
  if (project.duration && Math.abs(geo.durationSec - project.duration) > 1) {
    throw new EngineError('failed', `The lip-synced video lasts ${geo.durationSec.toFixed(1)} s instead of ${project.duration.toFixed(1)} s`);
  }
  const resultKey = await save(ctx, A.lipsyncVideo, final, 'video/mp4');
  // Subtitles burned into the dubbed video are burned into the lip-synced one too.
  let burnedKey: string | null = null;
  if (project.subtitles_burn_result_path && project.translation_srt_path) {
    const burned = scratch(ctx, A.burned('lipsync'));
    const srt = await deps.storage.localFile(project.translation_srt_path);
    const lipsynced = await deps.storage.localFile(resultKey);
    await timed(ctx, 'burn', () => burnSubtitles({ video: lipsynced, srt, out: burned }, { signal: ctx.signal }));
    burnedKey = await save(ctx, A.burned('lipsync'), burned, 'video/mp4');
  }
  checkAborted(ctx);
  await jobsRepo.setLipsyncDone(deps.db, project.id, { resultKey, burnedKey, engine: engine.id, generation: project.generation });
}
