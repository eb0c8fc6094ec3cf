// Stages 2-6: background separation, speech segmentation (VAD), transcription (ASR, or the alignment of a given
// source SRT or plain-text transcript),
// speakers (diarization) and a voice per speaker.
// Transcription works in chunks of speech: they run side by side (one CPU slot each), each finished chunk
// is kept as a checkpoint (a restart goes on from there) and moves the project's progress.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { VoiceProfile } from '../../../../contract/schemas/voice-preset';
import { speechSample } from '../../../engines/builtin/voice-sample';
import { GENDER_SURE } from '../../../engines/builtin/voice-profile';
import type { AsrEngine, AsrSegment, SpeechRegion } from '../../../engines/types';
import { wordsConfidence } from '../../../engines/builtin/word-confidence';
import { mapLimit } from '../../../engines/builtin/util';
import { CLEAN_SHARE, removedShare, transcribeBestInput } from '../../../engines/builtin/asr-input';
import { cpuSlots } from '../../../media/run';
import { readWavInfo, wavRmsEnvelopeAsync } from '../../../media/wav';
import { replaceSpeakers, speakersOf, setSpeakerVoice, updateProjectFields } from '../repository';
import {
  deleteAllSegments, insertSegments, segmentsOf, setSegmentSpeakers, type NewSegment,
} from '../transcript/repository';
import { ready } from '../../../engines/registry';
import { clearCheckpoints, findCheckpoints, saveCheckpoint } from '../../../pipeline/repository';
import { StageFailure } from '../../../pipeline/stages';
import { A, checkAborted, input, key, loadJson, save, saveJson, scratch, speechRegions, srtCues, timed, type ProjectStageContext } from './common';
import { chooseVoices } from './voices';
import { clonedEngineVoiceIds, presetForVoice, ttsProviderOfSpeakers } from '../../voices/service';
import { applyCast, recogniseCast } from '../../cast/service';
import { presetIdOfVoice } from '../../../../contract/schemas/voice-preset';
import { makePendingLanguages } from '../languages';
import { recognitionTerms } from '../asr-words';
import { hasSourceText, segmentsFromSrt, segmentsFromText } from './given-text';

// ------------------------------------------------------------------ separate_background

export async function separateBackground(ctx: ProjectStageContext): Promise<void> {
  // the VAD is most of this stage's time with the built-in engines
  const regions = await speechRegions(ctx, (f) => ctx.progress?.(0.8 * f));
  const sep = await ready(ctx.deps.engines.separation);
  const background = scratch(ctx, A.background);
  const speech = scratch(ctx, A.speech16k);
  const audio = await input(ctx, A.audio48k);
  // The background (the dub's bed) and the speech estimate (the voice stem: the speakers' voice profiles, the
  // quality report's leakage check, and recognition may read it) are both kept.
  await timed(ctx, 'separation', () =>
    sep.separate(audio, regions, { background, voice: speech, voiceSampleRate: 16000 }, { signal: ctx.signal, onProgress: (f) => ctx.progress?.(0.8 + 0.2 * f) }),
  );
  await save(ctx, A.background, background);
  if (existsSync(speech)) await save(ctx, A.speech16k, speech, 'audio/wav');
}

// ------------------------------------------------------------------ transcribe_segments

/** Longest region handed to ASR as one segment; longer speech is cut at its quietest gaps by the VAD already. */
export const MAX_SEGMENT_SEC = 15;
/** Regions closer than this are one segment (a breath inside a sentence). */
export const JOIN_GAP_SEC = 0.35;

/** Joins close regions and splits very long ones, so each is a subtitle-sized segment. */
export function segmentRegions(regions: readonly SpeechRegion[], maxSec = MAX_SEGMENT_SEC, joinGap = JOIN_GAP_SEC): SpeechRegion[] {
  const sorted = [...regions].filter((r) => r.end > r.start).sort((a, b) => a.start - b.start);
  const joined: SpeechRegion[] = [];
  for (const r of sorted) {
    const last = joined[joined.length - 1];
    if (last && r.start - last.end <= joinGap && r.end - last.start <= maxSec) last.end = Math.max(last.end, r.end);
    else joined.push({ start: r.start, end: r.end });
  }
  const out: SpeechRegion[] = [];
  for (const r of joined) {
    const len = r.end - r.start;
    if (len <= maxSec) {
      out.push(r);
      continue;
    }
    const n = Math.ceil(len / maxSec);
    for (let i = 0; i < n; i++) out.push({ start: r.start + (len * i) / n, end: r.start + (len * (i + 1)) / n });
  }
  return out;
}

export async function transcribeSegments(ctx: ProjectStageContext): Promise<void> {
  if (ctx.project.src_srt_media_id) {
    const cues = await srtCues(ctx, ctx.project.src_srt_media_id, 'source');
    await saveJson(ctx, A.regions, cues.map((c) => ({ start: c.start, end: c.end })));
    return;
  }
  const regions = segmentRegions(await speechRegions(ctx));
  if (regions.length === 0) throw new StageFailure('no_words', 'No speech was found in the video', 'no_speech');
  await saveJson(ctx, A.regions, regions);
}

// ------------------------------------------------------------------ transcription

/** Seconds of speech per transcription chunk: the unit of resuming after a restart and of progress. */
export const ASR_CHUNK_SPEECH_SEC = 180;
/** Regions shorter than this are not transcribed (as the engines do). */
const MIN_ASR_REGION_SEC = 0.1;

/**
 * Splits the regions into chunks of about equal speech, in order: at least `minParts` (the CPU slots, so
 * a short file still keeps every core busy), more for long files (about `chunkSec` of speech each); one
 * chunk under 20 s of speech. Regions too short to transcribe are left out.
 */
export function planAsrChunks(
  regions: readonly SpeechRegion[],
  o: { durationSec: number; minParts: number; chunkSec?: number },
): SpeechRegion[][] {
  const usable = regions.filter((r) => Math.min(r.end, o.durationSec) - Math.max(0, r.start) >= MIN_ASR_REGION_SEC);
  if (usable.length === 0) return [];
  const len = (r: SpeechRegion) => Math.min(r.end, o.durationSec) - Math.max(0, r.start);
  const total = usable.reduce((s, r) => s + len(r), 0);
  const parts = Math.max(1, Math.min(usable.length, Math.max(o.minParts, Math.ceil(total / (o.chunkSec ?? ASR_CHUNK_SPEECH_SEC)))));
  if (parts === 1 || total < 20) return [usable];
  const chunks: SpeechRegion[][] = Array.from({ length: parts }, () => []);
  let acc = 0;
  for (const r of usable) {
    chunks[Math.min(parts - 1, Math.floor((acc / total) * parts))]!.push(r);
    acc += len(r);
  }
  return chunks.filter((c) => c.length > 0);
}

/**
 * A recognised segment as stored: its words' scores mapped to the chance each is right (the engine's calibration),
 * and the segment's confidence, the engine's own or its words' duration-weighted one (issue 33).
 */
export function scored(asr: Pick<AsrEngine, 'wordConfidence'>, s: AsrSegment): AsrSegment {
  const map = asr.wordConfidence;
  const words = map ? s.words.map((w) => (w.confidence === undefined ? w : { ...w, confidence: map(w.confidence) })) : s.words;
  const confidence = s.confidence ?? wordsConfidence(words);
  return { ...s, words, ...(confidence !== null ? { confidence } : {}) };
}

export async function transcription(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  let segs: NewSegment[];
  if (project.src_srt_media_id) {
    // the user's words, timed from the voice (issue 33)
    segs = await segmentsFromSrt(ctx, project.src_srt_media_id);
  } else if (await hasSourceText(ctx)) {
    segs = await segmentsFromText(ctx, segmentRegions(await speechRegions(ctx)), MAX_SEGMENT_SEC);
  } else {
    const regions = (await loadJson<SpeechRegion[]>(ctx, A.regions)) ?? segmentRegions(await speechRegions(ctx));
    const asr = await deps.engines.asrFor(project.src_lang);
    if (!asr) throw new StageFailure('transcription_failed', `Speech recognition is not available for the language "${project.src_lang}"`);
    await ready(asr);
    const wav = await input(ctx, A.audio16k);
    // the separation's speech estimate: recognised beside the mix, each region keeps the surer hypothesis (issue 33)
    const stem = asr.localWordConfidences && (await deps.storage.exists(key(ctx, A.speech16k))) ? await input(ctx, A.speech16k) : null;
    const info = readWavInfo(wav);
    // a region where the separation removed little is clean speech: only the mix is recognised there
    const envelopes = stem ? await Promise.all([wavRmsEnvelopeAsync(wav, 0.05), wavRmsEnvelopeAsync(stem, 0.05)]) : null;
    const worthStem = (r: SpeechRegion) => !!envelopes && removedShare(envelopes[0], envelopes[1], r.start, r.end) >= CLEAN_SHARE;
    // the customer's words (the project's word list and its dictionary's terms): the recognizer is told them
    const terms = await recognitionTerms(deps.db, project);
    const slots = cpuSlots().limit;
    const chunks = planAsrChunks(regions, { durationSec: info.durationSec, minParts: slots });
    const fingerprint = (c: SpeechRegion[]) =>
      createHash('sha256').update(JSON.stringify([asr.id, project.src_lang, info.frames, info.sampleRate, stem ? 'best-input' : 'mix', c, ...(terms.length ? [terms] : [])])).digest('hex').slice(0, 32);
    const saved = new Map((await findCheckpoints<AsrSegment[]>(deps.db, project.id, 'transcription')).map((r) => [r.chunk, r]));
    const speech = chunks.map((c) => c.reduce((s, r) => s + Math.min(r.end, info.durationSec) - Math.max(0, r.start), 0));
    const total = speech.reduce((a, b) => a + b, 0) || 1;
    let done = 0;
    let resumed = 0;
    let fromStem = 0;
    const out = await timed(ctx, 'asr', () =>
      mapLimit(chunks, slots, async (chunk, i) => {
        const fp = fingerprint(chunk);
        const hit = saved.get(i);
        let res: AsrSegment[];
        if (hit && hit.fingerprint === fp) {
          res = hit.data;
          resumed++;
        } else {
          checkAborted(ctx);
          const best = await transcribeBestInput(asr, wav, stem, chunk, project.src_lang, { signal: ctx.signal, parallel: 1, worthStem, terms });
          res = best.segments;
          fromStem += best.choices.filter((c) => c.input === 'speech').length;
          await saveCheckpoint(deps.db, project.id, 'transcription', { chunk: i, fingerprint: fp, data: res });
        }
        done += speech[i]!;
        ctx.progress?.(done / total);
        return res;
      }),
    );
    if (stem) ctx.log('transcription input', { projectId: project.id, regions: regions.length, fromSpeechEstimate: fromStem });
    if (resumed > 0) ctx.log('transcription resumed', { projectId: project.id, chunks: chunks.length, resumed });
    segs = out
      .flat()
      .filter((s) => s.text.trim() !== '' && s.end > s.start)
      .map((s) => scored(asr, s))
      .map((s) => ({ start: s.start, end: s.end, speaker: '', src: s.text.trim(), dst: '', status: 'processing', words: s.words, asr_confidence: s.confidence ?? null }));
  }
  checkAborted(ctx);
  if (segs.length === 0) {
    await clearCheckpoints(deps.db, project.id, 'transcription');
    throw new StageFailure('no_words', 'No words were recognised in the video', 'no_words');
  }
  await deps.db.tx(async (t) => {
    await deleteAllSegments(t, project.id);
    await insertSegments(t, project.id, segs);
    await clearCheckpoints(t, project.id, 'transcription');
  });
}

// ------------------------------------------------------------------ determine_speakers

/** Seconds of each speaker's speech measured for their voice profile. */
const PROFILE_SEC = 60;

export async function determineSpeakers(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  const segs = await segmentsOf(deps.db, project.id);
  if (segs.length === 0) throw new StageFailure('determine_speakers_failed', 'The transcript is empty');
  const diar = await ready(deps.engines.diarization);
  const wav = await input(ctx, A.audio16k);
  const res = await timed(ctx, 'diarization', () =>
    diar.diarize(wav, segs.map((s) => ({ start: s.start_sec, end: s.end_sec })), {
      signal: ctx.signal,
      numSpeakers: project.num_speakers ?? undefined,
      onProgress: (f) => ctx.progress?.(f),
    }),
  );
  if (res.labels.length !== segs.length) {
    throw new Error(`speaker detection returned ${res.labels.length} labels for ${segs.length} segments`);
  }
  checkAborted(ctx);
  const order: string[] = [];
  for (const l of res.labels) if (!order.includes(l)) order.push(l);
  const profiles = new Map(res.profiles.map((p) => [p.speaker, p]));
  // Each speaker's voice profile, measured on the separation's speech estimate where there is one (the music
  // under the voice disturbs pitch and formants): gender from pitch and formants, unsure under GENDER_SURE.
  const voiceWav = (await ctx.deps.storage.exists(key(ctx, A.speech16k))) ? await input(ctx, A.speech16k) : wav;
  const measured = new Map<string, VoiceProfile>();
  for (const id of order) {
    checkAborted(ctx);
    const ranges = segs.filter((_, i) => res.labels[i] === id).map((s) => ({ start: s.start_sec, end: s.end_sec }));
    const sample = await speechSample(
      { wav: voiceWav, ranges, keepSec: PROFILE_SEC, trimToKeep: true, gapSec: 0, out: join(ctx.tmp, `profile-${order.indexOf(id)}.wav`), profileSec: PROFILE_SEC },
      { signal: ctx.signal },
    ).catch(() => null);
    if (sample?.profile) measured.set(id, sample.profile);
  }
  await deps.db.tx(async (t) => {
    await setSegmentSpeakers(t, project.id, segs.map((s, i) => ({ id: s.id, speaker: res.labels[i]! })));
    await replaceSpeakers(
      t,
      project.id,
      order.map((id, i) => {
        const m = measured.get(id);
        return {
          id,
          name: `Speaker ${i + 1}`,
          gender: m ? ((m.gender_confidence ?? 1) >= GENDER_SURE ? m.gender : null) : (profiles.get(id)?.gender ?? null),
          pitch_hz: m?.median_hz ?? profiles.get(id)?.meanPitchHz ?? null,
          profile: m ?? null,
        };
      }),
    );
  });
  // The other languages of a multi-language create: their projects start from this analysis.
  const made = await makePendingLanguages(deps, project.id);
  for (const id of made) await ctx.enqueue?.(id, 'voice_suggest');
  if (made.length > 0) ctx.log('language projects made', { projectId: project.id, projects: made });
}

// ------------------------------------------------------------------ voice_suggest

export async function voiceSuggest(ctx: ProjectStageContext): Promise<void> {
  const { project, deps } = ctx;
  const tts = await deps.engines.ttsFor(project.dst_lang);
  if (!tts) throw new StageFailure('voice_suggest_failed', `No voice is available for the language "${project.dst_lang}"`);
  await ready(tts);
  // a cloning engine's clones belong to the Teamspaces' voice presets: never suggested as stock voices
  const cloned = await clonedEngineVoiceIds(deps.db);
  const all = (await deps.engines.voices(project.dst_lang)).filter((v) => !cloned.has(v.id));
  if (all.length === 0) throw new StageFailure('voice_suggest_failed', `No voice is available for the language "${project.dst_lang}"`);
  const speakers = await speakersOf(deps.db, project.id);
  // Suggestions come from the language's preferred engine (the configured one, e.g. ElevenLabs over
  // espeak-ng); a voice a person chose and locked stays, whatever its engine.
  const locked = new Set(speakers.filter((s) => s.voice_locked && s.voice_id).map((s) => s.voice_id));
  const own = all.filter((v) => v.engine === tts.id);
  const voices = own.length > 0 ? [...own, ...all.filter((v) => v.engine !== tts.id && locked.has(v.id))] : all;
  // a speaker someone gave a voice preset (a clone) keeps it
  const picks = chooseVoices(speakers.filter((s) => !(s.voice_locked && presetIdOfVoice(s.voice_id))), voices);
  // speakers recognised among the Teamspace's cast are named and voiced as the cast says (undone in the editor)
  const stock = new Set(voices.map((x) => x.id));
  const cast = await recogniseCast(deps, project, speakers, async (id) => stock.has(id) || (await presetForVoice(deps, project, id)) !== null);
  await deps.db.tx(async (t) => {
    for (const [speakerId, voiceId] of picks) await setSpeakerVoice(t, project.id, speakerId, voiceId, false);
    await applyCast(t, project.id, cast, picks);
    // the engines of the voices the speakers now have (a kept clone of another engine counts too)
    await updateProjectFields(t, project.id, { tts_provider: (await ttsProviderOfSpeakers(deps, t, project)) ?? tts.id });
  });
}
