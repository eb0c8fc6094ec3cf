// The transcript a user already has (issue 33): a source SRT or a plain text given at creation is aligned to the
// audio instead of recognising it, so the words are the user's and their times the voice's. An SRT keeps its
// cues as segments (their words timed inside each cue window, with slack); a plain text is split over the speech
// regions and becomes one segment per sentence. Languages without an acoustic model here (pocketsphinx has only
// en-us) get times from the speech regions in proportion to the characters, and the project log says so.
import type { SpeechRegion, Word } from '../../../engines/types';
import {
  createPocketsphinxAligner, distributeText, proportionalWords, sentences, tokenize, type Aligner, type AlignWindow,
} from '../../../engines/builtin/align';
import { cpuSlots } from '../../../media/run';
import type { NewSegment } from '../transcript/repository';
import { StageFailure } from '../pipeline/stages';
import { A, input, key, srtCues, timed, type ProjectStageContext } from './common';

/** Artifact holding a plain-text source transcript given at creation (UTF-8). */
export const SOURCE_TEXT = 'source_text.txt';
/** Seconds a cue's window reaches past its times (subtitles are often early or late by this much). */
export const CUE_SLACK_SEC = 0.5;
/** Seconds a speech region's window reaches past the VAD's edges (a soft onset or tail). */
export const REGION_SLACK_SEC = 0.25;
/** Longest plain-text source accepted at creation, in characters. */
export const MAX_SOURCE_TEXT = 200_000;

let aligner: Aligner | null = null;
function defaultAligner(): Aligner {
  return (aligner ??= createPocketsphinxAligner());
}

/** Whether the project was given a plain-text transcript at creation. */
export async function hasSourceText(ctx: ProjectStageContext): Promise<boolean> {
  return ctx.deps.storage.exists(key(ctx, SOURCE_TEXT));
}

/** Times the words of each window: aligned where the language has a model, else in proportion to their length. */
async function timeWords(ctx: ProjectStageContext, windows: AlignWindow[], speech: (i: number) => SpeechRegion[], what: string): Promise<Word[][]> {
  const al = defaultAligner();
  if (al.supports(ctx.project.src_lang)) {
    const wav = await input(ctx, A.audio16k);
    const res = await timed(ctx, 'alignment', () => al.align(wav, windows, { signal: ctx.signal, parallel: cpuSlots().limit }));
    const words = res.reduce((s, r) => s + r.words.length, 0);
    const aligned = res.reduce((s, r) => s + r.aligned, 0);
    ctx.log('transcript aligned', { projectId: ctx.project.id, source: what, windows: windows.length, words, aligned, placedByLength: words - aligned });
    return res.map((r) => r.words);
  }
  ctx.log('transcript timed by length', {
    projectId: ctx.project.id,
    source: what,
    lang: ctx.project.src_lang,
    reason: `no acoustic model for "${ctx.project.src_lang}" to align with: word times spread over the speech regions by their length`,
  });
  return windows.map((w, i) => (w.tokens.length ? proportionalWords(w.tokens, speech(i)) : []));
}

/** The segments of a project given a source SRT: the cues, with their words timed from the voice. */
export async function segmentsFromSrt(ctx: ProjectStageContext, mediaId: string): Promise<NewSegment[]> {
  const cues = await srtCues(ctx, mediaId, 'source');
  const windows = cues.map((c, i) => ({
    // the slack never reaches into a neighbouring cue's own time
    start: Math.max(c.start - CUE_SLACK_SEC, i > 0 ? Math.min(c.start, cues[i - 1]!.end) : 0),
    end: Math.min(c.end + CUE_SLACK_SEC, i + 1 < cues.length ? Math.max(c.end, cues[i + 1]!.start) : Infinity),
    tokens: tokenize(c.text),
  }));
  const words = await timeWords(ctx, windows, (i) => [{ start: cues[i]!.start, end: cues[i]!.end }], 'srt');
  return cues.map((c, i) => ({
    start: c.start, end: c.end, speaker: '', src: c.text.replace(/\s*\n\s*/g, ' ').trim(), dst: '', status: 'processing',
    words: words[i]!.length ? words[i] : null,
  }));
}

/**
 * The segments of a project given a plain-text transcript: one per sentence (longer than `maxSec`: split at its
 * pauses), timed from the voice in the speech regions (subtitle-sized, as recognition gets them).
 */
export async function segmentsFromText(ctx: ProjectStageContext, regions: SpeechRegion[], maxSec: number): Promise<NewSegment[]> {
  const text = (await ctx.deps.storage.getBuffer(key(ctx, SOURCE_TEXT))).toString('utf8');
  const sents = sentences(text);
  if (sents.length === 0) throw new StageFailure('transcription_failed', 'The given transcript has no words');
  if (regions.length === 0) throw new StageFailure('no_words', 'No speech was found in the video', 'no_speech');
  const parts = distributeText(sents, regions);
  const windows: AlignWindow[] = regions.map((r, i) => ({
    start: Math.max(r.start - REGION_SLACK_SEC, i > 0 ? regions[i - 1]!.end : 0),
    end: Math.min(r.end + REGION_SLACK_SEC, i + 1 < regions.length ? regions[i + 1]!.start : Infinity),
    tokens: parts[i]!,
  }));
  // the words in text order (the windows hold the text's tokens in order)
  const placed = (await timeWords(ctx, windows, (i) => [regions[i]!], 'text')).flat();
  const out: NewSegment[] = [];
  let k = 0;
  for (let s = 0; s < sents.length; s++) {
    const words = placed.slice(k, k + sents[s]!.length);
    k += sents[s]!.length;
    for (const piece of splitLong(words, maxSec)) {
      out.push({
        start: piece[0]!.start, end: Math.max(piece[piece.length - 1]!.end, piece[0]!.start + 0.05), speaker: '',
        src: piece.map((w) => w.text).join(' '), dst: '', status: 'processing', words: piece,
      });
    }
  }
  return out;
}

/** A sentence longer than a subtitle-sized segment is cut at its widest pauses between words. */
function splitLong(words: Word[], maxSec: number): Word[][] {
  if (words.length <= 1 || words[words.length - 1]!.end - words[0]!.start <= maxSec) return words.length ? [words] : [];
  let cut = 1;
  let widest = -Infinity;
  const mid = (words[0]!.start + words[words.length - 1]!.end) / 2;
  for (let i = 1; i < words.length; i++) {
    // the widest gap, preferring the middle and a punctuation mark before it
    const gap = words[i]!.start - words[i - 1]!.end + (/[,;:]$/.test(words[i - 1]!.text) ? 0.2 : 0) - Math.abs(words[i]!.start - mid) / 100;
    if (gap > widest) {
      widest = gap;
      cut = i;
    }
  }
  return [...splitLong(words.slice(0, cut), maxSec), ...splitLong(words.slice(cut), maxSec)];
}

/** Reasons a plain-text transcript cannot be used (null when it can). */
export function sourceTextProblem(text: string): string | null {
  if (text.trim() === '') return 'The transcript is empty';
  if (text.length > MAX_SOURCE_TEXT) return `The transcript is too long: at most ${MAX_SOURCE_TEXT.toLocaleString('en')} characters`;
  if (/\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}\s*-->/.test(text)) return 'This text has subtitle timings (-->): upload it as a source subtitle (.srt) file instead';
  if (text.includes('\u0000')) return 'The transcript is not text';
  if (tokenize(text).length === 0) return 'The transcript has no words';
  return null;
}

