// The customer's words for the built-in recognizer (issue 33 part 2). pocketsphinx only recognises words that are
// in both its pronunciation dictionary and its language model, and its CLI cannot add words to the binary model.
// So a term word is given to the decoder as an alternate pronunciation of a "carrier": a proper noun of the
// language model (its unigram and bigram probabilities are those of a name in a sentence), written into a
// per-decode copy of cmudict as `carrier(N) PHONES`. pocketsphinx reports which pronunciation won (`carrier(N)`),
// and the word is mapped back to the term. A genuine "carrier" keeps its own pronunciations and text.
// Pronunciations: cmudict's own when the word is there, else espeak-ng's phonemes (`-x`, ASCII) mapped to the
// CMU phone set (ESPEAK_TO_CMU). All file work runs in child processes (espeak-ng, awk), not on the event loop.
import { appendFile, copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../../media/run';
import { which } from './util';

/** Distinct words (of terms and the list together) given to one decode. */
export const TERM_WORDS_MAX = 400;

/** The CMU / pocketsphinx en-us phones (without stress). @internal */
export const CMU_PHONES = new Set([
  'AA', 'AE', 'AH', 'AO', 'AW', 'AY', 'B', 'CH', 'D', 'DH', 'EH', 'ER', 'EY', 'F', 'G', 'HH', 'IH', 'IY', 'JH', 'K',
  'L', 'M', 'N', 'NG', 'OW', 'OY', 'P', 'R', 'S', 'SH', 'T', 'TH', 'UH', 'UW', 'V', 'W', 'Y', 'Z', 'ZH',
]);

/**
 * espeak-ng en-us phonemes (`espeak-ng -x --sep=_`, stress marks removed) to CMU phones. An empty list drops the
 * phoneme (glottal stop, syllable and length marks).
 */
export const ESPEAK_TO_CMU: Readonly<Record<string, readonly string[]>> = {
  // vowels
  a: ['AE'], 'a#': ['AH'], aa: ['AE'], 'a:': ['AA'], 'A:': ['AA'], 'A@': ['AA', 'R'], A: ['AA'],
  aI: ['AY'], aI3: ['AY', 'ER'], 'aI@': ['AY', 'ER'], aU: ['AW'], 'aU@': ['AW', 'ER'],
  '@': ['AH'], '@2': ['AH'], '@5': ['AH'], '@-': ['AH'], '@L': ['AH', 'L'], '3': ['ER'], '3:': ['ER'],
  E: ['EH'], E2: ['EH'], 'e@': ['EH', 'R'], eI: ['EY'], e: ['EY'],
  i: ['IY'], 'i:': ['IY'], 'i@': ['IY', 'AH'], 'i@3': ['IH', 'R'], I: ['IH'], I2: ['IH'], 'I#': ['IH'],
  '0': ['AA'], 'O:': ['AO'], O: ['AO'], O2: ['AO'], 'O@': ['AO', 'R'], 'o@': ['AO', 'R'], oU: ['OW'], OI: ['OY'],
  U: ['UH'], 'u:': ['UW'], 'U@': ['UH', 'R'], V: ['AH'],
  // consonants
  p: ['P'], b: ['B'], t: ['T'], 't#': ['T'], t2: ['T'], d: ['D'], k: ['K'], g: ['G'], x: ['K'],
  f: ['F'], v: ['V'], T: ['TH'], D: ['DH'], s: ['S'], z: ['Z'], S: ['SH'], Z: ['ZH'], h: ['HH'],
  m: ['M'], n: ['N'], 'n-': ['N'], N: ['NG'], l: ['L'], 'l-': ['L'], r: ['R'], 'r-': ['R'], w: ['W'], W: ['W'],
  j: ['Y'], tS: ['CH'], dZ: ['JH'],
  '?': [], ';': [], ':': [], '': [],
};

/**
 * One word's espeak-ng `-x --sep=_` output (e.g. `k_@_m_p_j_'u:_t#_3`) as CMU phones (`K AH M P Y UW T ER`).
 * Unknown phonemes are dropped; null when nothing is left.
 */
export function espeakToCmu(x: string): string[] | null {
  const out: string[] = [];
  for (const raw of x.trim().split(/[_\s]+/)) {
    const tok = raw.replace(/^[',%=]+/, '');
    const mapped = ESPEAK_TO_CMU[tok] ?? ESPEAK_TO_CMU[tok.replace(/[;:]$/, '')];
    if (mapped) out.push(...mapped);
  }
  // two identical consonants in a row (word-internal geminates espeak writes once, "t#_t") are one in CMU
  const dedup = out.filter((p, i) => i === 0 || p !== out[i - 1] || /^(AA|AE|AH|AO|AW|AY|EH|ER|EY|IH|IY|OW|OY|UH|UW)$/.test(p));
  return dedup.length ? dedup : null;
}

/** A recognisable word: lower case letters (any script), digits and inner apostrophes. */
const FOLD: Readonly<Record<string, string>> = { ø: 'o', æ: 'ae', œ: 'oe', ß: 'ss', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i' };

export function normalizeTermWord(w: string): string {
  return w
    .toLowerCase()
    .replace(/[øæœßđðłþı]/g, (c) => FOLD[c] ?? c)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9']+/g, '')
    .replace(/^'+|'+$/g, '');
}

/** Terms (single or multi-word) as distinct words, in order, at most `max`. Words of one letter are left out. */
export function termWords(terms: readonly string[], max = TERM_WORDS_MAX): string[] {
  const seen = new Set<string>();
  for (const t of terms) {
    for (const part of t.split(/[\s\-_/.,;:!?()"]+/)) {
      const w = normalizeTermWord(part);
      if (w.length < 2 || /^\d+$/.test(w) || seen.has(w)) continue;
      seen.add(w);
      if (seen.size >= max) return [...seen];
    }
  }
  return [...seen];
}

/** CMU phones of each word by espeak-ng (en-us), one child process for all words. */
export async function espeakPronunciations(words: readonly string[], signal?: AbortSignal): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (words.length === 0 || !which('espeak-ng')) return out;
  // one word per clause: espeak writes one output line per line ending with a full stop
  const r = await run('espeak-ng', ['-q', '-x', '--sep=_', '-v', 'en-us', '--stdin'], { input: words.map((w) => `${w}.`).join('\n') + '\n', signal, timeoutMs: 60_000 });
  const lines = r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.length !== words.length) return out; // not aligned: no guessing
  words.forEach((w, i) => {
    // a word espeak spells out or splits ("a_b c") keeps all of its parts
    const phones = espeakToCmu(lines[i]!.replace(/\s+/g, '_'));
    if (phones) out.set(w, phones);
  });
  return out;
}

export interface LexiconInfo {
  /** cmudict pronunciations (phones) of the words it has. */
  dict: Map<string, string[][]>;
  /** Words of the list that are in the language model's vocabulary. */
  inLm: Set<string>;
}

/** Looks `words` up in cmudict and in the language model's vocabulary (both in child processes). */
export async function lookupLexicon(dictPath: string, lmVocabPath: string | null, words: readonly string[], dir: string, signal?: AbortSignal): Promise<LexiconInfo> {
  const list = join(dir, 'terms.words');
  await writeFile(list, words.join('\n') + '\n');
  const awk = 'NR==FNR{w[$1]=1;next} {k=$1; sub(/\\(.*/,"",k); if (k in w) print}';
  const r = await run('awk', [awk, list, dictPath], { signal, timeoutMs: 60_000 });
  const dict = new Map<string, string[][]>();
  for (const line of r.stdout.split('\n')) {
    const t = line.trim().split(/\s+/);
    if (t.length < 2) continue;
    const w = t[0]!.replace(/\(\d+\)$/, '');
    const prons = dict.get(w) ?? [];
    prons.push(t.slice(1));
    dict.set(w, prons);
  }
  const inLm = new Set<string>();
  if (lmVocabPath) {
    const v = await run('awk', ['NR==FNR{w[$1]=1;next} ($1 in w){print $1}', list, lmVocabPath], { signal, timeoutMs: 60_000 });
    for (const w of v.stdout.split('\n')) if (w.trim()) inLm.add(w.trim());
  }
  return { dict, inLm };
}

/**
 * The carrier words: names of the en-us language model in the contexts product and place names come in (a place,
 * a company or product, a person). Every one the dictionary and the model both have carries each term
 * pronunciation, so the term gets the likeliest of their contexts; their own pronunciations are kept.
 */
export const CARRIERS: readonly string[] = ['london', 'microsoft', 'john', 'the', 'a', 'and', 'of', 'to', 'in'];

export interface TermDict {
  /** The decode's dictionary: cmudict plus the added pronunciations. */
  dictPath: string;
  /** `carrier(N)` -> the term word it stands for. */
  aliases: Map<string, string>;
  /** Words added (with where their pronunciation came from). */
  added: Array<{ word: string; phones: string[]; source: 'cmudict' | 'espeak' }>;
  /** Words that got no pronunciation. */
  missing: string[];
}

/**
 * Writes `dir/terms.dict` (cmudict + one alternate pronunciation of the carrier per term pronunciation) for the
 * term words the language model lacks. Words the model already has are recognisable as they are.
 */
export async function buildTermDict(
  o: { dictPath: string; lmVocabPath: string | null; words: readonly string[]; dir: string; signal?: AbortSignal },
): Promise<TermDict | null> {
  if (o.words.length === 0) return null;
  const lex = await lookupLexicon(o.dictPath, o.lmVocabPath, [...o.words, ...CARRIERS], o.dir, o.signal);
  const carriers = CARRIERS.filter((c) => lex.dict.has(c) && (!o.lmVocabPath || lex.inLm.has(c)));
  if (carriers.length === 0) return null;
  const need = o.words.filter((w) => !CARRIERS.includes(w) && !(lex.dict.has(w) && lex.inLm.has(w)));
  const noDict = need.filter((w) => !lex.dict.has(w));
  const guessed = await espeakPronunciations(noDict, o.signal);
  const added: TermDict['added'] = [];
  const missing: string[] = [];
  const aliases = new Map<string, string>();
  const next = new Map(carriers.map((c) => [c, (lex.dict.get(c)?.length ?? 1) + 1]));
  const lines: string[] = [];
  for (const w of need) {
    const known = lex.dict.get(w);
    const prons = known ?? (guessed.has(w) ? [guessed.get(w)!] : []);
    if (prons.length === 0) {
      missing.push(w);
      continue;
    }
    for (const p of prons) {
      for (const c of carriers) {
        const n = next.get(c)!;
        next.set(c, n + 1);
        const alias = `${c}(${n})`;
        aliases.set(alias, w);
        lines.push(`${alias} ${p.join(' ')}`);
      }
      added.push({ word: w, phones: p, source: known ? 'cmudict' : 'espeak' });
    }
  }
  if (lines.length === 0) return null;
  const dictPath = join(o.dir, 'terms.dict');
  await copyFile(o.dictPath, dictPath);
  await appendFile(dictPath, lines.join('\n') + '\n');
  return { dictPath, aliases, added, missing };
}
