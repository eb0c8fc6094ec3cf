// OpenAI-compatible ASR: POST {base}/audio/transcriptions (verbose_json, word and segment timestamps), long
// audio in chunks cut at speech-region boundaries. Shared client and types: ./openai.ts.
import * as v from 'valibot';
import { readWavInfo } from '../../media/wav';
import { EngineError, type AsrEngine, type AsrSegment, type EngineCallOptions, type SpeechRegion, type Word } from '../types';
import { whisperSegmentConfidence, wordsConfidence } from '../builtin/word-confidence';
import { sliceWav } from './audio';
import { OPENAI_WHISPER_LANGUAGES, whisperLanguage } from './capabilities';
import { EngineResponseError } from './errors';
import { ENGINE, baseLang, client, issuePath, round3, type OpenAiEndpoint, type SharedHttpOptions } from './openai';

const UNSPACED = new Set(['ja', 'zh', 'th', 'lo', 'km', 'my', 'bo']);


// ------------------------------------------------------------------------------------------------ ASR

// faster-whisper servers give each word's probability; Whisper's segments their avg_logprob and no_speech_prob
const WordSchema = v.object({ word: v.string(), start: v.number(), end: v.number(), probability: v.optional(v.nullable(v.number())) });
const SegmentSchema = v.object({
  start: v.number(),
  end: v.number(),
  text: v.string(),
  words: v.optional(v.nullable(v.array(WordSchema))),
  avg_logprob: v.optional(v.nullable(v.number())),
  no_speech_prob: v.optional(v.nullable(v.number())),
});
const VerboseSchema = v.object({
  text: v.string(),
  language: v.optional(v.nullable(v.string())),
  duration: v.optional(v.nullable(v.number())),
  words: v.optional(v.nullable(v.array(WordSchema))),
  segments: v.optional(v.nullable(v.array(SegmentSchema))),
});
type Verbose = v.InferOutput<typeof VerboseSchema>;

export interface OpenAiAsrOptions extends OpenAiEndpoint {
  /** Languages offered for transcription (default: OpenAI's documented Whisper list). */
  languages?: readonly string[];
  /** Longest audio sent in one request, in seconds (default 600 s: 19 MB of 16 kHz 16-bit mono). */
  maxChunkSec?: number;
  http?: SharedHttpOptions;
}

/** Groups consecutive regions into chunks no longer than maxSec (a longer single region is its own chunk). */
export function chunkRegions(regions: readonly SpeechRegion[], maxSec: number): SpeechRegion[][] {
  const sorted = [...regions].filter((r) => r.end > r.start).sort((a, b) => a.start - b.start);
  const chunks: SpeechRegion[][] = [];
  let cur: SpeechRegion[] = [];
  for (const r of sorted) {
    if (cur.length && r.end - cur[0]!.start > maxSec) {
      chunks.push(cur);
      cur = [];
    }
    cur.push(r);
  }
  if (cur.length) chunks.push(cur);
  return chunks;
}

/**
 * Turns one verbose_json answer for a chunk starting at `offset` into segments on the file's
 * timeline. Segments that do not touch any speech region (Whisper's inventions over silence or
 * music) are dropped; words come from the top-level list, or the segment's own list (faster-whisper).
 */
/** A word probability as a confidence field (absent when the server sent none). */
function probability(p: number | null | undefined): { confidence?: number } {
  return typeof p === 'number' && Number.isFinite(p) ? { confidence: round3(Math.max(0, Math.min(1, p))) } : {};
}

export function verboseToSegments(res: Verbose, offset: number, regions: readonly SpeechRegion[], lang: string): AsrSegment[] {
  const joiner = UNSPACED.has(baseLang(lang)) ? '' : ' ';
  const word = (w: v.InferOutput<typeof WordSchema>): Word => ({ text: w.word.trim(), start: w.start + offset, end: w.end + offset, ...probability(w.probability) });
  const topWords = (res.words ?? []).map(word);
  const rawSegments = res.segments?.length
    ? res.segments
    : res.text.trim()
      ? [{ start: 0, end: res.duration ?? regions[regions.length - 1]!.end - offset, text: res.text, words: null, avg_logprob: null, no_speech_prob: null }]
      : [];
  const touchesSpeech = (s: number, e: number) => regions.some((r) => s < r.end + 0.3 && e > r.start - 0.3);
  const out: AsrSegment[] = [];
  for (const seg of rawSegments) {
    const start = seg.start + offset;
    const end = Math.max(start, seg.end + offset);
    const text = seg.text.trim();
    if (!text || !touchesSpeech(start, end)) continue;
    let words: Word[];
    if (seg.words?.length) {
      words = seg.words.map(word);
    } else if (topWords.length) {
      words = topWords.filter((w) => {
        const mid = (w.start + w.end) / 2;
        return mid >= start - 0.05 && mid <= end + 0.05;
      });
    } else {
      // No word timestamps from this server: spread the segment's tokens over its time span.
      const tokens = joiner ? text.split(/\s+/) : [text];
      const step = (end - start) / tokens.length;
      words = tokens.map((t, i) => ({ text: t, start: start + i * step, end: start + (i + 1) * step }));
    }
    words = words
      .filter((w) => w.text.length > 0)
      .map((w) => {
        const s = Math.min(Math.max(w.start, start), end);
        return { text: w.text, start: round3(s), end: round3(Math.min(Math.max(w.end, s), end)), ...probability(w.confidence) };
      });
    // the segment's confidence: from its avg_logprob and no_speech_prob, else its words' probabilities
    const confidence = whisperSegmentConfidence(seg.avg_logprob, seg.no_speech_prob) ?? wordsConfidence(words);
    out.push({ start: round3(start), end: round3(end), text, words, ...(confidence !== null ? { confidence } : {}) });
  }
  return out;
}

export function createOpenAiAsr(o: OpenAiAsrOptions): AsrEngine {
  const http = client(o, o.http);
  const languages = [...(o.languages ?? OPENAI_WHISPER_LANGUAGES)];
  const maxChunkSec = o.maxChunkSec ?? 600;
  return {
    id: ENGINE,
    label: `OpenAI-compatible transcription (${o.model} at ${new URL(o.baseUrl).host})`,
    available: () => true,
    async init() {},
    languages: () => languages,
    async transcribe(wav16kMono, regions, lang, co: EngineCallOptions = {}) {
      const code = baseLang(lang);
      if (!languages.includes(code)) throw new EngineError('unsupported_language', `engine ${ENGINE} does not transcribe '${lang}'`);
      const info = readWavInfo(wav16kMono);
      const clipped = regions
        .map((r) => ({ start: Math.max(0, r.start), end: Math.min(r.end, info.durationSec) }))
        .filter((r) => r.end - r.start >= 0.1);
      const out: AsrSegment[] = [];
      for (const chunk of chunkRegions(clipped, maxChunkSec)) {
        const from = Math.max(0, chunk[0]!.start - 0.2);
        const to = Math.min(info.durationSec, chunk[chunk.length - 1]!.end + 0.2);
        const form = new FormData();
        form.append('file', new Blob([new Uint8Array(sliceWav(wav16kMono, from, to, info))], { type: 'audio/wav' }), 'audio.wav');
        form.append('model', o.model);
        form.append('response_format', 'verbose_json');
        form.append('timestamp_granularities[]', 'word');
        form.append('timestamp_granularities[]', 'segment');
        form.append('language', whisperLanguage(code));
        const json = await http.json('POST', '/audio/transcriptions', { form, signal: co.signal, what: 'transcription' });
        const parsed = v.safeParse(VerboseSchema, json);
        if (!parsed.success) {
          throw new EngineResponseError(ENGINE, `transcription: not a verbose_json transcription (${issuePath(parsed.issues)})`);
        }
        out.push(...verboseToSegments(parsed.output, from, chunk, code));
      }
      return out;
    },
  };
}
