// Machine translation with Apertium (rule-based, offline). Installed pairs are discovered once per
// process with `apertium -l`. A batch of texts is translated in one call, each text its own unit: every
// text is a paragraph of its own (blank line between) ending with a sentence-final mark (added when the text
// has none, stripped after), so no word moves to a neighbour and the tagger and transfer rules never see
// across two texts (line mode does not keep them apart: on unpunctuated subtitle lines words drifted to the
// next line). Glossary terms are protected with placeholder tokens that Apertium passes through as unknown
// words, then replaced by the target terms.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommandError } from '../../media/errors';
import { run } from '../../media/run';
import { shortenOffline } from '../offline-shorten';
import { EngineError, type EngineCallOptions, type GlossaryTerm, type MtEngine } from '../types';
import { mapLimit, once, which } from './util';

export const APERTIUM_BIN = 'apertium';
/** Where the language pairs' data live (the analysers used to know a term's gender). */
const APERTIUM_DATA = process.env.APERTIUM_DATA_DIR ?? '/usr/share/apertium';

/** ISO 639-3 (and a few 639-2/B) codes used in Apertium mode names -> ISO 639-1. */
export const ISO3_TO_ISO1: Readonly<Record<string, string>> = {
  afr: 'af', ara: 'ar', arg: 'an', ast: 'ast', bel: 'be', ben: 'bn', bre: 'br', bul: 'bg', cat: 'ca', ces: 'cs',
  cym: 'cy', dan: 'da', deu: 'de', ell: 'el', eng: 'en', epo: 'eo', est: 'et', eus: 'eu', fao: 'fo', fin: 'fi',
  fra: 'fr', gle: 'ga', gla: 'gd', glg: 'gl', heb: 'he', hin: 'hi', hbs: 'sh', hrv: 'hr', srp: 'sr', bos: 'bs',
  hun: 'hu', ind: 'id', isl: 'is', ita: 'it', jpn: 'ja', kaz: 'kk', kor: 'ko', lat: 'la', lit: 'lt', lav: 'lv',
  mkd: 'mk', mlt: 'mt', msa: 'ms', nld: 'nl', nno: 'nn', nob: 'nb', oci: 'oc', pol: 'pl', por: 'pt', ron: 'ro',
  rus: 'ru', slk: 'sk', slv: 'sl', spa: 'es', sqi: 'sq', srd: 'sc', swe: 'sv', tat: 'tt', tur: 'tr', ukr: 'uk',
  urd: 'ur', uzb: 'uz', zho: 'zh', cmn: 'zh', vie: 'vi', tha: 'th', kir: 'ky', fas: 'fa', hye: 'hy', kat: 'ka',
};

/** "eng-spa" -> ['en','es']; regional/variant modes ("spa-eng_US", "oci_aran-cat") are skipped. */
export function parseApertiumMode(mode: string): [string, string] | null {
  const m = /^([a-z]{2,3})-([a-z]{2,3})$/.exec(mode.trim());
  if (!m) return null;
  const conv = (c: string) => (c.length === 2 ? c : ISO3_TO_ISO1[c] ?? null);
  const a = conv(m[1]!);
  const b = conv(m[2]!);
  return a && b ? [a, b] : null;
}

export interface ApertiumOptions {
  timeoutMs?: number;
  /** Texts per apertium call (default 500). */
  batchSize?: number;
}

/** Discovery: installed modes (cached per process). */
export const discoverApertiumModes = once(async (): Promise<Map<string, string>> => {
  const modes = new Map<string, string>(); // "en>es" -> "eng-spa"
  if (!which(APERTIUM_BIN)) return modes;
  const { stdout } = await run(APERTIUM_BIN, ['-l'], { timeoutMs: 30_000 });
  for (const line of stdout.split('\n')) {
    const mode = line.trim();
    const pair = parseApertiumMode(mode);
    if (pair && !modes.has(`${pair[0]}>${pair[1]}`)) modes.set(`${pair[0]}>${pair[1]}`, mode);
  }
  return modes;
});

const PH_PREFIX = 'ZQX';
function phToken(i: number): string {
  let s = '';
  let n = i;
  do {
    s = String.fromCharCode(65 + (n % 26)) + s;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return PH_PREFIX + s;
}
function phIndex(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** Text before a position that ends where a sentence starts. */
const SENTENCE_START = /(^|[.!?]\s+)[¡¿"'«(]*\s*$/u;

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whole-word matcher for a term (Unicode letters/digits as word characters), case-insensitive unless asked. */
export function termRegExp(term: string, caseSensitive = false): RegExp {
  const body = term.trim().split(/\s+/).map(escapeRe).join('\\s+');
  return new RegExp(`(?<![\\p{L}\\p{N}_])${body}(?![\\p{L}\\p{N}_])`, caseSensitive ? 'gu' : 'giu');
}

/** Gender and number of a target term whose head (first word) is a known noun of the target language. */
export interface NounShape {
  gender: 'm' | 'f';
  number: 'sg' | 'pl';
}

/**
 * Stand-in source nouns per target language: a term whose target is a known noun is replaced by a source noun
 * of the same gender and number, so Apertium agrees the article and adjectives with it ("la sala de máquinas",
 * not "el sala"); the stand-in's translation is then replaced by the term. Chosen for one unambiguous
 * translation each, starting with a consonant (no elided article).
 */
const STAND_INS: Readonly<Record<string, Readonly<Record<string, readonly [string, string]>>>> = {
  es: { 'm:sg': ['hammer', 'martillo'], 'm:pl': ['hammers', 'martillos'], 'f:sg': ['zebra', 'cebra'], 'f:pl': ['zebras', 'cebras'] },
  ca: { 'm:sg': ['hammer', 'martell'], 'm:pl': ['hammers', 'martells'], 'f:sg': ['zebra', 'zebra'], 'f:pl': ['zebras', 'zebres'] },
};

interface StandIn {
  /** Index of the target term. */
  i: number;
  /** The stand-in's translation, to be replaced by the term. */
  out: string;
}

export interface ProtectedText {
  text: string;
  targets: string[];
  capitalised: boolean[];
  /** Per term: the source word after it starts with a lower-case letter (no capital after it in the output). */
  lowerNext: boolean[];
  standIns: StandIn[];
}

/**
 * Replaces glossary source terms (longest first, whole words, case-insensitive unless the term is case
 * sensitive) by placeholder tokens, or by a stand-in noun of the target term's gender and number where
 * `nouns` knows it. Returns the protected text and the target term of each replacement.
 */
export function protectTerms(
  text: string,
  glossary: readonly GlossaryTerm[],
  o: { dst?: string; nouns?: ReadonlyMap<string, NounShape | null> } = {},
): ProtectedText {
  const terms = glossary
    .map((g, i) => ({ ...g, i }))
    .filter((g) => g.source.trim() && g.target.trim())
    .sort((a, b) => b.source.length - a.source.length);
  const targets: string[] = [];
  const capitalised: boolean[] = [];
  const lowerNext: boolean[] = [];
  const standIns: StandIn[] = [];
  const table = o.dst ? STAND_INS[o.dst] : undefined;
  const used = new Set<string>();
  let out = text;
  for (const t of terms) {
    out = out.replace(termRegExp(t.source, !!t.caseSensitive), (m: string, offset: number, whole: string) => {
      const idx = targets.length;
      const target = t.target.trim();
      targets.push(target);
      // sentence-initial capital in the source: keep it on the target term
      const before = whole.slice(0, offset);
      capitalised.push(/^\p{Lu}/u.test(m) && SENTENCE_START.test(before));
      lowerNext.push(/^\s+\p{Ll}/u.test(whole.slice(offset + m.length)));
      const shape = o.nouns?.get(target);
      const key = shape ? `${shape.gender}:${shape.number}` : '';
      const stand = table?.[key];
      if (stand && !used.has(key) && !termRegExp(stand[0]).test(text) && !termRegExp(stand[1]).test(text)) {
        used.add(key);
        standIns.push({ i: idx, out: stand[1] });
        return stand[0];
      }
      return phToken(idx);
    });
  }
  return { text: out, targets, capitalised, lowerNext, standIns };
}

/** Lower-cases a capitalised word (not an acronym) at the start of `s`, after blanks. */
function lowerFirstWord(s: string): string {
  return s.replace(/^(\s+)(\p{Lu})(?=\p{Ll})/u, (_m, sp: string, c: string) => sp + c.toLowerCase());
}

/**
 * Puts target terms where their stand-ins and placeholders ended up. A word after a term that Apertium
 * capitalised (the term was an unknown word to it) is lower-cased where the source word after the term was.
 * Returns null when a stand-in cannot be found exactly once (the caller translates again with placeholders).
 */
export function restoreTerms(text: string, targets: readonly string[], capitalised: readonly boolean[] = [], lowerNext: readonly boolean[] = [], standIns: readonly StandIn[] = []): string | null {
  let r = text;
  for (const s of standIns) {
    const re = termRegExp(s.out);
    const hits = [...r.matchAll(re)];
    if (hits.length !== 1) return null;
    const at = hits[0]!.index!;
    const t = targets[s.i]!;
    const atStart = SENTENCE_START.test(r.slice(0, at));
    const term = capitalised[s.i] && atStart ? t.charAt(0).toUpperCase() + t.slice(1) : t;
    const rest = r.slice(at + hits[0]![0].length);
    r = r.slice(0, at) + term + (lowerNext[s.i] ? lowerFirstWord(rest) : rest);
  }
  return r.replace(new RegExp(`${PH_PREFIX}([A-Z]+)(?![\\p{L}\\p{N}])(\\s+\\p{Lu}(?=\\p{Ll}))?`, 'giu'), (m, letters: string, next: string | undefined, offset: number) => {
    const i = phIndex(letters);
    const t = targets[i];
    if (t === undefined) return m;
    const atStart = SENTENCE_START.test(r.slice(0, offset));
    const term = capitalised[i] && atStart ? t.charAt(0).toUpperCase() + t.slice(1) : t;
    return term + (next ? (lowerNext[i] ? next.toLowerCase() : next) : '');
  });
}

/** Removes Apertium's marks (* unknown, # generation error, @ untranslated lemma) not in the source. */
export function cleanApertiumOutput(out: string, source: string): string {
  return out
    .replace(/(^|[^\p{L}\p{N}])([*#@~])(?=[\p{L}\p{N}])/gu, (m, pre: string, mark: string, offset: number) => {
      // keep a mark the source itself had (e.g. "#hashtag", "@name")
      const word = /^[\p{L}\p{N}_]+/u.exec(out.slice(offset + m.length))?.[0] ?? '';
      return source.includes(mark + word) ? m : pre;
    })
    .replace(/\s+([,.;:!?)])/g, '$1')
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/**
 * Line mode drops a text's final full stop and may lower-case its first letter: put back the source's
 * sentence-final punctuation and initial capital.
 */
export function restoreSentenceShape(out: string, source: string): string {
  let r = out;
  const end = /([.!?…]+)["'»)\]]*\s*$/u.exec(source);
  if (end && r && !/[.!?…:;]["'»)\]]*$/u.test(r)) r += end[1];
  const s0 = /\p{L}/u.exec(source)?.[0];
  const o0 = /\p{L}/u.exec(r);
  if (s0 && o0 && s0 === s0.toUpperCase() && s0 !== s0.toLowerCase() && o0[0] === o0[0].toLowerCase()) {
    r = r.slice(0, o0.index) + o0[0].toUpperCase() + r.slice(o0.index + 1);
  }
  return r;
}

/** A text that already ends a sentence (no mark is added to keep it apart from the next one). */
const SENTENCE_END = /[.!?…]["'»)\]]*$/u;

function oneLine(t: string): string {
  return t.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

const nounCache = new Map<string, NounShape | null>();

/**
 * Gender and number of each target term whose first word the target language's analyser knows as a noun
 * (lt-proc with the reverse pair's analyser, cached per process); null for other terms (names, verbs...).
 */
async function nounShapes(mode: string, dst: string, targets: readonly string[], o: EngineCallOptions): Promise<Map<string, NounShape | null>> {
  const out = new Map<string, NounShape | null>();
  const todo = [...new Set(targets)].filter((t) => {
    const k = `${dst}\t${t}`;
    if (nounCache.has(k)) out.set(t, nounCache.get(k)!);
    return !nounCache.has(k);
  });
  const [a, b] = mode.split('-');
  const bin = join(APERTIUM_DATA, `apertium-${a}-${b}`, `${b}-${a}.automorf.bin`);
  const alt = join(APERTIUM_DATA, `apertium-${b}-${a}`, `${b}-${a}.automorf.bin`);
  const analyser = existsSync(bin) ? bin : existsSync(alt) ? alt : null;
  if (todo.length && analyser && which('lt-proc')) {
    const dir = mkdtempSync(join(tmpdir(), 'apertium-'));
    try {
      const heads = todo.map((t) => /^[\p{L}]+/u.exec(t)?.[0] ?? '');
      const inFile = join(dir, 'in.txt');
      writeFileSync(inFile, heads.map((h) => h || 'x').join('\n') + '\n');
      const { stdout } = await run('lt-proc', ['-w', analyser, inFile], { signal: o.signal, timeoutMs: 60_000 });
      const lines = stdout.split('\n');
      todo.forEach((t, i) => {
        const an = heads[i] ? lines[i] ?? '' : '';
        const noun = /<n>(?:<[a-z]+>)*?<(m|f)>(?:<[a-z]+>)*?<(sg|pl)>/.exec(an);
        const shape: NounShape | null = noun ? { gender: noun[1] as 'm' | 'f', number: noun[2] as 'sg' | 'pl' } : null;
        nounCache.set(`${dst}\t${t}`, shape);
        out.set(t, shape);
      });
    } catch (e) {
      if (e instanceof CommandError && e.reason === 'aborted') throw e;
      // no analysis: the terms go through as placeholders
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

export function createApertiumMt(opts: ApertiumOptions = {}): MtEngine {
  let modes: Map<string, string> | null = null;
  const init = async () => {
    modes = await discoverApertiumModes();
  };

  async function translateLines(mode: string, lines: string[], o: EngineCallOptions): Promise<string[]> {
    if (lines.length === 0) return [];
    // The input goes through a file: apertium opens /dev/stdin, which fails on Node's socket stdio.
    const dir = mkdtempSync(join(tmpdir(), 'apertium-'));
    const inFile = join(dir, 'in.txt');
    const added = lines.map((l) => !SENTENCE_END.test(l));
    writeFileSync(inFile, lines.map((l, i) => (added[i] ? `${l} .` : l)).join('\n\n') + '\n');
    let stdout: string;
    try {
      ({ stdout } = await run(APERTIUM_BIN, ['-u', '-f', 'txt', mode, inFile], { signal: o.signal, timeoutMs: opts.timeoutMs ?? 10 * 60_000, cpuSlot: true }));
    } catch (e) {
      if (e instanceof CommandError && e.reason === 'aborted') throw e;
      throw new EngineError('failed', `apertium ${mode} failed: ${(e as Error).message}`, { cause: e });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const out = stdout
      .split(/\n[^\S\n]*\n/)
      .map((t) => t.replace(/\s+/g, ' ').trim())
      .filter((t, i, all) => t !== '' || i < all.length - 1);
    if (out.length === lines.length) return out.map((t, i) => (added[i] ? t.replace(/\s*\.$/, '') : t));
    // the line structure was not kept: fall back to one call per text
    if (lines.length === 1) return [out.join(' ')];
    return mapLimit(lines, 2, async (l) => (await translateLines(mode, [l], o))[0]!);
  }

  return {
    id: 'apertium',
    label: 'Apertium (rule-based MT)',
    supportsGlossary: true,
    init,
    available: () => !!which(APERTIUM_BIN),
    pairs() {
      return modes ? [...modes.keys()].map((k) => k.split('>') as [string, string]) : [];
    },
    async translate(texts, src, dst, o = {}) {
      if (!modes) await init();
      const s = src.toLowerCase().split(/[-_]/)[0]!;
      const d = dst.toLowerCase().split(/[-_]/)[0]!;
      const mode = modes!.get(`${s}>${d}`);
      if (!mode) throw new EngineError('unsupported_language', `apertium has no installed pair ${src} -> ${dst}`);
      const glossary = o.glossary ?? [];
      const nouns = glossary.length && STAND_INS[d] ? await nounShapes(mode, d, glossary.map((g) => g.target.trim()).filter(Boolean), o) : undefined;
      const none: ProtectedText = { text: '', targets: [], capitalised: [], lowerNext: [], standIns: [] };
      const prepared = texts.map((t) => {
        const line = oneLine(t);
        return glossary.length ? { ...protectTerms(line, glossary, { dst: d, nouns }), source: line } : { ...none, text: line, source: line };
      });
      const result = new Array<string>(texts.length).fill('');
      const todo = prepared.map((p, i) => ({ p, i })).filter(({ p }) => p.text.length > 0);
      const batch = opts.batchSize ?? 500;
      for (let k = 0; k < todo.length; k += batch) {
        const chunk = todo.slice(k, k + batch);
        const out = await translateLines(mode, chunk.map(({ p }) => p.text), o);
        const again: number[] = [];
        chunk.forEach(({ p, i }, j) => {
          const r = restoreTerms(restoreSentenceShape(cleanApertiumOutput(out[j] ?? '', p.source), p.source), p.targets, p.capitalised, p.lowerNext, p.standIns);
          if (r === null) again.push(i);
          else result[i] = r;
        });
        // A stand-in noun Apertium did not render as expected: those texts again with placeholders only.
        if (again.length) {
          const plain = again.map((i) => ({ i, p: { ...protectTerms(prepared[i]!.source, glossary), source: prepared[i]!.source } }));
          const out2 = await translateLines(mode, plain.map(({ p }) => p.text), o);
          plain.forEach(({ i, p }, j) => {
            result[i] = restoreTerms(restoreSentenceShape(cleanApertiumOutput(out2[j] ?? '', p.source), p.source), p.targets, p.capitalised, p.lowerNext) ?? '';
          });
        }
      }
      // Length budget: a line over it gets the offline rewrites (contractions, fillers, asides), terms kept.
      if (o.maxChars) {
        const keep = glossary.map((g) => g.target.trim()).filter(Boolean);
        result.forEach((t, i) => {
          const max = o.maxChars![i];
          if (max !== undefined && max > 0 && t.length > max) result[i] = shortenOffline(t, d, { budget: max, keep }).text;
        });
      }
      return result;
    },
  };
}
