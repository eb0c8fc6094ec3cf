// Stage 4, transcription: recognition (ASR) of the speech regions, or the alignment of a given source SRT or
// plain-text transcript. Transcription works in chunks of speech: they run side by side (one CPU slot each), each
// finished chunk is kept as a checkpoint (a restart goes on from there) and moves the project's progress.
import { createHash } from 'node:crypto';
import type { AsrEngine, AsrSegment, SpeechRegion } from '../../../engines/types';
import { wordsConfidence } from '../../../engines/builtin/word-confidence';
import { mapLimit } from '../../../engines/builtin/util';
import { CLEAN_SHARE, removedShare, transcribeBestInput } from '../../../engines/builtin/asr-input';
import { cpuSlots } from '../../../media/run';
import { readWavInfo, wavRmsEnvelopeAsync } from '../../../media/wav';
import { deleteAllSegments, insertSegments, type NewSegment } from '../transcript/repository';
import { ready } from '../../../engines/registry';
import { clearCheckpoints, findCheckpoints, saveCheckpoint } from '../pipeline/repository';
import { StageFailure } from '../pipeline/stages';
import { A, checkAborted, input, key, loadJson, speechRegions, timed, type ProjectStageContext } from './common';
import { recognitionTerms } from '../asr-words';
import { hasSourceText, segmentsFromSrt, segmentsFromText } from './given-text';
import { MAX_SEGMENT_SEC, segmentRegions } from './transcribe-segments';

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
