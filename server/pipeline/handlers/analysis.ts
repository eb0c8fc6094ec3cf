// Stages 2-6: background separation, speech segmentation (VAD), transcription (ASR or a source SRT),
// speakers (diarization) and a voice per speaker.
import type { SpeechRegion } from '../../engines/types';
import { replaceSpeakers, speakersOf, setSpeakerVoice, updateProjectFields } from '../../domains/projects/repository';
import {
  deleteAllSegments, insertSegments, segmentsOf, setSegmentSpeakers, type NewSegment,
} from '../../domains/transcript/repository';
import type { StageContext } from '../pipeline';
import { ready } from '../engines';
import { StageFailure } from '../stages';
import { A, checkAborted, input, loadJson, save, saveJson, scratch, speechRegions, srtCues, timed } from './common';
import { chooseVoices } from './voices';

// ------------------------------------------------------------------ separate_background

export async function separateBackground(ctx: StageContext): Promise<void> {
  const regions = await speechRegions(ctx);
  const sep = await ready(ctx.deps.engines.separation);
  const voice = scratch(ctx, A.voice);
  const background = scratch(ctx, A.background);
  const audio = await input(ctx, A.audio48k);
  await timed(ctx, 'separation', () => sep.separate(audio, regions, { voice, background }, { signal: ctx.signal }));
  await save(ctx, A.voice, voice);
  await save(ctx, A.background, background);
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

export async function transcribeSegments(ctx: StageContext): Promise<void> {
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

export async function transcription(ctx: StageContext): Promise<void> {
  const { project, deps } = ctx;
  let segs: NewSegment[];
  if (project.src_srt_media_id) {
    const cues = await srtCues(ctx, project.src_srt_media_id, 'source');
    segs = cues.map((c) => ({ start: c.start, end: c.end, speaker: '', src: c.text.replace(/\s*\n\s*/g, ' ').trim(), dst: '', status: 'processing' }));
  } else {
    const regions = (await loadJson<SpeechRegion[]>(ctx, A.regions)) ?? segmentRegions(await speechRegions(ctx));
    const asr = await deps.engines.asrFor(project.src_lang);
    if (!asr) throw new StageFailure('transcription_failed', `Speech recognition is not available for the language "${project.src_lang}"`);
    await ready(asr);
    const wav = await input(ctx, A.audio16k);
    const out = await timed(ctx, 'asr', () => asr.transcribe(wav, regions, project.src_lang, { signal: ctx.signal }));
    segs = out
      .filter((s) => s.text.trim() !== '' && s.end > s.start)
      .map((s) => ({ start: s.start, end: s.end, speaker: '', src: s.text.trim(), dst: '', status: 'processing', words: s.words }));
  }
  checkAborted(ctx);
  if (segs.length === 0) throw new StageFailure('no_words', 'No words were recognised in the video', 'no_words');
  await deps.db.tx(async (t) => {
    await deleteAllSegments(t, project.id);
    await insertSegments(t, project.id, segs);
  });
}

// ------------------------------------------------------------------ determine_speakers

export async function determineSpeakers(ctx: StageContext): Promise<void> {
  const { project, deps } = ctx;
  const segs = await segmentsOf(deps.db, project.id);
  if (segs.length === 0) throw new StageFailure('determine_speakers_failed', 'The transcript is empty');
  const diar = await ready(deps.engines.diarization);
  const wav = await input(ctx, A.audio16k);
  const res = await timed(ctx, 'diarization', () =>
    diar.diarize(wav, segs.map((s) => ({ start: s.start_sec, end: s.end_sec })), {
      signal: ctx.signal,
      numSpeakers: project.num_speakers ?? undefined,
    }),
  );
  if (res.labels.length !== segs.length) {
    throw new Error(`speaker detection returned ${res.labels.length} labels for ${segs.length} segments`);
  }
  checkAborted(ctx);
  const order: string[] = [];
  for (const l of res.labels) if (!order.includes(l)) order.push(l);
  const profiles = new Map(res.profiles.map((p) => [p.speaker, p]));
  await deps.db.tx(async (t) => {
    await setSegmentSpeakers(t, project.id, segs.map((s, i) => ({ id: s.id, speaker: res.labels[i]! })));
    await replaceSpeakers(
      t,
      project.id,
      order.map((id, i) => ({
        id,
        name: `Speaker ${i + 1}`,
        gender: profiles.get(id)?.gender ?? null,
        pitch_hz: profiles.get(id)?.meanPitchHz ?? null,
      })),
    );
  });
}

// ------------------------------------------------------------------ voice_suggest

export async function voiceSuggest(ctx: StageContext): Promise<void> {
  const { project, deps } = ctx;
  const tts = await deps.engines.ttsFor(project.dst_lang);
  if (!tts) throw new StageFailure('voice_suggest_failed', `No voice is available for the language "${project.dst_lang}"`);
  await ready(tts);
  const all = await deps.engines.voices(project.dst_lang);
  if (all.length === 0) throw new StageFailure('voice_suggest_failed', `No voice is available for the language "${project.dst_lang}"`);
  const speakers = await speakersOf(deps.db, project.id);
  // Suggestions come from the language's preferred engine (the configured one, e.g. ElevenLabs over
  // espeak-ng); a voice a person chose and locked stays, whatever its engine.
  const locked = new Set(speakers.filter((s) => s.voice_locked && s.voice_id).map((s) => s.voice_id));
  const own = all.filter((v) => v.engine === tts.id);
  const voices = own.length > 0 ? [...own, ...all.filter((v) => v.engine !== tts.id && locked.has(v.id))] : all;
  const picks = chooseVoices(speakers, voices);
  await deps.db.tx(async (t) => {
    for (const [speakerId, voiceId] of picks) await setSpeakerVoice(t, project.id, speakerId, voiceId, false);
    await updateProjectFields(t, project.id, { tts_provider: tts.id });
  });
}
