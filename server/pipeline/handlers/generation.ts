// Stages 8-9 and the burned-subtitles task: voiceover (speech fitted to each slot, cached by content hash
// so unchanged segments are not synthesised again), merging (voice + background, loudness-normalised,
// muxed into the video; SRT, VTT, cover), burning subtitles into a video on request.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { speakersOf, updateProjectFields } from '../../domains/projects/repository';
import { segmentsOf, setSegmentFits } from '../../domains/transcript/repository';
import type { TtsEngine } from '../../engines/types';
import { burnSubtitles, makeCover, mixVoiceAndBackground, muxVideo, placeClips } from '../../media/ffmpeg';
import { toSrt, toVtt, type Cue } from '../../media/subtitles';
import { LocalStorage } from '../../storage/local';
import { projectKey } from '../../storage/index';
import { buildVoiceTrack, fitSegments, type FitSegmentInput, type FittedSegment } from '../fit';
import type { StageContext } from '../pipeline';
import * as jobsRepo from '../repository';
import { StageFailure } from '../stages';
import { A, allOrAbort, checkAborted, input, key, save, saveJson, scratch, timed } from './common';

export interface VoiceoverStats {
  segments: number;
  synthesized: number;
  cached: number;
  empty: number;
  fitted: Array<{
    id: string; start: number; end: number; placedStart: number; placedEnd: number; speedFactor: number;
    overflowSec: number; borrowedSec: number; cached: boolean;
  }>;
}

/**
 * The folder holding the project's fitted clips across runs. Local storage: the storage folder itself
 * (projects/<id>/clips). Other stores: a local cache, filled from and published to storage.
 */
async function clipCache(ctx: StageContext): Promise<{ dir: string; publish: (f: FittedSegment[]) => Promise<void> }> {
  const storage = ctx.deps.storage;
  if (storage instanceof LocalStorage) {
    return { dir: storage.pathOf(projectKey(ctx.project.id, 'clips')), publish: async () => {} };
  }
  const dir = join(ctx.deps.config.dataDir, 'cache', 'clips', ctx.project.id);
  mkdirSync(dir, { recursive: true });
  for (const h of await jobsRepo.findGenerationHashes(ctx.deps.db, ctx.project.id)) {
    const wav = join(dir, `${h.hash}.wav`);
    const meta = join(dir, `${h.hash}.json`);
    if (existsSync(wav) && existsSync(meta)) continue;
    try {
      writeFileSync(meta, await storage.getBuffer(h.storage_key.replace(/\.wav$/, '.json')));
      copyFileSync(await storage.localFile(h.storage_key), wav);
    } catch {
      // missing in storage: it is synthesised again
    }
  }
  return {
    dir,
    publish: async (fitted) => {
      for (const f of fitted) {
        if (!f.cacheKey || !f.path || f.cached) continue;
        const k = key(ctx, A.clip(f.cacheKey));
        await storage.putFile(k, f.path);
        await storage.putFile(k.replace(/\.wav$/, '.json'), f.path.replace(/\.wav$/, '.json'));
        await jobsRepo.saveGenerationHash(ctx.deps.db, ctx.project.id, { hash: f.cacheKey, storage_key: k, duration_sec: f.durationSec });
      }
    },
  };
}

export async function voiceover(ctx: StageContext): Promise<void> {
  const { project, deps } = ctx;
  const duration = project.duration;
  if (!duration) throw new StageFailure('voiceover_failed', 'The video duration is unknown: upload the video again');
  const segs = (await segmentsOf(deps.db, project.id)).filter((s) => s.end_sec > s.start_sec);
  if (segs.length === 0) throw new StageFailure('voiceover_failed', 'The transcript is empty: add at least one segment');
  const speakers = await speakersOf(deps.db, project.id);
  const voices = await deps.engines.voices(project.dst_lang);
  if (voices.length === 0) throw new StageFailure('voiceover_failed', `No voice is available for the language "${project.dst_lang}"`);
  const voiceOf = new Map(speakers.map((s) => [s.id, s.voice_id]));

  // Every segment with its voice and the start of the next segment (over all speakers: no drift).
  const sorted = [...segs].sort((a, b) => a.start_sec - b.start_sec || a.end_sec - b.end_sec);
  const inputs: FitSegmentInput[] = sorted.map((s, i) => ({
    id: s.id,
    start: s.start_sec,
    end: s.end_sec,
    text: s.dst_text,
    lang: project.dst_lang,
    voiceId: voiceOf.get(s.speaker) ?? voices[0]!.id,
    nextStart: sorted[i + 1]?.start_sec ?? duration,
  }));
  // One fitting run per TTS engine (a project may mix engines when voices were chosen from several).
  const groups = new Map<TtsEngine, FitSegmentInput[]>();
  for (const inp of inputs) {
    const tts = await deps.engines.ttsForVoice(inp.voiceId, project.dst_lang);
    if (!tts) throw new StageFailure('voiceover_failed', `The voice "${inp.voiceId}" is not available any more: choose another voice`);
    groups.set(tts, [...(groups.get(tts) ?? []), inp]);
  }
  const cache = await clipCache(ctx);
  const fitted: FittedSegment[] = [];
  for (const [tts, group] of groups) {
    checkAborted(ctx);
    fitted.push(
      ...(await timed(ctx, `tts+fit (${tts.id})`, () =>
        fitSegments(group, {
          tts,
          cacheDir: cache.dir,
          workDir: join(ctx.tmp, 'fit'),
          signal: ctx.signal,
          totalDurationSec: duration,
          concurrency: Math.max(1, Math.min(2, deps.config.worker.concurrency * 2)),
        }),
      )),
    );
  }
  checkAborted(ctx);
  const track = scratch(ctx, A.voiceTrack);
  await timed(ctx, 'voice track', () => buildVoiceTrack(fitted, duration, track, { signal: ctx.signal }));
  await cache.publish(fitted);
  await save(ctx, A.voiceTrack, track);

  const byId = new Map(sorted.map((s) => [s.id, s]));
  await setSegmentFits(
    deps.db,
    project.id,
    fitted.map((f) => ({
      id: String(f.id),
      speed_factor: f.speedFactor,
      overflow_sec: f.overflowSec,
      audio_hash: f.cacheKey ?? '',
      status: 'done' as const,
    })),
  );
  const stats: VoiceoverStats = {
    segments: fitted.length,
    synthesized: fitted.filter((f) => f.path && !f.cached).length,
    cached: fitted.filter((f) => f.cached).length,
    empty: fitted.filter((f) => !f.path).length,
    fitted: fitted.map((f) => {
      const s = byId.get(String(f.id))!;
      return {
        id: String(f.id), start: s.start_sec, end: s.end_sec, placedStart: f.placedStart, placedEnd: f.placedEnd, speedFactor: f.speedFactor,
        overflowSec: f.overflowSec, borrowedSec: f.borrowedSec, cached: f.cached,
      };
    }),
  };
  await saveJson(ctx, 'voiceover_stats.json', stats);

  // Clips no segment uses any more are removed (local cache folder).
  const keep = new Set(fitted.map((f) => f.cacheKey).filter((k): k is string => !!k));
  if (existsSync(cache.dir)) {
    for (const f of readdirSync(cache.dir)) {
      const h = f.replace(/\.(wav|json)$/, '');
      if (/^[0-9a-f]{40}$/.test(h) && !keep.has(h)) rmSync(join(cache.dir, f), { force: true });
    }
  }
  for (const k of await jobsRepo.pruneGenerationHashes(deps.db, project.id, [...keep])) {
    await deps.storage.delete(k).catch(() => {});
    await deps.storage.delete(k.replace(/\.wav$/, '.json')).catch(() => {});
  }
}

/** Subtitle cues of the translation: each segment's text over its slot. */
export function translationCues(segs: ReadonlyArray<{ start_sec: number; end_sec: number; dst_text: string }>): Cue[] {
  return [...segs]
    .filter((s) => s.dst_text.trim() !== '' && s.end_sec > s.start_sec)
    .sort((a, b) => a.start_sec - b.start_sec)
    .map((s) => ({ start: s.start_sec, end: s.end_sec, text: s.dst_text }));
}

export async function merging(ctx: StageContext): Promise<void> {
  const { project, deps } = ctx;
  const duration = project.duration!;
  const voiceTrack = await input(ctx, A.voiceTrack);
  const background = await input(ctx, A.background);

  const audio = scratch(ctx, A.translatedAudio);
  const voiceOnly = scratch(ctx, A.voiceover);
  const srt = scratch(ctx, A.srt);
  const vtt = scratch(ctx, A.vtt);
  const video = scratch(ctx, A.translatedVideo);
  const cover = scratch(ctx, A.cover);
  const source = project.original_video ? await deps.storage.localFile(project.original_video) : null;
  const cues = translationCues(await segmentsOf(deps.db, project.id));
  // Two chains side by side (2 cores): mix -> mux, and voice-only encode + cover + subtitles.
  await allOrAbort(ctx.signal, [
    async (signal) => {
      await timed(ctx, 'mix+loudnorm', () => mixVoiceAndBackground({ voice: voiceTrack, background, out: audio, durationSec: duration }, { signal }));
      if (source) await timed(ctx, 'mux', () => muxVideo({ video: source, audio, out: video }, { signal }));
    },
    async (signal) => {
      await timed(ctx, 'voiceover encode', () =>
        placeClips([{ path: voiceTrack, offsetSec: 0 }], duration, voiceOnly, { sampleRate: 48000, channels: 1, signal }),
      );
      if (source) await timed(ctx, 'cover', () => makeCover(source, cover, { signal }));
      await writeFile(srt, toSrt(cues), 'utf8');
      await writeFile(vtt, toVtt(cues), 'utf8');
    },
  ]);
  let videoKey: string | null = null;
  let coverKey: string | null = null;
  if (source) {
    videoKey = await save(ctx, A.translatedVideo, video, 'video/mp4');
    coverKey = await save(ctx, A.cover, cover, 'image/jpeg');
  }
  checkAborted(ctx);
  const audioKey = await save(ctx, A.translatedAudio, audio, 'audio/mp4');
  const voiceKey = await save(ctx, A.voiceover, voiceOnly, 'audio/mp4');
  const srtKey = await save(ctx, A.srt, srt, 'application/x-subrip');
  const vttKey = await save(ctx, A.vtt, vtt, 'text/vtt');
  await updateProjectFields(deps.db, project.id, {
    translated_audio: audioKey,
    voiceover: voiceKey,
    translated_video: videoKey,
    cover: coverKey,
    translation_srt_path: srtKey,
    translation_vtt_path: vttKey,
  });
}

export async function burnSubtitlesTask(ctx: StageContext): Promise<void> {
  const { project, deps } = ctx;
  const type = project.subtitles_burn_video_type ?? 'translated';
  const videoKey = type === 'original' ? project.original_video : type === 'lipsync' ? project.lipsync_result_path : project.translated_video;
  if (!videoKey || !project.translation_srt_path) throw new Error('The video or its subtitles are not ready');
  const out = scratch(ctx, A.burned(type));
  const video = await deps.storage.localFile(videoKey);
  const srt = await deps.storage.localFile(project.translation_srt_path);
  await timed(ctx, 'burn', () => burnSubtitles({ video, srt, out }, { signal: ctx.signal }));
  const k = await save(ctx, A.burned(type), out, 'video/mp4');
  await updateProjectFields(deps.db, project.id, {
    ...(type === 'lipsync' ? { subtitles_lipsync_burn_result_path: k } : { subtitles_burn_result_path: k }),
    subtitles_burn_state: 'done',
    subtitles_burn_error: null,
  });
}
