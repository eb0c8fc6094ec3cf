// Pure dictionary checks on text (no I/O), shared by the translation stage, the transcript answers, the
// voiceover (pronunciations) and the quality report:
// - termsFor: the MT engines' view of the entries (a "do not translate" term's target is the term itself);
// - checkSegmentTerms: which terms a segment's source holds (expected) and which of their translations its
//   target holds (found), so a segment with a missing term can be marked;
// - applyPronunciations: the target text with each term's pronunciation in its place, for the voice only.
import type { GlossaryEntry } from '../../../contract/schemas/glossary';

export type TermEntry = Pick<GlossaryEntry, 'source' | 'target'> & Partial<Omit<GlossaryEntry, 'source' | 'target'>>;

export interface TermHit {
  source: string;
  /** The text expected in the translation (the term itself when it is not translated). */
  target: string;
}

export interface SegmentTermCheck {
  expected: TermHit[];
  found: TermHit[];
  missing: TermHit[];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A letter, digit or underscore (one code point): what a whole-word match must not touch on either side. */
const WORD_CHAR = /^[\p{L}\p{N}_]$/u;
/** The code point that ends just before `i` ('' at the start). */
function charBefore(s: string, i: number): string {
  if (i <= 0) return '';
  const c = s.charCodeAt(i - 1);
  return c >= 0xdc00 && c <= 0xdfff && i >= 2 ? s.slice(i - 2, i) : s.charAt(i - 1);
}
/** The code point that starts at `i` ('' at the end). */
const charAfter = (s: string, i: number): string => (i < s.length ? String.fromCodePoint(s.codePointAt(i)!) : '');

/**
 * A whole-word, whitespace-tolerant matcher of `term` (case-insensitive unless `caseSensitive`). The expression is
 * the escaped term alone, without Unicode property classes: those make each new expression cost about a
 * millisecond to compile, once per term, which a dictionary of thousands of terms turned into seconds. The word
 * boundaries are checked on each match with one shared expression (wholeMatches).
 */
function matcher(term: string, caseSensitive: boolean): RegExp | null {
  const t = term.trim();
  if (!t) return null;
  const body = t.split(/\s+/).map(escape).join('\\s+');
  return new RegExp(body, `g${caseSensitive ? '' : 'i'}`);
}

/** The whole-word matches of `re` (a matcher) in `text`, as [start, end) offsets, left to right, not overlapping. */
function wholeMatches(re: RegExp, text: string, first = false): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const a = m.index;
    const b = a + m[0].length;
    if (b > a && !WORD_CHAR.test(charBefore(text, a)) && !WORD_CHAR.test(charAfter(text, b))) {
      out.push([a, b]);
      if (first) break;
      re.lastIndex = b;
    } else {
      re.lastIndex = a + 1;
    }
  }
  return out;
}

const hasWhole = (re: RegExp | null | undefined, text: string): boolean => !!re && wholeMatches(re, text, true).length > 0;

/** The text a term must appear as in the translation. */
export function expectedTarget(e: TermEntry): string {
  return (e.do_not_translate || !e.target.trim() ? e.source : e.target).trim();
}

/** Entries as the MT engines take them ({source, target}), "do not translate" terms mapped to themselves. */
export function termsFor(entries: readonly TermEntry[]): Array<{ source: string; target: string; caseSensitive?: boolean }> {
  return entries
    .filter((e) => e && typeof e.source === 'string' && e.source.trim())
    .map((e) => ({ source: e.source.trim(), target: expectedTarget(e), ...(e.case_sensitive ? { caseSensitive: true } : {}) }));
}

/** Does `text` contain `term` as a whole word? @internal */
export function containsTerm(text: string, term: string, caseSensitive = false): boolean {
  return hasWhole(matcher(term, caseSensitive), text);
}

/** A term's leading word (letters, digits, _), lower-cased: a segment can only hold the term if it has this word. */
const WORD = /[\p{L}\p{N}_]+/gu;
const leadWord = (term: string) => /^[\p{L}\p{N}_]+/u.exec(term.trim())?.[0].toLowerCase() ?? null;

/** An entry with its matchers, compiled on first use (a Unicode matcher is slow to build). */
interface Item {
  at: number;
  e: TermEntry;
  src?: RegExp | null;
  dst?: RegExp | null;
}

interface TermIndex {
  /** Entries by their leading word, in dictionary order within a word. */
  byWord: Map<string, Item[]>;
  /** Entries that start with another character (checked on every segment). */
  other: Item[];
}

/** Per entry list (one dictionary read), its index: matchers built once, not once per segment and term. */
const indexes = new WeakMap<readonly TermEntry[], TermIndex>();

function termIndex(entries: readonly TermEntry[]): TermIndex {
  let ix = indexes.get(entries);
  if (ix) return ix;
  ix = { byWord: new Map(), other: [] };
  entries.forEach((e, at) => {
    if (!e?.source?.trim()) return;
    const item: Item = { at, e };
    const w = leadWord(e.source);
    if (w === null) ix.other.push(item);
    else {
      const list = ix.byWord.get(w);
      if (list) list.push(item);
      else ix.byWord.set(w, [item]);
    }
  });
  indexes.set(entries, ix);
  return ix;
}

/**
 * Expected, found and missing dictionary terms of one segment. Only the terms whose leading word is a word of
 * the segment are tried (an index per entry list), so the check is linear in the segment, not in the dictionary.
 */
export function checkSegmentTerms(src: string, dst: string, entries: readonly TermEntry[]): SegmentTermCheck {
  const ix = termIndex(entries);
  const candidates = [...ix.other];
  const seen = new Set<string>();
  for (const m of src.matchAll(WORD)) {
    const w = m[0].toLowerCase();
    if (seen.has(w)) continue;
    seen.add(w);
    const list = ix.byWord.get(w);
    if (list) candidates.push(...list);
  }
  candidates.sort((a, b) => a.at - b.at);
  const expected: TermHit[] = [];
  const found: TermHit[] = [];
  const missing: TermHit[] = [];
  for (const c of candidates) {
    if (c.src === undefined) c.src = matcher(c.e.source, !!c.e.case_sensitive);
    if (!hasWhole(c.src, src)) continue;
    if (c.dst === undefined) c.dst = matcher(expectedTarget(c.e), !!c.e.case_sensitive);
    const hit = { source: c.e.source.trim(), target: expectedTarget(c.e) };
    expected.push(hit);
    // The translation is compared case-insensitively unless the term is case-sensitive (sentence starts).
    if (hasWhole(c.dst, dst)) found.push(hit);
    else missing.push(hit);
  }
  return { expected, found, missing };
}

/** The target text with the pronunciation of each term that has one (longest terms first), for TTS only. */
export function applyPronunciations(text: string, entries: readonly TermEntry[]): string {
  const withSay = entries
    .filter((e) => e?.pronunciation?.trim() && expectedTarget(e))
    .sort((a, b) => expectedTarget(b).length - expectedTarget(a).length);
  let out = text;
  for (const e of withSay) {
    const re = matcher(expectedTarget(e), !!e.case_sensitive);
    if (!re) continue;
    const say = e.pronunciation!.trim();
    let next = '';
    let at = 0;
    for (const [a, b] of wholeMatches(re, out)) {
      next += out.slice(at, a) + say;
      at = b;
    }
    out = next + out.slice(at);
  }
  return out;
}

/** Where one dictionary rule fired in a segment (issue 29): recorded per segment by the translation stage. */
export interface TermRuleHit {
  source: string;
  /** The text expected in the translation. */
  target: string;
  /** The rule: the term is translated as `target`, or kept as written (do not translate). */
  rule: 'translate' | 'do_not_translate';
  case_sensitive: boolean;
  /** [start, end) offsets of the term in the source text. */
  src_at: Array<[number, number]>;
  /** [start, end) offsets of the expected text in the translation (empty when it could not be applied). */
  dst_at: Array<[number, number]>;
  /** The translation holds the term's expected text. */
  applied: boolean;
}

const entryKeys = new WeakMap<readonly TermEntry[], Map<string, TermEntry>>();

/** Every dictionary rule that fired in a segment, with where (same matching as checkSegmentTerms). */
export function termRuleHits(src: string, dst: string, entries: readonly TermEntry[]): TermRuleHit[] {
  const { expected } = checkSegmentTerms(src, dst, entries);
  if (expected.length === 0) return [];
  let byKey = entryKeys.get(entries);
  if (!byKey) {
    byKey = new Map();
    for (const e of entries) if (e?.source?.trim() && !byKey.has(`${e.source.trim()}\u0000${expectedTarget(e)}`)) byKey.set(`${e.source.trim()}\u0000${expectedTarget(e)}`, e);
    entryKeys.set(entries, byKey);
  }
  const out: TermRuleHit[] = [];
  const seen = new Set<string>();
  for (const x of expected) {
    const key = `${x.source}\u0000${x.target}`;
    const e = byKey.get(key);
    if (!e || seen.has(key)) continue;
    seen.add(key);
    const source = x.source;
    const target = x.target;
    const cs = !!e.case_sensitive;
    const srcRe = matcher(source, cs);
    const dstRe = matcher(target, cs);
    const dstAt = dstRe ? wholeMatches(dstRe, dst) : [];
    out.push({
      source, target, rule: e.do_not_translate ? 'do_not_translate' : 'translate', case_sensitive: cs,
      src_at: srcRe ? wholeMatches(srcRe, src) : [], dst_at: dstAt, applied: dstAt.length > 0,
    });
  }
  return out;
}
