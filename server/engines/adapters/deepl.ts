// DeepL adapter (machine translation with service-enforced glossaries).
//   POST /v2/translate                 {text:[...], source_lang, target_lang, context?, formality?, glossary_id?}
// Each text is its own unit (DeepL translates every entry of text[] apart, so no word moves between lines);
// the neighbouring lines go in `context` (read, not translated nor billed) so each line is translated knowing
// what is said around it.
//   POST /v2/glossaries                {name, source_lang, target_lang, entries (TSV), entries_format:'tsv'}
//   GET  /v2/glossaries                to reuse a glossary made earlier from the same terms
//   GET  /v2/languages?type=source|target, GET /v2/glossary-language-pairs   capabilities (at init)
// Auth: `Authorization: DeepL-Auth-Key <key>`. Keys ending in ':fx' belong to the Free API
// (https://api-free.deepl.com), others to https://api.deepl.com.
// A project's dictionary becomes a DeepL glossary named after a hash of its content, so the same
// terms reuse the same glossary (in this process and across restarts) instead of creating new ones.
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { EngineError, type EngineCallOptions, type GlossaryTerm, type MtEngine } from '../types';
import {
  DEEPL_FORMALITY_TARGETS,
  DEEPL_GLOSSARY_LANGUAGES,
  DEEPL_SOURCE_LANGUAGES,
  DEEPL_TARGET_LANGUAGES,
  DEEPL_VARIANT_LANGUAGES,
  allPairs,
  fromDeepL,
  toDeepLSource,
  toDeepLTarget,
} from './capabilities';
import { EngineAdapterError, EngineResponseError, abortError } from './errors';
import { EngineHttpClient, defaultSleep } from './http';
import type { SharedHttpOptions } from './openai';

export const ENGINE = 'deepl';

export type DeepLFormality = 'default' | 'more' | 'less' | 'prefer_more' | 'prefer_less';

export interface DeepLOptions {
  apiKey: string;
  /** Default from the key: https://api-free.deepl.com for ':fx' keys, else https://api.deepl.com. */
  baseUrl?: string | null;
  /** Sent only for target languages that support it; 'default' sends nothing. */
  formality?: DeepLFormality;
  /** Texts per /v2/translate request (DeepL allows 50). */
  batchSize?: number;
  http?: SharedHttpOptions;
}

export function deeplBaseUrl(apiKey: string, baseUrl?: string | null): string {
  if (baseUrl) return baseUrl.replace(/\/+$/, '');
  return apiKey.endsWith(':fx') ? 'https://api-free.deepl.com' : 'https://api.deepl.com';
}

export interface DeepLEngine extends MtEngine {
  /** Ordered language pairs for which glossaries can be created. */
  glossaryPairs(): Array<[string, string]>;
  /** Target languages that take the formality parameter. */
  formalityTargets(): string[];
  /** The glossary id for these terms, creating the glossary on first use. */
  ensureGlossary(src: string, dst: string, terms: GlossaryTerm[], o?: EngineCallOptions): Promise<string | null>;
  /** Error of the last capability refresh, if it failed (the static lists stay in use). */
  lastInitError(): string | null;
}

const TranslateSchema = v.object({
  translations: v.array(v.object({ text: v.string(), detected_source_language: v.optional(v.string()) })),
});
const LanguagesSchema = v.array(v.object({ language: v.string(), name: v.optional(v.string()), supports_formality: v.optional(v.boolean()) }));
const GlossaryPairsSchema = v.object({ supported_languages: v.array(v.object({ source_lang: v.string(), target_lang: v.string() })) });
const GlossarySchema = v.object({
  glossary_id: v.string(),
  name: v.optional(v.string()),
  ready: v.optional(v.boolean()),
  source_lang: v.optional(v.string()),
  target_lang: v.optional(v.string()),
  entry_count: v.optional(v.number()),
});
const GlossaryListSchema = v.object({ glossaries: v.array(GlossarySchema) });

/** Cleans dictionary terms for a TSV glossary: trimmed, no tabs/newlines, no empties, first entry per source wins. */
export function glossaryEntries(terms: readonly GlossaryTerm[]): Array<[string, string]> {
  const clean = (s: string) => s.replace(/[\t\r\n]+/g, ' ').replace(/\s+/g, ' ').trim();
  const seen = new Set<string>();
  const out: Array<[string, string]> = [];
  for (const t of terms) {
    const s = clean(t.source);
    const d = clean(t.target);
    if (!s || !d || seen.has(s)) continue;
    seen.add(s);
    out.push([s, d]);
  }
  return out;
}

export function glossaryName(src: string, dst: string, entries: ReadonlyArray<[string, string]>): string {
  const tsv = entries.map(([a, b]) => `${a}\t${b}`).join('\n');
  const hash = createHash('sha256').update(`${src}\n${dst}\n${tsv}`).digest('hex').slice(0, 20);
  return `dubbing-studio ${src}-${dst} ${hash}`;
}

/** Lines of context on each side of a request's texts. */
export const CONTEXT_LINES = 2;
const CONTEXT_CHARS = 4000;

/**
 * The context of the texts [first, last] of a call: the source lines around them and the lines themselves, as
 * one passage (DeepL applies one context to all the texts of a request). Null when a text stands alone.
 */
export function contextFor(texts: readonly string[], first: number, last: number): string | null {
  const from = Math.max(0, first - CONTEXT_LINES);
  const to = Math.min(texts.length - 1, last + CONTEXT_LINES);
  const lines = texts.slice(from, to + 1).map((t) => t.replace(/\s+/g, ' ').trim()).filter(Boolean);
  if (lines.length < 2) return null;
  const passage = lines.join('\n');
  return passage.length > CONTEXT_CHARS ? passage.slice(0, CONTEXT_CHARS) : passage;
}

function baseLang(lang: string): string {
  const b = lang.toLowerCase().split(/[-_]/)[0]!;
  return b === 'no' ? 'nb' : b;
}

export function createDeepLMt(o: DeepLOptions): DeepLEngine {
  const http = new EngineHttpClient({
    engine: ENGINE,
    baseUrl: deeplBaseUrl(o.apiKey, o.baseUrl),
    headers: { Authorization: `DeepL-Auth-Key ${o.apiKey}` },
    secrets: [o.apiKey],
    ...(o.http ?? {}),
  });
  const sleep = o.http?.sleep ?? defaultSleep;
  const batchSize = Math.min(50, o.batchSize ?? 50);
  let sources = [...DEEPL_SOURCE_LANGUAGES];
  let targets = [...DEEPL_TARGET_LANGUAGES];
  let formality = [...DEEPL_FORMALITY_TARGETS];
  let glossaryPairs = allPairs(DEEPL_GLOSSARY_LANGUAGES);
  let initError: string | null = null;
  let initPromise: Promise<void> | null = null;
  const glossaries = new Map<string, Promise<string>>();

  // DeepL lists Norwegian as NB; the app may call it 'no' too.
  const withNo = (langs: string[]) => (langs.includes('nb') && !langs.includes('no') ? [...langs, 'no'] : langs);

  async function refresh(): Promise<void> {
    try {
      // Discovery must not hold up start-up for long: short timeout, two attempts.
      const quick = { timeoutMs: 15_000, maxAttempts: 2 };
      const src = v.parse(LanguagesSchema, await http.json('GET', '/v2/languages', { ...quick, query: { type: 'source' }, what: 'languages' }));
      const dst = v.parse(LanguagesSchema, await http.json('GET', '/v2/languages', { ...quick, query: { type: 'target' }, what: 'languages' }));
      const gp = v.parse(GlossaryPairsSchema, await http.json('GET', '/v2/glossary-language-pairs', { ...quick, what: 'glossary language pairs' }));
      sources = [...new Set(src.map((l) => fromDeepL(l.language)))];
      targets = [...new Set(dst.map((l) => fromDeepL(l.language)))];
      formality = [...new Set(dst.filter((l) => l.supports_formality).map((l) => fromDeepL(l.language)))];
      glossaryPairs = gp.supported_languages.map((p) => [fromDeepL(p.source_lang), fromDeepL(p.target_lang)] as [string, string]);
      initError = null;
    } catch (e) {
      initError = http.redact((e as Error).message);
      http.log(`capability refresh failed, using the documented lists: ${initError}`);
    }
  }

  const supports = (s: string, d: string) => s !== d && withNo(sources).includes(s) && withNo(targets).includes(d);
  const glossaryOk = (s: string, d: string) => glossaryPairs.some(([a, b]) => a === s && b === d);

  async function findOrCreateGlossary(s: string, d: string, entries: Array<[string, string]>, signal?: AbortSignal): Promise<string> {
    const name = glossaryName(s, d, entries);
    const list = v.safeParse(GlossaryListSchema, await http.json('GET', '/v2/glossaries', { signal, what: 'glossary list' }));
    if (!list.success) throw new EngineResponseError(ENGINE, 'glossary list: expected {"glossaries":[...]}');
    const existing = list.output.glossaries.find(
      (g) => g.name === name && fromDeepL(g.source_lang ?? s) === s && fromDeepL(g.target_lang ?? d) === d,
    );
    let g: v.InferOutput<typeof GlossarySchema>;
    if (existing) {
      g = existing;
    } else {
      const created = v.safeParse(
        GlossarySchema,
        await http.json('POST', '/v2/glossaries', {
          json: {
            name,
            source_lang: toDeepLSource(s).toLowerCase(),
            target_lang: toDeepLSource(d).toLowerCase(),
            entries: entries.map(([a, b]) => `${a}\t${b}`).join('\n'),
            entries_format: 'tsv',
          },
          signal,
          what: 'glossary creation',
          idempotent: false,
        }),
      );
      if (!created.success) throw new EngineResponseError(ENGINE, 'glossary creation: the answer has no glossary_id');
      g = created.output;
      http.log(`created glossary ${g.glossary_id} (${entries.length} entries) for ${s}->${d}`);
    }
    // A new glossary may take a moment before translations can use it.
    for (let i = 0; g.ready === false && i < 10; i++) {
      await sleep(500, signal).catch(() => {
        throw abortError(ENGINE);
      });
      const path = `/v2/glossaries/${encodeURIComponent(g.glossary_id)}`;
      const st = v.safeParse(GlossarySchema, await http.json('GET', path, { signal, what: 'glossary status' }));
      if (!st.success) throw new EngineResponseError(ENGINE, 'glossary status: the answer has no glossary_id');
      g = st.output;
    }
    if (g.ready === false) {
      throw new EngineAdapterError(ENGINE, 'unavailable', `engine ${ENGINE}: glossary ${g.glossary_id} did not become ready`, { retryable: true });
    }
    return g.glossary_id;
  }

  const engine: DeepLEngine = {
    id: ENGINE,
    label: 'DeepL',
    supportsGlossary: true,
    regionalVariants: (dst) => DEEPL_VARIANT_LANGUAGES.includes(baseLang(dst)),
    available: () => true,
    init() {
      initPromise ??= refresh();
      return initPromise;
    },
    lastInitError: () => initError,
    pairs: () => {
      const out: Array<[string, string]> = [];
      for (const s of withNo(sources)) for (const d of withNo(targets)) if (s !== d && baseLang(s) !== baseLang(d)) out.push([s, d]);
      return out;
    },
    glossaryPairs: () => glossaryPairs.flatMap(([a, b]) => [[a, b] as [string, string], ...(a === 'nb' ? [['no', b] as [string, string]] : []), ...(b === 'nb' ? [[a, 'no'] as [string, string]] : [])]),
    formalityTargets: () => withNo(formality),

    async ensureGlossary(src, dst, terms, co = {}) {
      const s = baseLang(src);
      const d = baseLang(dst);
      const entries = glossaryEntries(terms);
      if (!entries.length || !glossaryOk(s, d)) return null;
      const key = glossaryName(s, d, entries);
      let p = glossaries.get(key);
      if (!p) {
        p = findOrCreateGlossary(s, d, entries, co.signal);
        glossaries.set(key, p);
        p.catch(() => glossaries.delete(key));
      }
      return p;
    },

    async translate(texts, src, dst, co = {}) {
      const s = baseLang(src);
      const d = baseLang(dst);
      if (!supports(s, d)) throw new EngineError('unsupported_language', `engine ${ENGINE} does not translate ${src} -> ${dst}`);
      const out = texts.map(() => '');
      const todo = texts.map((t, i) => ({ i, t })).filter((x) => x.t.trim() !== '');
      if (!todo.length) return out;
      const target = toDeepLTarget(dst);
      // The whole dictionary becomes one glossary (one per dictionary content, not per batch);
      // it is only needed when one of its terms occurs in these texts.
      const glossaryTerms = co.glossary ?? [];
      const used = glossaryTerms.some((g) => g.source.trim() && todo.some((x) => x.t.toLowerCase().includes(g.source.trim().toLowerCase())));
      let glossaryId = used ? await engine.ensureGlossary(s, d, glossaryTerms, co) : null;
      const useFormality = o.formality && o.formality !== 'default' && formality.includes(d) ? o.formality : undefined;

      for (let k = 0; k < todo.length; ) {
        // Up to batchSize texts and about 100 KiB of text per request (DeepL's limit is 128 KiB).
        const batch: typeof todo = [];
        let bytes = 0;
        while (k < todo.length && batch.length < batchSize) {
          const b = Buffer.byteLength(todo[k]!.t);
          if (batch.length && bytes + b > 100 * 1024) break;
          batch.push(todo[k++]!);
          bytes += b;
        }
        const context = contextFor(texts, batch[0]!.i, batch[batch.length - 1]!.i);
        const body = () => ({
          text: batch.map((x) => x.t),
          ...(context ? { context } : {}),
          source_lang: toDeepLSource(s),
          target_lang: target,
          ...(useFormality ? { formality: useFormality } : {}),
          ...(glossaryId ? { glossary_id: glossaryId } : {}),
        });
        let json: unknown;
        try {
          json = await http.json('POST', '/v2/translate', { json: body(), signal: co.signal, what: 'translation' });
        } catch (e) {
          // The glossary was deleted behind our back: forget it, make it again once.
          if (glossaryId && e instanceof EngineAdapterError && e.reason === 'rejected' && (e.status === 404 || /glossary/i.test(e.message))) {
            glossaries.clear();
            glossaryId = await engine.ensureGlossary(s, d, glossaryTerms, co);
            json = await http.json('POST', '/v2/translate', { json: body(), signal: co.signal, what: 'translation' });
          } else {
            throw e;
          }
        }
        const parsed = v.safeParse(TranslateSchema, json);
        if (!parsed.success) throw new EngineResponseError(ENGINE, 'translation: expected {"translations":[{"text"}]}');
        if (parsed.output.translations.length !== batch.length) {
          throw new EngineResponseError(ENGINE, `translation: ${parsed.output.translations.length} translations for ${batch.length} texts`);
        }
        batch.forEach((x, j) => (out[x.i] = parsed.output.translations[j]!.text));
      }
      return out;
    },
  };
  return engine;
}
