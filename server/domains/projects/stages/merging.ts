// Stage 9, merging: the voice track over the background (or the original where a segment keeps it), loudness
// following the source or the Teamspace's target, muxed into the video; SRT, VTT, cover and the quality report.
import { copyFile, writeFile } from 'node:fs/promises';
import { findGlossary, findProject, speakersOf, updateProjectFields } from '../repository';
import { presetVoicesFor } from '../../voices/service';
import { measureQuality, qualityKey, type Envelope, type QualityFiles } from '../quality';
import type { QualityReport } from '../../../../contract/schemas/quality';
import { segmentsOf } from '../transcript/repository';
import { encodeAudio, makeCover, measureLoudnessFigures, muxVideo } from '../../../media/ffmpeg';
import { mixInChunks, type ChunkedMixResult } from './mix-chunks';
import { toSrt, toVtt, type Cue } from '../../../media/subtitles';
import { type SubtitleLimits } from '../../../media/subtitle-layout';
import { projectKey } from '../../../storage/index';
import { A, allOrAbort, checkAborted, input, key, loadJson, save, saveJson, scratch, timed, type ProjectStageContext } from './common';
import { findSpace } from '../../spaces/repository';
import { LOUDNESS_TARGETS, type LoudnessTargetKey } from '../../../../contract/schemas/space';
import { targetLufs, voiceGainPoints } from '../loudness';
import { TRUE_PEAK_CEILING_DB, type LoudnessFigures } from '../../../media/args';
import { writeGainCurveWav } from '../../../media/gate';
import { wavRmsEnvelopeAsync } from '../../../media/wav';
import { keepOriginalBed } from '../../../media/keep-original';
import type { VoiceoverStats } from './voiceover';
import { subtitleLayoutLimits, translationCues } from './burn-subtitles';
import { referencedKeys, replacingOutputs } from './outputs';

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
  // Two chains side by side (2 cores): the voice's levels -> mix (in chunks: a re-dub re-encodes only the chunks it
  // touches; the loudness measured in-process, the encoded samples measured in the passes that encode them) -> mux, and
  // voice-only encode + cover + subtitles (which need no levels: they start at once). The quality report is measured
  // as soon as the mix and the voice-only track are there, beside the mux and the saves; it is stored once the new
  // outputs are the project's (the dub never waits for its report).
  let mixDone!: (m: ChunkedMixResult) => void;
  const mixP = new Promise<ChunkedMixResult>((r) => (mixDone = r));
  let voiceDone!: () => void;
  const voiceP = new Promise<void>((r) => (voiceDone = r));
  // A dub is not lost for a report: a failed report is logged; a cancelled or failed merge stops it.
  const reportAbort = new AbortController();
  const stopReport = () => reportAbort.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', stopReport, { once: true });
  const reportStopped = new Promise<never>((_, reject) => reportAbort.signal.addEventListener('abort', () => reject(reportAbort.signal.reason), { once: true }));
  reportStopped.catch(() => {}); // it may be stopped after it has ended
  const reportP: Promise<QualityReport | null> = Promise.race([Promise.all([mixP, voiceP]), reportStopped])
    .then(([mix]) =>
      timed(ctx, 'quality', () =>
        qualityReport(ctx, { audio, voice: voiceOnly, voiceWav16k, mix, levels, target, subtitles: { cues, limits: subtitleLimits }, signal: reportAbort.signal }),
      ),
    )
    .catch((e: unknown) => {
      if (!reportAbort.signal.aborted) ctx.log('quality report failed', { projectId: project.id, error: e instanceof Error ? e.message : String(e) });
      return null;
    })
    .finally(() => ctx.signal.removeEventListener('abort', stopReport));
  const chains = allOrAbort(ctx.signal, [
    async (signal) => {
      levels = await timed(ctx, 'voice levels', () => voiceLevels(ctx, duration));
      const m = await timed(ctx, 'mix+loudness', () =>
        mixInChunks(
          ctx,
          { voice: voiceTrack, background, out: audio, durationSec: duration, voiceGain: levels.gainCurve ?? undefined, loudness: { I: -16, TP: TRUE_PEAK_CEILING_DB } },
          // the source's loudness is measured (once: it is kept) while the mix is
          target === 'source' ? sourceLoudness(ctx, signal).then((l) => targetLufs('source', l?.I ?? null)) : Promise.resolve(targetLufs(target, null)),
          { signal, hopSec: QUALITY_HOP },
        ),
      );
      mixDone(m);
      ctx.log('mix', { projectId: project.id, incremental: m.incremental, encodedChunks: m.encoded, chunks: m.chunks, gainDb: m.gainDb });
      ctx.progress?.(source ? 0.8 : 0.95);
      if (source) await timed(ctx, 'mux', () => muxVideo({ video: source, audio, out: video }, { signal }));
    },
    async (signal) => {
      // the fast AAC coder at 128 kb/s (mono: as many bits per channel as the stereo mix's 192 kb/s and more)
      await timed(ctx, 'voiceover encode', () =>
        encodeAudio(voiceTrack, voiceOnly, { durationSec: duration, sampleRate: 48000, channels: 1, fast: true, bitrate: '128k', analysisWav: voiceWav16k, signal }),
      );
      voiceDone();
      // the cover the separation stage took from the source (projects analysed before it did: taken and kept now)
      if (source) await timed(ctx, 'cover', async () => copyFile(await sourceCover(ctx, signal), cover));
      await writeFile(srt, toSrt(cues), 'utf8');
      await writeFile(vtt, toVtt(cues), 'utf8');
    },
  ]);
  try {
    await chains;
  } catch (e) {
    // the report of outputs that will not be kept: stopped, and waited for (it reads the stage's scratch files)
    reportAbort.abort(e);
    await reportP;
    throw e;
  }
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
  const report = await reportP;
  checkAborted(ctx);
  if (report) await deps.storage.putBuffer(qualityKey(project.id), JSON.stringify(report), { contentType: 'application/json' });
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

/**
 * What every merge of the project takes from the source and can take before it (issue 30: the separation stage runs
 * this beside the VAD, on the core the VAD leaves idle): the source's loudness (source_loudness.json) and the cover
 * (source_cover.jpg). A failure is logged, not raised: the merge then does that work itself.
 */
export async function prepareMergeInputs(ctx: ProjectStageContext, signal: AbortSignal): Promise<void> {
  const soft = (what: string) => (e: unknown) => {
    if (!signal.aborted) ctx.log(`${what} failed (the merge takes it)`, { projectId: ctx.project.id, error: e instanceof Error ? e.message : String(e) });
  };
  await Promise.all([
    sourceLoudness(ctx, signal).catch(soft('source loudness')),
    ctx.project.original_video ? sourceCover(ctx, signal).catch(soft('cover')) : null,
  ]);
}

/** The cover taken from the project's source video, once and kept (source_cover.jpg): a local path to it. */
async function sourceCover(ctx: ProjectStageContext, signal: AbortSignal): Promise<string> {
  if (!(await ctx.deps.storage.exists(key(ctx, A.sourceCover)))) {
    const out = scratch(ctx, A.sourceCover);
    await makeCover(await ctx.deps.storage.localFile(ctx.project.original_video!), out, { signal });
    await save(ctx, A.sourceCover, out, 'image/jpeg');
  }
  return input(ctx, A.sourceCover);
}

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

/**
 * The quality report of this dub from what the merge measured (the report reads no output again: the final
 * soundtrack's envelope is the sum's, at the loudness gain applied; the limiter only touches peaks). An incremental
 * merge measured no envelopes: the report decodes the new outputs (`audio`, `voice`).
 */
async function qualityReport(
  ctx: ProjectStageContext,
  o: {
    audio: string; voice: string; voiceWav16k: string; mix: ChunkedMixResult; levels: { speech: Envelope | null };
    target: LoudnessTargetKey; subtitles: { cues: Cue[]; limits: SubtitleLimits }; signal: AbortSignal;
  },
): Promise<QualityReport> {
  const { project, deps } = ctx;
  const measured: QualityFiles['measured'] = o.mix.envelopes
    ? {
        voice: await wavRmsEnvelopeAsync(o.voiceWav16k, QUALITY_HOP),
        output: scaleEnvelope(o.mix.envelopes.mix, 10 ** (o.mix.gainDb / 20)),
        background: o.mix.envelopes.background,
        speech: o.levels.speech,
        outputLoudness: o.mix.output,
        voiceWav: o.voiceWav16k,
      }
    : null;
  const glossary = project.glossary_id ? await findGlossary(deps.db, project.glossary_id) : null;
  const has = async (a: string) => ((await deps.storage.exists(key(ctx, a))) ? input(ctx, a) : null);
  // each speaker's own voice against the gender of the voice that dubs them (stock voices and presets)
  const genders = new Map<string, 'male' | 'female' | null>((await deps.engines.voices(project.dst_lang)).map((v) => [v.id, v.gender]));
  for (const p of await presetVoicesFor(deps, project)) genders.set(p.id, (p.gender as 'male' | 'female' | null) ?? null);
  const speakers = (await speakersOf(deps.db, project.id)).map((s) => ({
    id: s.id, name: s.name, voice_id: s.voice_id, pitch_hz: s.pitch_hz, gender: s.gender,
    dub_gender: s.voice_id ? (genders.get(s.voice_id) ?? null) : null,
  }));
  return measureQuality(
    {
      voice: o.voice,
      output: o.audio,
      source16k: await has(A.audio16k),
      sourceFull: await has(A.audio48k),
      background: await has(A.background),
      speech16k: await has(A.speech16k),
      sourceLoudness: await loadJson<LoudnessFigures>(ctx, SOURCE_LOUDNESS),
      tmp: ctx.tmp,
      signal: o.signal,
      measured,
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
}
