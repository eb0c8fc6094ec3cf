// OpenAI-compatible chat completions: machine translation with the glossary and a length budget per segment,
// and the AI rewrite. Shared client and types: ./openai.ts.
import * as v from 'valibot';
import { EngineError, type EngineCallOptions, type GlossaryTerm, type MtEngine } from '../types';
import { LLM_MT_LANGUAGES, allPairs, languageName } from './capabilities';
import { EngineResponseError } from './errors';
import type { EngineHttpClient } from './http';
import { ENGINE, baseLang, client, issuePath, type OpenAiEndpoint, type SharedHttpOptions } from './openai';

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

/** Lines of context sent on each side of a batch. */
const CONTEXT_LINES = 2;

/** A regional variant's instruction ('es-419': Latin American words and usage), '' for a base language. */
function variantLine(dst: string): string {
  return /[-_]/.test(dst)
    ? `Write ${languageName(dst)} (${dst}) as spoken in that region: its vocabulary, spelling, grammar and forms of address, not another region's.`
    : '';
}

function translateSystemPrompt(src: string, dst: string, hasGlossary: boolean): string {
  return [
    `You translate video transcripts for dubbing from ${languageName(src)} (${src}) into ${languageName(dst)} (${dst}).`,
    variantLine(dst),
    'The user sends JSON: {"source_language","target_language","glossary":[{"source","target"}],"context_before":[...],"segments":[{"id","text","max_chars"}],"context_after":[...]}.',
    'The segments are consecutive lines of speech, often cut mid-sentence; context_before and context_after are the lines just around them, for context only (do not translate them).',
    'Translate every segment on its own, naturally, as spoken language, keeping names, numbers and meaning: read its neighbours to understand it, but each translation holds exactly the meaning of its own segment, never a word of the previous or next segment, and segments are never merged or split.',
    hasGlossary
      ? 'Glossary: wherever a glossary source term occurs, use exactly its target term in the translation, keeping the words around it grammatical (articles agree with it, no capital after it mid-sentence); a term marked case_sensitive applies only where the source has exactly that case.'
      : '',
    'max_chars, when present, is the longest translation that fits the time the speaker has: stay within it, shortening the wording if needed, never dropping meaning that matters.',
    'Answer with a JSON object only: {"translations":[{"id":<the segment id>,"text":"<translation>"}]}, one entry per segment, same ids.',
  ]
    .filter(Boolean)
    .join('\n');
}

function shortenSystemPrompt(dst: string, hasGlossary: boolean): string {
  return [
    `You shorten ${languageName(dst)} (${dst}) dubbing lines so they fit the time the speaker has.`,
    variantLine(dst),
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
    // the prompt names the variant ('Latin American Spanish (es-419)')
    regionalVariants: () => true,
    available: () => true,
    async init() {},
    pairs: () => pairs,
    async translate(texts, src, dst, co = {}) {
      const s = baseLang(src);
      const d = baseLang(dst);
      // the target as the prompt names it: the regional variant when there is one ('pt-BR')
      const dt = /[-_]/.test(dst) ? dst.replace('_', '-') : d;
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
        const gl = glossary
          .filter((g) => batch.some((x) => (g.caseSensitive ? x.text.includes(g.source) : x.text.toLowerCase().includes(g.source.toLowerCase()))))
          .map((g) => ({ source: g.source, target: g.target, ...(g.caseSensitive ? { case_sensitive: true } : {}) }));
        // The lines around the batch (in the whole call), as context only.
        const first = batch[0]!.id;
        const last = batch[batch.length - 1]!.id;
        const around = (from: number, to: number) => texts.slice(Math.max(0, from), Math.max(0, to)).map((t) => t.trim()).filter(Boolean);
        const payload = (items: typeof batch) => ({
          source_language: s,
          target_language: dt,
          glossary: gl,
          context_before: around(first - CONTEXT_LINES, first),
          segments: items.map((x) => ({ id: x.id, text: x.text, ...(x.max ? { max_chars: x.max } : {}) })),
          context_after: around(last + 1, last + 1 + CONTEXT_LINES),
        });
        const got = await ask(translateSystemPrompt(s, dt, gl.length > 0), payload(batch), 'translation', co.signal);
        const missing = batch.filter((x) => !got.has(x.id));
        if (missing.length) {
          // Models sometimes skip an item in a long list: ask once more for just those.
          const again = await ask(translateSystemPrompt(s, dt, gl.length > 0), payload(missing), 'translation', co.signal);
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
            shortenSystemPrompt(dt, gl.length > 0),
            {
              target_language: dt,
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
