// Stage 8, voiceover: each segment's speech synthesised and fitted to its slot (fit.ts), cached by content hash so
// unchanged segments are not synthesised again; the voice track of the language.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findGlossary, speakersOf } from '../repository';
import { applyPronunciations } from '../../glossaries/check';
import { presetTts } from '../../voices/service';
import { voiceEngines } from '../../voices/engines';
import { presetIdOfVoice } from '../../../../contract/schemas/voice-preset';
import { clearSegmentFits, segmentsOf, setSegmentFits } from '../transcript/repository';
import type { TtsEngine } from '../../../engines/types';
import { LocalStorage } from '../../../storage/local';
import { projectKey } from '../../../storage/index';
import { buildVoiceTrack, fitSegments, type FitSegmentInput, type FittedSegment } from './fit';
import * as jobsRepo from '../pipeline/repository';
import { StageFailure } from '../pipeline/stages';
import { A, checkAborted, key, save, saveJson, scratch, timed, type ProjectStageContext } from './common';

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
