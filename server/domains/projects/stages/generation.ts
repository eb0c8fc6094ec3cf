// Stages 8-9 and the burned-subtitles task: voiceover (speech fitted to each slot, cached by content hash
// so unchanged segments are not synthesised again), merging (voice + background, loudness-normalised,
// muxed into the video; SRT, VTT, cover), burning subtitles into a video on request.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { findGlossary, findProject, speakersOf, updateProjectFields, type ProjectRow } from '../repository';
import { applyPronunciations } from '../../glossaries/check';
import { presetTts, presetVoicesFor } from '../../voices/service';
import { voiceEngines } from '../../voices/engines';
import { presetIdOfVoice } from '../../../../contract/schemas/voice-preset';
import { measureQuality, qualityKey, type Envelope, type QualityFiles } from '../quality';
import { clearSegmentFits, segmentsOf, setSegmentFits } from '../transcript/repository';
import type { TtsEngine } from '../../../engines/types';
import { burnSubtitles, encodeAudio, makeCover, measureLoudnessFigures, muxVideo } from '../../../media/ffmpeg';
import { mixInChunks, type ChunkedMixResult } from './mix-chunks';
import { toSrt, toVtt, type Cue } from '../../../media/subtitles';
import { DEFAULT_SUBTITLE_LIMITS, layoutSubtitles, type LayoutSegment, type SubtitleLimits } from '../../../media/subtitle-layout';
import { LocalStorage } from '../../../storage/local';
import { projectKey } from '../../../storage/index';
import { buildVoiceTrack, fitSegments, type FitSegmentInput, type FittedSegment } from '../../../pipeline/fit';
import * as jobsRepo from '../../../pipeline/repository';
import { StageFailure } from '../../../pipeline/stages';
import { A, allOrAbort, checkAborted, input, key, loadJson, save, saveJson, scratch, timed, type ProjectStageContext } from './common';
import { findSpace } from '../../spaces/repository';
import { subtitleLimitsOf } from '../../spaces/service';
import { LOUDNESS_TARGETS, type LoudnessTargetKey } from '../../../../contract/schemas/space';
import { targetLufs, voiceGainPoints } from '../loudness';
import { TRUE_PEAK_CEILING_DB, type LoudnessFigures } from '../../../media/args';
import { writeGainCurveWav } from '../../../media/gate';
import { wavRmsEnvelopeAsync } from '../../../media/wav';
import { keepOriginalBed } from '../../../media/keep-original';

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
async function clipCache(ctx: ProjectStageContext): Promise<{ dir: string; publish: (f: FittedSegment[]) => Promise<void> }> {
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

export async function voiceover(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  const duration = project.duration;
  if (!duration) throw new StageFailure('voiceover_failed', 'The video duration is unknown: upload the video again');
  const segs = (await segmentsOf(deps.db, project.id)).filter((s) => s.end_sec > s.start_sec);
  if (segs.length === 0) throw new StageFailure('voiceover_failed', 'The transcript is empty: add at least one segment');
  const speakers = await speakersOf(deps.db, project.id);
  const voices = await deps.engines.voices(project.dst_lang);
  if (voices.length === 0) throw new StageFailure('voiceover_failed', `No voice is available for the language "${project.dst_lang}"`);
  const voiceOf = new Map(speakers.map((s) => [s.id, s.voice_id]));
  // The dictionary's pronunciations: how the voice says a term (the subtitles keep the written term).
  const glossary = project.glossary_id ? await findGlossary(deps.db, project.glossary_id) : null;
  const say = (text: string) => (glossary ? applyPronunciations(text, glossary.terms ?? []) : text);

  // Every segment with its voice and the start of the next segment (over all speakers: no drift).
  // A segment that keeps the original audio (issue 29) is not voiced; it still bounds the previous one's slot
  // (its original speech plays there).
  const all = [...segs].sort((a, b) => a.start_sec - b.start_sec || a.end_sec - b.end_sec);
  const nextStartOf = new Map(all.map((s, i) => [s.id, all[i + 1]?.start_sec ?? duration]));
  const sorted = all.filter((s) => !s.keep_original);
  const inputs: FitSegmentInput[] = sorted.map((s) => ({
    id: s.id,
    start: s.start_sec,
    end: s.end_sec,
    text: say(s.dst_text),
    lang: project.dst_lang,
    voiceId: voiceOf.get(s.speaker) ?? voices[0]!.id,
    nextStart: nextStartOf.get(s.id)!,
  }));
  // One fitting run per TTS engine (a project may mix engines when voices were chosen from several).
  const groups = new Map<TtsEngine, FitSegmentInput[]>();
  const presets = new Map<string, TtsEngine | null>();
  // Default voices (suggested, not chosen by a person) of the built-in engine are moved toward their speaker's
  // measured pitch, as a preset's voice is (issue 28); one engine per speaker.
  const speakerRows = new Map(speakers.map((s) => [s.id, s]));
  const matched = new Map<string, TtsEngine>();
  const stock = new Map<string, TtsEngine | undefined>();
  for (const [i, inp] of inputs.entries()) {
    let tts: TtsEngine | null | undefined;
    if (presetIdOfVoice(inp.voiceId)) {
      // a voice preset of the space (clone or voice matching), spoken by its own engine
      if (!presets.has(inp.voiceId)) presets.set(inp.voiceId, await presetTts(deps, project, inp.voiceId));
      tts = presets.get(inp.voiceId);
      if (!tts) throw new StageFailure('voiceover_failed', 'A speaker\'s voice preset is not available any more (deleted or not ready): choose another voice');
    } else {
      // one look-up per voice, not per segment
      if (!stock.has(inp.voiceId)) stock.set(inp.voiceId, await deps.engines.ttsForVoice(inp.voiceId, project.dst_lang));
      tts = stock.get(inp.voiceId);
      const sp = speakerRows.get(sorted[i]!.speaker);
      if (tts && tts.id === 'espeak' && sp && !sp.voice_locked && sp.profile && sp.voice_id === inp.voiceId) {
        const k = `${sp.id}|${inp.voiceId}`;
        if (!matched.has(k)) matched.set(k, (await voiceEngines(deps).builtin.matchStock(tts, inp.voiceId, project.dst_lang, sp.profile)).tts);
        tts = matched.get(k)!;
      }
    }
    if (!tts) throw new StageFailure('voiceover_failed', `The voice "${inp.voiceId}" is not available any more: choose another voice`);
    const g = groups.get(tts);
    if (g) g.push(inp);
    else groups.set(tts, [inp]);
  }
  const cache = await clipCache(ctx);
  const fitted: FittedSegment[] = [];
  // fitting is nearly all of this stage; the voice track the rest
  const progress = (count: number) => ctx.progress?.((0.95 * (fitted.length + count)) / Math.max(1, inputs.length));
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
          // every CPU slot (the slots bound all jobs together)
          concurrency: Math.max(1, deps.config.worker.cpuSlots),
          onFitted: progress,
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
  // kept in the original audio: no voice, so no speed or fit
  await clearSegmentFits(deps.db, project.id, all.filter((s) => s.keep_original).map((s) => s.id));
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

/**
 * Subtitle cues of the translation (SRT, VTT and the burned subtitles, made from the SRT): each segment's text
 * laid out in readable cues over its slot, timed to its words where they are known (server/media/subtitle-layout.ts).
 */
export function translationCues(
  segs: ReadonlyArray<{ start_sec: number; end_sec: number; dst_text: string; words?: LayoutSegment['words'] }>,
  limits: SubtitleLimits = DEFAULT_SUBTITLE_LIMITS,
  mediaEnd?: number,
): Cue[] {
  return layoutSubtitles(segs.map((s) => ({ start: s.start_sec, end: s.end_sec, text: s.dst_text, words: s.words ?? null })), limits, mediaEnd);
}

/** The Teamspace's subtitle limits (its setting, else the common guidelines) as the layout takes them. */
export function subtitleLayoutLimits(space: Parameters<typeof subtitleLimitsOf>[0]): SubtitleLimits {
  const l = subtitleLimitsOf(space);
  return {
    maxLineChars: l.max_line_chars,
    maxLines: l.max_lines,
    targetCps: l.target_cps,
    maxCps: l.max_cps,
    minDuration: l.min_duration_sec,
    maxDuration: l.max_duration_sec,
  };
}

/** The keys the project's fields point at (what downloads may serve). */
function referencedKeys(p: ProjectRow): Set<string> {
  return new Set(
    [
      p.original_video, p.cover, p.translated_audio, p.translated_video, p.voiceover, p.translation_srt_path, p.translation_vtt_path,
      p.lipsync_result_path, p.subtitles_burn_result_path, p.subtitles_lipsync_burn_result_path, p.media_info?.sourceKey,
    ].filter((k): k is string => typeof k === 'string' && k !== ''),
  );
}

/**
 * Removes the downloadable outputs under `projects/<id>/<folder>/` that no field of the project points at:
 * what a failed, cancelled or killed run half-wrote, and the previous version once the new one is in place.
 * Downloads serve only keys the fields point at, so a half-written output is never served.
 */
export async function pruneOutputs(ctx: ProjectStageContext, folder: 'out' | 'burned'): Promise<void> {
  const current = await findProject(ctx.deps.db, ctx.project.id);
  if (!current) return;
  const keep = referencedKeys(current);
  for await (const o of ctx.deps.storage.list(projectKey(ctx.project.id, `${folder}/`))) {
    if (!keep.has(o.key)) await ctx.deps.storage.delete(o.key);
  }
}

/**
 * Runs an output-writing stage: its outputs go to fresh keys and replace the fields at the very end, so
 * the previous outputs stay downloadable until then and whatever a failed run wrote is removed.
 */
async function replacingOutputs(ctx: ProjectStageContext, folder: 'out' | 'burned', run: () => Promise<void>): Promise<void> {
  await pruneOutputs(ctx, folder).catch(() => {});
  try {
    await run();
  } catch (e) {
    await pruneOutputs(ctx, folder).catch(() => {});
    throw e;
  }
  await pruneOutputs(ctx, folder);
}

export async function merging(ctx: ProjectStageContext): Promise<void> {
  await replacingOutputs(ctx, 'out', () => mergeOutputs(ctx));
}

async function mergeOutputs(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  const duration = project.duration!;
  // This generation's outputs: new keys, so the previous dub stays downloadable until they replace it.
  const out = (artifact: string) => `out/${project.generation}/${artifact}`;
  const voiceTrack = await input(ctx, A.voiceTrack);
  const segments = await segmentsOf(deps.db, project.id);
  // Segments kept in the original audio (issue 29): the source's own audio plays there instead of the background.
  const background = await keptBed(ctx, await input(ctx, A.background), segments);

  const audio = scratch(ctx, A.translatedAudio);
  const voiceOnly = scratch(ctx, A.voiceover);
  const srt = scratch(ctx, A.srt);
  const vtt = scratch(ctx, A.vtt);
  const video = scratch(ctx, A.translatedVideo);
  const cover = scratch(ctx, A.cover);
  const source = project.original_video ? await deps.storage.localFile(project.original_video) : null;
  // Loudness (issue 28): the dub's voice follows the original speech's level segment by segment, and the mix goes
  // to the Teamspace's target (by default the source's own loudness), true peak at most -1 dBTP.
  const space = await findSpace(deps.db, project.space_id);
  const subtitleLimits = subtitleLayoutLimits(space);
  const cues = translationCues(segments, subtitleLimits, duration);
  const target = (LOUDNESS_TARGETS as readonly string[]).includes(space?.loudness_target ?? '') ? (space!.loudness_target as LoudnessTargetKey) : 'source';
  let levels: Awaited<ReturnType<typeof voiceLevels>> = { gainCurve: null, speech: null };
  // The voice as the quality report analyses it (mono 16 kHz), written by the voice-only encode from its one decode.
  const voiceWav16k = scratch(ctx, 'quality_voice.wav');
  let mixed: ChunkedMixResult | null = null;
  // Two chains side by side (2 cores): the voice's levels -> mix (in chunks: a re-dub re-encodes only the chunks it
  // touches; the loudness measured in-process, the encoded samples measured in the passes that encode them) -> mux, and
  // voice-only encode + cover + subtitles (which need no levels: they start at once).
  await allOrAbort(ctx.signal, [
    async (signal) => {
      levels = await timed(ctx, 'voice levels', () => voiceLevels(ctx, duration));
      mixed = await timed(ctx, 'mix+loudness', () =>
        mixInChunks(
          ctx,
          { voice: voiceTrack, background, out: audio, durationSec: duration, voiceGain: levels.gainCurve ?? undefined, loudness: { I: -16, TP: TRUE_PEAK_CEILING_DB } },
          // the source's loudness is measured (once: it is kept) while the mix is
          target === 'source' ? sourceLoudness(ctx, signal).then((l) => targetLufs('source', l?.I ?? null)) : Promise.resolve(targetLufs(target, null)),
          { signal, hopSec: QUALITY_HOP },
        ),
      );
      const m = mixed;
      ctx.log('mix', { projectId: project.id, incremental: m.incremental, encodedChunks: m.encoded, chunks: m.chunks, gainDb: m.gainDb });
      ctx.progress?.(source ? 0.8 : 0.95);
      if (source) await timed(ctx, 'mux', () => muxVideo({ video: source, audio, out: video }, { signal }));
    },
    async (signal) => {
      // the fast AAC coder at 128 kb/s (mono: as many bits per channel as the stereo mix's 192 kb/s and more)
      await timed(ctx, 'voiceover encode', () =>
        encodeAudio(voiceTrack, voiceOnly, { durationSec: duration, sampleRate: 48000, channels: 1, fast: true, bitrate: '128k', analysisWav: voiceWav16k, signal }),
      );
      if (source) await timed(ctx, 'cover', () => makeCover(source, cover, { signal }));
      await writeFile(srt, toSrt(cues), 'utf8');
      await writeFile(vtt, toVtt(cues), 'utf8');
    },
  ]);
  const mix = mixed as ChunkedMixResult | null;
  let videoKey: string | null = null;
  let coverKey: string | null = null;
  if (source) {
    videoKey = await save(ctx, out(A.translatedVideo), video, 'video/mp4');
    coverKey = await save(ctx, out(A.cover), cover, 'image/jpeg');
  }
  checkAborted(ctx);
  const audioKey = await save(ctx, out(A.translatedAudio), audio, 'audio/mp4');
  const voiceKey = await save(ctx, out(A.voiceover), voiceOnly, 'audio/mp4');
  const srtKey = await save(ctx, out(A.srt), srt, 'application/x-subrip');
  const vttKey = await save(ctx, out(A.vtt), vtt, 'text/vtt');
  checkAborted(ctx);
  const before = await findProject(deps.db, project.id);
  const now = await updateProjectFields(deps.db, project.id, {
    translated_audio: audioKey,
    voiceover: voiceKey,
    translated_video: videoKey,
    cover: coverKey,
    translation_srt_path: srtKey,
    translation_vtt_path: vttKey,
  });
  // The previous outputs are replaced (older installs kept them at the top of the project's folder).
  if (before && now) {
    const keep = referencedKeys(now);
    const previous = [before.translated_audio, before.voiceover, before.translated_video, before.cover, before.translation_srt_path, before.translation_vtt_path];
    for (const k of previous) if (k && !keep.has(k) && k.startsWith(projectKey(project.id, ''))) await deps.storage.delete(k).catch(() => {});
  }
  // The quality report of this dub, measured from the files just written. A dub is not lost for a report.
  try {
    await timed(ctx, 'quality', async () => {
      // what the merge measured: the report reads no output again (the final soundtrack's envelope is the sum's, at
      // the loudness gain applied; the limiter only touches peaks)
      const measured: QualityFiles['measured'] =
        mix?.envelopes
          ? {
              voice: await wavRmsEnvelopeAsync(voiceWav16k, QUALITY_HOP),
              output: scaleEnvelope(mix.envelopes.mix, 10 ** (mix.gainDb / 20)),
              background: mix.envelopes.background,
              speech: levels.speech,
              outputLoudness: mix.output,
              voiceWav: voiceWav16k,
            }
          : null;
      await writeQualityReport(ctx, { audioKey, voiceKey, target, subtitles: { cues, limits: subtitleLimits }, measured });
    });
  } catch (e) {
    checkAborted(ctx);
    ctx.log('quality report failed', { projectId: project.id, error: e instanceof Error ? e.message : String(e) });
  }
}

/**
 * The bed of the mix: the background stem, with the source's audio (its speech and background) over the segments
 * that keep the original audio. The background itself when none does, or when the source audio is gone.
 */
async function keptBed(ctx: ProjectStageContext, background: string, segments: ReadonlyArray<{ start_sec: number; end_sec: number; keep_original: boolean }>): Promise<string> {
  const spans = segments.filter((s) => s.keep_original && s.end_sec > s.start_sec).map((s) => ({ start: s.start_sec, end: s.end_sec }));
  if (spans.length === 0) return background;
  const source = (await ctx.deps.storage.exists(key(ctx, A.audio48k)))
    ? await input(ctx, A.audio48k)
    : ctx.project.original_video && (await ctx.deps.storage.exists(ctx.project.original_video))
      ? await ctx.deps.storage.localFile(ctx.project.original_video)
      : null;
  if (!source) {
    ctx.log('the source audio is gone: segments kept in the original play the background only', { projectId: ctx.project.id });
    return background;
  }
  const out = scratch(ctx, 'background_kept.wav');
  await timed(ctx, 'keep original', () => keepOriginalBed({ background, source, spans, out }, { signal: ctx.signal }));
  return out;
}

/** The source's loudness figures, measured once and kept (source_loudness.json). */
export async function sourceLoudness(ctx: ProjectStageContext, signal?: AbortSignal): Promise<LoudnessFigures | null> {
  const kept = await loadJson<LoudnessFigures>(ctx, SOURCE_LOUDNESS);
  if (kept) return kept;
  // The extracted source audio; a project without it (made before it was kept) is measured on its original video.
  const from = (await ctx.deps.storage.exists(key(ctx, A.audio48k)))
    ? await input(ctx, A.audio48k)
    : ctx.project.original_video && (await ctx.deps.storage.exists(ctx.project.original_video))
      ? await ctx.deps.storage.localFile(ctx.project.original_video)
      : null;
  if (!from) return null;
  const figures = await measureLoudnessFigures(from, { signal: signal ?? ctx.signal });
  if (figures) await saveJson(ctx, SOURCE_LOUDNESS, { ...figures, I: Number.isFinite(figures.I) ? figures.I : -100 });
  return figures;
}
const SOURCE_LOUDNESS = 'source_loudness.json';

/** Hop of the level envelopes the quality report analyses (seconds). */
const QUALITY_HOP = 0.02;

function scaleEnvelope(env: Envelope, k: number): Envelope {
  const rms = new Float32Array(env.rms.length);
  for (let i = 0; i < rms.length; i++) rms[i] = env.rms[i]! * k;
  return { hopSec: env.hopSec, rms };
}

/**
 * The voice's gain curve from the speech estimate and the voice track (null: no speech estimate, nothing measured),
 * with the speech estimate's envelope (the quality report reuses it).
 */
async function voiceLevels(ctx: ProjectStageContext, duration: number): Promise<{ gainCurve: string | null; speech: Envelope | null }> {
  if (!(await ctx.deps.storage.exists(key(ctx, A.speech16k)))) return { gainCurve: null, speech: null };
  const speech = await wavRmsEnvelopeAsync(await input(ctx, A.speech16k), QUALITY_HOP);
  const stats = await loadJson<VoiceoverStats>(ctx, 'voiceover_stats.json');
  if (!stats) return { gainCurve: null, speech };
  const dub = await wavRmsEnvelopeAsync(await input(ctx, A.voiceTrack), QUALITY_HOP);
  const points = voiceGainPoints(stats.fitted, speech, dub);
  if (!points) return { gainCurve: null, speech };
  const path = scratch(ctx, 'voice_gain.wav');
  await writeGainCurveWav(path, points, duration);
  return { gainCurve: path, speech };
}

async function writeQualityReport(
  ctx: ProjectStageContext,
  o: { audioKey: string; voiceKey: string; target: LoudnessTargetKey; subtitles: { cues: Cue[]; limits: SubtitleLimits }; measured?: QualityFiles['measured'] },
): Promise<void> {
  const { project, deps } = ctx;
  const glossary = project.glossary_id ? await findGlossary(deps.db, project.glossary_id) : null;
  const has = async (a: string) => ((await deps.storage.exists(key(ctx, a))) ? input(ctx, a) : null);
  // each speaker's own voice against the gender of the voice that dubs them (stock voices and presets)
  const genders = new Map<string, 'male' | 'female' | null>((await deps.engines.voices(project.dst_lang)).map((v) => [v.id, v.gender]));
  for (const p of await presetVoicesFor(deps, project)) genders.set(p.id, (p.gender as 'male' | 'female' | null) ?? null);
  const speakers = (await speakersOf(deps.db, project.id)).map((s) => ({
    id: s.id, name: s.name, voice_id: s.voice_id, pitch_hz: s.pitch_hz, gender: s.gender,
    dub_gender: s.voice_id ? (genders.get(s.voice_id) ?? null) : null,
  }));
  const report = await measureQuality(
    {
      voice: await deps.storage.localFile(o.voiceKey),
      output: await deps.storage.localFile(o.audioKey),
      source16k: await has(A.audio16k),
      sourceFull: await has(A.audio48k),
      background: await has(A.background),
      speech16k: await has(A.speech16k),
      sourceLoudness: await loadJson<LoudnessFigures>(ctx, SOURCE_LOUDNESS),
      tmp: ctx.tmp,
      signal: ctx.signal,
      measured: o.measured ?? null,
    },
    {
      projectId: project.id,
      generation: project.generation,
      duration: project.duration!,
      // segments kept in the original audio are not dubbed: nothing of the dub to judge there (the source plays)
      segments: (await segmentsOf(deps.db, project.id)).filter((s) => !s.keep_original),
      glossary: glossary?.terms ?? [],
      speakers,
      loudnessTarget: o.target,
      subtitles: o.subtitles,
    },
  );
  await deps.storage.putBuffer(qualityKey(project.id), JSON.stringify(report), { contentType: 'application/json' });
}

export async function burnSubtitlesTask(ctx: ProjectStageContext): Promise<void> {
  await replacingOutputs(ctx, 'burned', () => burn(ctx));
}

async function burn(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  const type = project.subtitles_burn_video_type ?? 'translated';
  const videoKey = type === 'original' ? project.original_video : type === 'lipsync' ? project.lipsync_result_path : project.translated_video;
  if (!videoKey || !project.translation_srt_path) throw new Error('The video or its subtitles are not ready');
  const out = scratch(ctx, A.burned(type));
  const video = await deps.storage.localFile(videoKey);
  const srt = await deps.storage.localFile(project.translation_srt_path);
  await timed(ctx, 'burn', () => burnSubtitles({ video, srt, out }, { signal: ctx.signal }));
  checkAborted(ctx);
  const k = await save(ctx, `burned/${project.generation}-${randomBytes(3).toString('hex')}/${A.burned(type)}`, out, 'video/mp4');
  await updateProjectFields(deps.db, project.id, {
    ...(type === 'lipsync' ? { subtitles_lipsync_burn_result_path: k } : { subtitles_burn_result_path: k }),
    subtitles_burn_state: 'done',
    subtitles_burn_error: null,
  });
}
