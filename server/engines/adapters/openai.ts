// OpenAI-compatible adapter: one implementation for OpenAI and for self-hosted servers speaking the
// same API (faster-whisper servers such as speaches, Kokoro-FastAPI, Ollama, vLLM, LocalAI).
//   ASR  POST {base}/audio/transcriptions  multipart: file, model, response_format=verbose_json,
//        timestamp_granularities[]=word and segment, language. Long audio is sent in chunks cut at
//        speech-region boundaries (the API takes at most 25 MB per file).
//   TTS  POST {base}/audio/speech  {model, input, voice, speed, response_format:'wav'}; the WAV is
//        checked for completeness and written atomically.
//   MT   POST {base}/chat/completions  with response_format json_object, the glossary's terms and a
//        length budget per segment; a result over its budget is sent back to be shortened.
//   AI rewrite (POST /api/tools/summarize) through the same chat endpoint.
// {base} is the OpenAI SDK convention: it includes /v1 (https://api.openai.com/v1).
import * as v from 'valibot';
import { readWavInfo } from '../../media/wav';
import {
  EngineError,
  type AsrEngine,
  type AsrSegment,
  type EngineCallOptions,
  type GlossaryTerm,
  type MtEngine,
  type SpeechRegion,
  type TtsEngine,
  type Voice,
  type Word,
} from '../types';
import { completeWav, sliceWav, writeFileAtomic } from './audio';
import {
  LLM_MT_LANGUAGES,
  OPENAI_TTS_LANGUAGES,
  OPENAI_VOICES,
  OPENAI_WHISPER_LANGUAGES,
  allPairs,
  languageName,
  whisperLanguage,
} from './capabilities';
import { EngineHttpClient, EngineResponseError, abortError, type HttpClientOptions } from './http';

/** Options every adapter passes through to its HTTP client (timeouts, retries, test hooks). */
export type SharedHttpOptions = Pick<HttpClientOptions, 'timeoutMs' | 'retry' | 'sleep' | 'fetch' | 'log'>;

export interface OpenAiEndpoint {
  /** Base URL including the API version, e.g. https://api.openai.com/v1 or http://localhost:11434/v1. */
  baseUrl: string;
  /** Bearer key; null for servers that need none. */
  apiKey: string | null;
  model: string;
}

export interface OpenAiVoiceSpec {
  id: string;
  /** Language code, or '*' for a multilingual voice (every language of the engine). */
  lang: string;
  gender: 'male' | 'female';
  dialect?: string;
  pitch?: number;
  name?: string;
}

export const ENGINE = 'openai';

function client(ep: OpenAiEndpoint, http: SharedHttpOptions | undefined): EngineHttpClient {
  return new EngineHttpClient({
    engine: ENGINE,
    baseUrl: ep.baseUrl,
    headers: ep.apiKey ? { Authorization: `Bearer ${ep.apiKey}` } : {},
    secrets: [ep.apiKey],
    ...(http ?? {}),
  });
}

function baseLang(lang: string): string {
  return lang.toLowerCase().split(/[-_]/)[0]!;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Languages written without spaces between words. */
const UNSPACED = new Set(['ja', 'zh', 'th', 'lo', 'km', 'my', 'bo']);

// ------------------------------------------------------------------------------------------------ ASR

const WordSchema = v.object({ word: v.string(), start: v.number(), end: v.number() });
const SegmentSchema = v.object({
  start: v.number(),
  end: v.number(),
  text: v.string(),
  words: v.optional(v.nullable(v.array(WordSchema))),
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
export function verboseToSegments(res: Verbose, offset: number, regions: readonly SpeechRegion[], lang: string): AsrSegment[] {
  const joiner = UNSPACED.has(baseLang(lang)) ? '' : ' ';
  const topWords = (res.words ?? []).map((w) => ({ text: w.word.trim(), start: w.start + offset, end: w.end + offset }));
  const rawSegments = res.segments?.length
    ? res.segments
    : res.text.trim()
      ? [{ start: 0, end: res.duration ?? regions[regions.length - 1]!.end - offset, text: res.text, words: null }]
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
      words = seg.words.map((w) => ({ text: w.word.trim(), start: w.start + offset, end: w.end + offset }));
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
        return { text: w.text, start: round3(s), end: round3(Math.min(Math.max(w.end, s), end)) };
      });
    out.push({ start: round3(start), end: round3(end), text, words });
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

function issuePath(issues: ReadonlyArray<v.BaseIssue<unknown>>): string {
  const i = issues[0];
  if (!i) return 'invalid';
  const path = i.path?.map((p) => String(p.key)).join('.') ?? '';
  return `${path ? `${path}: ` : ''}${i.message}`;
}

// ------------------------------------------------------------------------------------------------ TTS

export interface OpenAiTtsOptions extends OpenAiEndpoint {
  /** Voices the server offers (default: OpenAI's six multilingual voices). */
  voices?: readonly OpenAiVoiceSpec[];
  /** Languages for multilingual ('*') voices (default: OpenAI's text-to-speech list). */
  languages?: readonly string[];
  http?: SharedHttpOptions;
}

export const OPENAI_TTS_MAX_INPUT = 4096;

export function createOpenAiTts(o: OpenAiTtsOptions): TtsEngine {
  const http = client(o, o.http);
  const specs: OpenAiVoiceSpec[] = [...(o.voices ?? OPENAI_VOICES.map((x) => ({ ...x, lang: '*' })))];
  const multi = [...(o.languages ?? OPENAI_TTS_LANGUAGES)];
  const langs = [...new Set(specs.flatMap((s) => (s.lang === '*' ? multi : [baseLang(s.lang)])))];
  const voiceFor = (s: OpenAiVoiceSpec, lang: string): Voice => ({
    id: s.id,
    name: s.name ?? s.id.replace(/^[a-z]{2}_/, '').replace(/^./, (c) => c.toUpperCase()),
    lang,
    gender: s.gender,
    pitch: s.pitch ?? (s.gender === 'male' ? 120 : 210),
    engine: ENGINE,
    ...(s.dialect ? { dialect: s.dialect } : {}),
  });
  return {
    id: ENGINE,
    label: `OpenAI-compatible speech (${o.model} at ${new URL(o.baseUrl).host})`,
    supportsCloning: false,
    available: () => true,
    async init() {},
    languages: () => langs,
    voices(lang) {
      const code = baseLang(lang);
      return specs.filter((s) => (s.lang === '*' ? multi.includes(code) : baseLang(s.lang) === code)).map((s) => voiceFor(s, code));
    },
    async synthesize(req, co: EngineCallOptions = {}) {
      const code = baseLang(req.lang);
      if (!langs.includes(code)) throw new EngineError('unsupported_language', `engine ${ENGINE} does not speak '${req.lang}'`);
      const spec = specs.find((s) => s.id === req.voiceId && (s.lang === '*' || baseLang(s.lang) === code));
      if (!spec) throw new EngineError('unknown_voice', `engine ${ENGINE} has no voice '${req.voiceId}' for '${req.lang}'`);
      const text = req.text.trim();
      if (!text) throw new EngineError('bad_input', 'nothing to synthesise: the text is empty');
      if (text.length > OPENAI_TTS_MAX_INPUT) {
        throw new EngineError('bad_input', `engine ${ENGINE} synthesises at most ${OPENAI_TTS_MAX_INPUT} characters per call (got ${text.length})`);
      }
      const speed = Math.min(4, Math.max(0.25, Number.isFinite(req.rate) && req.rate > 0 ? req.rate : 1));
      const res = await http.request('POST', '/audio/speech', {
        json: { model: o.model, input: text, voice: spec.id, speed: round3(speed), response_format: 'wav' },
        signal: co.signal,
        what: 'speech synthesis',
      });
      const { wav, info } = completeWav(ENGINE, res.body, 'speech synthesis');
      if (co.signal?.aborted) throw abortError(ENGINE);
      writeFileAtomic(req.outPath, wav);
      return { durationSec: info.durationSec };
    },
  };
}

// ----------------------------------------------------------------------------------------- chat / MT

const ChatResponseSchema = v.object({
  choices: v.pipe(
    v.array(v.object({ message: v.object({ content: v.nullable(v.string()) }), finish_reason: v.optional(v.nullable(v.string())) })),
    v.minLength(1),
  ),
});

const TranslationsSchema = v.object({
  translations: v.array(v.object({ id: v.union([v.number(), v.pipe(v.string(), v.transform(Number))]), text: v.string() })),
});

/** Parses a model's JSON answer, tolerating code fences or prose around the object. */
export function parseModelJson(engine: string, content: string, what: string): unknown {
  const t = content.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  try {
    return JSON.parse(t);
  } catch {
    const a = t.indexOf('{');
    const b = t.lastIndexOf('}');
    if (a >= 0 && b > a) {
      try {
        return JSON.parse(t.slice(a, b + 1));
      } catch {
        /* fall through */
      }
    }
    throw new EngineResponseError(engine, `${what}: the model did not answer with a JSON object`);
  }
}

export interface OpenAiChatOptions extends OpenAiEndpoint {
  /** Languages offered for translation (default: the Whisper list). */
  languages?: readonly string[];
  /** Segments per request (default 40). */
  batchSize?: number;
  /** Characters of source text per request (default 6000). */
  batchChars?: number;
  /** How many times an over-budget translation is sent back to be shortened (default 2). */
  shortenRounds?: number;
  temperature?: number;
  http?: SharedHttpOptions;
}

class ChatClient {
  readonly http: EngineHttpClient;
  constructor(readonly o: OpenAiChatOptions) {
    this.http = client(o, o.http);
  }

  /** One chat completion in JSON mode; returns the parsed JSON object of the answer. */
  async completeJson(system: string, user: unknown, what: string, signal?: AbortSignal): Promise<unknown> {
    const json = await this.http.json('POST', '/chat/completions', {
      json: {
        model: this.o.model,
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: JSON.stringify(user) },
        ],
        response_format: { type: 'json_object' },
        temperature: this.o.temperature ?? 0.2,
      },
      signal,
      what,
    });
    const parsed = v.safeParse(ChatResponseSchema, json);
    if (!parsed.success) throw new EngineResponseError(ENGINE, `${what}: not a chat completion (${issuePath(parsed.issues)})`);
    const choice = parsed.output.choices[0]!;
    if (choice.finish_reason === 'length') throw new EngineResponseError(ENGINE, `${what}: the answer was cut off (finish_reason length)`);
    const content = choice.message.content;
    if (content === null || !content.trim()) throw new EngineResponseError(ENGINE, `${what}: the answer is empty`);
    return parseModelJson(ENGINE, content, what);
  }
}

function translateSystemPrompt(src: string, dst: string, hasGlossary: boolean): string {
  return [
    `You translate video transcripts for dubbing from ${languageName(src)} (${src}) into ${languageName(dst)} (${dst}).`,
    'The user sends JSON: {"source_language","target_language","glossary":[{"source","target"}],"segments":[{"id","text","max_chars"}]}.',
    'Translate every segment on its own, naturally, as spoken language, keeping names, numbers and meaning.',
    hasGlossary ? 'Glossary: wherever a glossary source term occurs, use exactly its target term in the translation.' : '',
    'max_chars, when present, is the longest translation that fits the time the speaker has: stay within it, shortening the wording if needed, never dropping meaning that matters.',
    'Answer with a JSON object only: {"translations":[{"id":<the segment id>,"text":"<translation>"}]}, one entry per segment, same ids.',
  ]
    .filter(Boolean)
    .join('\n');
}

function shortenSystemPrompt(dst: string, hasGlossary: boolean): string {
  return [
    `You shorten ${languageName(dst)} (${dst}) dubbing lines so they fit the time the speaker has.`,
    'The user sends JSON: {"target_language","glossary","segments":[{"id","source","previous_translation","max_chars"}]}.',
    'Each previous_translation is too long. Rewrite it in the target language with at most max_chars characters, keeping the meaning of source; prefer shorter words and drop filler.',
    hasGlossary ? 'Keep the glossary target terms.' : '',
    'Answer with a JSON object only: {"translations":[{"id":<the segment id>,"text":"<shorter translation>"}]}.',
  ]
    .filter(Boolean)
    .join('\n');
}

export function createOpenAiMt(o: OpenAiChatOptions): MtEngine {
  const chat = new ChatClient(o);
  const langs = [...(o.languages ?? LLM_MT_LANGUAGES)];
  const pairs = allPairs(langs);
  const batchSize = o.batchSize ?? 40;
  const batchChars = o.batchChars ?? 6000;
  const rounds = o.shortenRounds ?? 2;

  async function ask(
    system: string,
    payload: { segments: Array<{ id: number }> } & Record<string, unknown>,
    what: string,
    signal?: AbortSignal,
  ): Promise<Map<number, string>> {
    const json = await chat.completeJson(system, payload, what, signal);
    const parsed = v.safeParse(TranslationsSchema, json);
    if (!parsed.success) throw new EngineResponseError(ENGINE, `${what}: expected {"translations":[{"id","text"}]} (${issuePath(parsed.issues)})`);
    const wanted = new Set(payload.segments.map((s) => s.id));
    const out = new Map<number, string>();
    for (const t of parsed.output.translations) if (wanted.has(t.id) && t.text.trim()) out.set(t.id, t.text.trim());
    return out;
  }

  return {
    id: ENGINE,
    label: `OpenAI-compatible translation (${o.model} at ${new URL(o.baseUrl).host})`,
    supportsGlossary: true,
    available: () => true,
    async init() {},
    pairs: () => pairs,
    async translate(texts, src, dst, co = {}) {
      const s = baseLang(src);
      const d = baseLang(dst);
      if (!langs.includes(s) || !langs.includes(d)) {
        throw new EngineError('unsupported_language', `engine ${ENGINE} does not translate ${src} -> ${dst}`);
      }
      if (co.maxChars && co.maxChars.length !== texts.length) {
        throw new EngineError('bad_input', `maxChars has ${co.maxChars.length} entries for ${texts.length} texts`);
      }
      const glossary: GlossaryTerm[] = (co.glossary ?? []).filter((g) => g.source.trim() && g.target.trim());
      const out = texts.map(() => '');
      const todo = texts.map((t, id) => ({ id, text: t, max: co.maxChars?.[id] })).filter((x) => x.text.trim() !== '');
      // Batches bounded by segment count and source characters.
      const batches: Array<typeof todo> = [];
      let cur: typeof todo = [];
      let chars = 0;
      for (const x of todo) {
        if (cur.length && (cur.length >= batchSize || chars + x.text.length > batchChars)) {
          batches.push(cur);
          cur = [];
          chars = 0;
        }
        cur.push(x);
        chars += x.text.length;
      }
      if (cur.length) batches.push(cur);

      for (const batch of batches) {
        const gl = glossary.filter((g) => batch.some((x) => x.text.toLowerCase().includes(g.source.toLowerCase())));
        const payload = (items: typeof batch) => ({
          source_language: s,
          target_language: d,
          glossary: gl,
          segments: items.map((x) => ({ id: x.id, text: x.text, ...(x.max ? { max_chars: x.max } : {}) })),
        });
        const got = await ask(translateSystemPrompt(s, d, gl.length > 0), payload(batch), 'translation', co.signal);
        const missing = batch.filter((x) => !got.has(x.id));
        if (missing.length) {
          // Models sometimes skip an item in a long list: ask once more for just those.
          const again = await ask(translateSystemPrompt(s, d, gl.length > 0), payload(missing), 'translation', co.signal);
          for (const [k, val] of again) got.set(k, val);
          const still = missing.filter((x) => !got.has(x.id));
          if (still.length) {
            throw new EngineResponseError(ENGINE, `translation: the model left out ${still.length} segment(s) (ids ${still.map((x) => x.id).join(', ')})`);
          }
        }
        for (const x of batch) out[x.id] = got.get(x.id)!;

        // Length budget: send over-budget lines back to be shortened; keep the shortest rendering.
        for (let round = 0; round < rounds; round++) {
          const over = batch.filter((x) => x.max !== undefined && x.max > 0 && out[x.id]!.length > x.max);
          if (!over.length) break;
          const shorter = await ask(
            shortenSystemPrompt(d, gl.length > 0),
            {
              target_language: d,
              glossary: gl,
              segments: over.map((x) => ({ id: x.id, source: x.text, previous_translation: out[x.id]!, max_chars: x.max! })),
            },
            'translation shortening',
            co.signal,
          );
          for (const x of over) {
            const t = shorter.get(x.id);
            if (t && t.length < out[x.id]!.length) out[x.id] = t;
          }
        }
      }
      return out;
    },
  };
}

// ------------------------------------------------------------------------------------------ rewrite

export interface TextRewriter {
  id: string;
  label?: string;
  /**
   * Rewrites (summarises) `text` in its language, within `maxChars` when given, following
   * `instructions` when given (e.g. "make it more formal").
   */
  rewrite(req: { text: string; lang: string; maxChars?: number; instructions?: string }, o?: EngineCallOptions): Promise<string>;
}

const RewriteSchema = v.object({ text: v.string() });

export function createOpenAiRewriter(o: OpenAiChatOptions): TextRewriter {
  const chat = new ChatClient(o);
  return {
    id: ENGINE,
    label: `OpenAI-compatible rewrite (${o.model} at ${new URL(o.baseUrl).host})`,
    async rewrite(req, co = {}) {
      const text = req.text.trim();
      if (!text) throw new EngineError('bad_input', 'nothing to rewrite: the text is empty');
      const lang = baseLang(req.lang);
      const system = [
        `You rewrite lines of a video script in ${languageName(lang)} (${lang}) so they are shorter and easier to speak, keeping their meaning.`,
        'The user sends JSON: {"task":"rewrite","language","text","max_chars","instructions"}.',
        'Stay in the same language. Respect max_chars when present. Follow instructions when present.',
        'Answer with a JSON object only: {"text":"<rewritten text>"}.',
      ].join('\n');
      let best: string | null = null;
      for (let attempt = 0; attempt < 1 + (o.shortenRounds ?? 2); attempt++) {
        const json = await chat.completeJson(
          system,
          {
            task: 'rewrite',
            language: lang,
            text: best ?? text,
            ...(req.maxChars ? { max_chars: req.maxChars } : {}),
            ...(req.instructions ? { instructions: req.instructions } : {}),
          },
          'rewrite',
          co.signal,
        );
        const parsed = v.safeParse(RewriteSchema, json);
        if (!parsed.success || !parsed.output.text.trim()) throw new EngineResponseError(ENGINE, 'rewrite: expected {"text": "..."}');
        const t = parsed.output.text.trim();
        if (best === null || t.length < best.length) best = t;
        if (!req.maxChars || best.length <= req.maxChars) break;
      }
      return best!;
    },
  };
}
