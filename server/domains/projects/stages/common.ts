// Shared helpers of the stage handlers: deterministic artifact keys, reading inputs from storage and
// writing outputs back, the speech regions of a project.
import { join } from 'node:path';
import type { SpeechRegion } from '../../../engines/types';
import { projectKey } from '../../../storage/index';
import { findMedia } from '../../library/repository';
import { parseSrt, type Cue } from '../../../media/subtitles';
import { readFile } from 'node:fs/promises';
import type { StageContext, StageHandler } from '../pipeline/registry';
import { findProject, type ProjectRow } from '../repository';
import { ready } from '../../../engines/registry';
import { StageFailure } from '../pipeline/stages';

/** Artifact names under projects/<id>/. */
export const A = {
  audio16k: 'audio_16k.wav',
  audio48k: 'audio_48k.wav',
  vad: 'vad.json',
  regions: 'regions.json',
  background: 'background.wav',
  /** The separation's speech estimate (the voice stem): mono 16 kHz WAV, the length of the audio. */
  speech16k: 'speech_16k.wav',
  voiceTrack: 'voice_track.wav',
  voiceover: 'voiceover.m4a',
  translatedAudio: 'translated_audio.m4a',
  translatedVideo: 'translated_video.mp4',
  srt: 'translation.srt',
  vtt: 'translation.vtt',
  cover: 'cover.jpg',
  /** The cover taken from the source video (every merge's cover: the picture is the source's). */
  sourceCover: 'source_cover.jpg',
  lipsyncVideo: 'lipsync_video.mp4',
  clip: (hash: string) => `clips/${hash}.wav`,
  burned: (videoType: string) => `subtitles_${videoType}.mp4`,
  source: (ext: string) => `source.${ext}`,
} as const;

/** A stage of a project: the pipeline's context plus the project row, loaded when the stage starts. */
export interface ProjectStageContext extends StageContext {
  project: ProjectRow;
}
export type ProjectStageHandler = (ctx: ProjectStageContext) => Promise<void>;

/** The pipeline's handler for a project stage: loads the project, then runs the stage on it. */
export function withProject(run: ProjectStageHandler): StageHandler {
  return async (ctx) => {
    const project = await findProject(ctx.deps.db, ctx.projectId);
    // Deleted after the job was claimed: the pipeline records the stage as cancelled.
    if (!project) throw new DOMException('The project was deleted', 'AbortError');
    await run({ ...ctx, project });
  };
}

export const key = (ctx: { project: { id: string } }, artifact: string) => projectKey(ctx.project.id, artifact);

/** A local path holding the project's artifact (read-only). */
export function input(ctx: ProjectStageContext, artifact: string): Promise<string> {
  return ctx.deps.storage.localFile(key(ctx, artifact));
}

/** A scratch path for an output, then `save` moves it into storage under the artifact's key. */
export function scratch(ctx: ProjectStageContext, name: string): string {
  return join(ctx.tmp, name.replace(/\//g, '_'));
}
export async function save(ctx: ProjectStageContext, artifact: string, localPath: string, contentType?: string): Promise<string> {
  const k = key(ctx, artifact);
  await ctx.deps.storage.putFile(k, localPath, { move: true, contentType });
  return k;
}
export async function saveJson(ctx: ProjectStageContext, artifact: string, data: unknown): Promise<void> {
  await ctx.deps.storage.putBuffer(key(ctx, artifact), JSON.stringify(data), { contentType: 'application/json' });
}
export async function loadJson<T>(ctx: ProjectStageContext, artifact: string): Promise<T | null> {
  const k = key(ctx, artifact);
  if (!(await ctx.deps.storage.exists(k))) return null;
  return JSON.parse((await ctx.deps.storage.getBuffer(k)).toString('utf8')) as T;
}

/**
 * Voice-activity regions of the project's audio, computed once and kept as vad.json. `onProgress` gets
 * the share of the audio scanned.
 */
export async function speechRegions(ctx: ProjectStageContext, onProgress?: (fraction: number) => void): Promise<SpeechRegion[]> {
  const cached = await loadJson<SpeechRegion[]>(ctx, A.vad);
  if (cached) return cached;
  const vad = await ready(ctx.deps.engines.vad);
  const wav = await input(ctx, A.audio16k);
  const regions = await timed(ctx, 'vad', () => vad.detect(wav, { signal: ctx.signal, onProgress }));
  await saveJson(ctx, A.vad, regions);
  return regions;
}

/** The cues of an uploaded subtitle file (a source or target SRT of the project). */
export async function srtCues(ctx: ProjectStageContext, mediaId: string, which: 'source' | 'target'): Promise<Cue[]> {
  const m = await findMedia(ctx.deps.db, mediaId);
  if (!m || m.status !== 'uploaded') {
    throw new StageFailure(which === 'source' ? 'transcription_failed' : 'translation_failed', `The ${which} subtitle file is missing or could not be read`);
  }
  const text = (await readFile(await ctx.deps.storage.localFile(m.storage_key))).toString('utf8');
  try {
    return parseSrt(text).filter((c) => c.text.trim() !== '' && c.end > c.start);
  } catch (e) {
    throw new StageFailure(
      which === 'source' ? 'transcription_failed' : 'translation_failed',
      `The ${which} subtitle file could not be read: ${(e as Error).message}`,
    );
  }
}

/** Throws the AbortError when the stage was cancelled. */
export function checkAborted(ctx: ProjectStageContext): void {
  if (ctx.signal.aborted) throw new DOMException('The stage was cancelled', 'AbortError');
}

/**
 * Runs tasks side by side with one shared signal: when one fails, the others are aborted (their tools
 * killed) before the error is passed on, so nothing keeps writing into the stage's scratch folder.
 */
export async function allOrAbort(parent: AbortSignal, tasks: Array<(signal: AbortSignal) => Promise<unknown>>): Promise<void> {
  const ac = new AbortController();
  const onAbort = () => ac.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  // The first failure in time is the cause; the others' failures are mostly the abort it set off (a disk-full error in
  // one task must not be reported as the other task's cancellation).
  let first: { error: unknown } | null = null;
  try {
    await Promise.allSettled(
      tasks.map((t) =>
        t(ac.signal).catch((e) => {
          first ??= { error: e };
          ac.abort(e);
          throw e;
        }),
      ),
    );
    if (first) throw (first as { error: unknown }).error;
  } finally {
    parent.removeEventListener('abort', onAbort);
  }
}

/** Runs one step of a stage and logs its duration ('step' lines: the benchmark's breakdown, ops logs). */
export async function timed<T>(ctx: ProjectStageContext, step: string, fn: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await fn();
  } finally {
    ctx.log('step', { projectId: ctx.project.id, stage: ctx.stage, step, seconds: Math.round(performance.now() - t0) / 1000 });
  }
}
