// Forced alignment of a text the user already has (a source SRT, a plain transcript) to the audio (issue 33):
// the words come from the user, their times from the voice. Each window (an SRT cue with some slack, or a
// speech region) is decoded by pocketsphinx_batch under a finite-state grammar that accepts exactly the window's
// word sequence (silence and fillers may come between words); one decoder process per CPU share, each window an
// utterance of the control file with its own grammar (-fsgctl). Words the pronunciation dictionary lacks are left
// out of the grammar and timed between their neighbours by their length; a window the decoder cannot
// finish keeps the times it has and the rest are spread over the window in proportion to their characters.
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CommandError } from '../../media/errors';
import { run } from '../../media/run';
import { readWavInfo } from '../../media/wav';
import { EngineError, type EngineCallOptions, type SpeechRegion, type Word } from '../types';
import { DEFAULT_POCKETSPHINX_MODEL, parseHypsegLine, POCKETSPHINX_BIN } from './pocketsphinx';
import { mapLimit, which } from './util';

const FRAME_RATE = 100;
/** Time a word the decoder could not time gets at least, taken from its neighbours when need be. */
const MIN_WORD_SEC = 0.08;

/** One word of the given text: as written (punctuation kept) and the dictionary keys it is said as. */
export interface TextToken {
  text: string;
  /** Lower-case dictionary words ("ill-disposed" -> ["ill", "disposed"]); empty for a token with no letters. */
  keys: string[];
}

/** The words of a text as written, with their dictionary keys. */
export function tokenize(text: string): TextToken[] {
  return text
    .split(/\s+/)
    .filter((t) => t !== '')
    .map((t) => ({
      text: t,
      keys: t
        .toLowerCase()
        .replace(/[\u2018\u2019\u02bc]/g, "'")
        .split(/[-\u2010-\u2015/]+/)
        .map((k) => k.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '').replace(/[^\p{L}\p{N}']/gu, ''))
        .filter((k) => k !== ''),
    }))
    .filter((t) => /[\p{L}\p{N}]/u.test(t.text));
}

/** Sentences of a plain text (split after . ! ? … and at line breaks), each a run of tokens. */
export function sentences(text: string): TextToken[][] {
  return text
    .split(/(?<=[.!?\u2026]["'\u201d\u2019)\]]?)\s+|\n\s*\n|\r?\n/)
    .map((s) => tokenize(s))
    .filter((s) => s.length > 0);
}

/**
 * A Sphinx finite-state grammar accepting exactly `words` in order (pocketsphinx adds optional silence and
 * filler loops at every state, -fsgusefiller). Words must be dictionary keys (lower case, no spaces).
 */
export function buildFsg(words: readonly string[], name = 'align'): string {
  if (words.length === 0) throw new Error('a grammar needs at least one word');
  for (const w of words) if (!/^[\p{L}\p{N}'.]+$/u.test(w)) throw new Error(`not a dictionary word: ${JSON.stringify(w)}`);
  const lines = [`FSG_BEGIN ${name}`, `NUM_STATES ${words.length + 1}`, 'START_STATE 0', `FINAL_STATE ${words.length}`];
  words.forEach((w, i) => lines.push(`TRANSITION ${i} ${i + 1} 1.0 ${w}`));
  lines.push('FSG_END', '');
  return lines.join('\n');
}

/** The same grammar as JSGF (for tools that take JSGF; pocketsphinx's -jsgf reads it). @internal */
export function buildJsgf(words: readonly string[], name = 'align'): string {
  if (words.length === 0) throw new Error('a grammar needs at least one word');
  return `#JSGF V1.0;\ngrammar ${name};\npublic <utt> = ${words.join(' ')};\n`;
}

/** word -> its dictionary lines ("word  P H O N E S", variants "word(2) ..." included). */
export type PronDict = Map<string, string[]>;

const dictCache = new Map<string, Promise<PronDict>>();
/** The model's pronunciation dictionary, read once per path (asynchronously). */
export function loadDict(path: string): Promise<PronDict> {
  let p = dictCache.get(path);
  if (!p) {
    p = readFile(path, 'utf8').then((text) => {
      const d: PronDict = new Map();
      for (const line of text.split('\n')) {
        const sp = line.indexOf(' ');
        if (sp <= 0) continue;
        const w = line.slice(0, sp).replace(/\(\d+\)$/, '');
        const l = d.get(w);
        if (l) l.push(line.trim());
        else d.set(w, [line.trim()]);
      }
      return d;
    });
    p.catch(() => dictCache.delete(path));
    dictCache.set(path, p);
  }
  return p;
}

/**
 * Spreads tokens over speech intervals in proportion to their characters (plus one for the space): the timing
 * when no alignment is possible (a language without an acoustic model, a window the decoder could not read).
 */
export function proportionalWords(tokens: readonly TextToken[], intervals: readonly SpeechRegion[]): Word[] {
  const iv = intervals.filter((r) => r.end > r.start);
  if (tokens.length === 0) return [];
  if (iv.length === 0) throw new Error('no interval to place the words in');
  const total = iv.reduce((s, r) => s + r.end - r.start, 0);
  const chars = tokens.map((t) => t.text.length + 1);
  const all = chars.reduce((a, b) => a + b, 0);
  // speech time -> clock time
  const at = (x: number): number => {
    let left = x;
    for (const r of iv) {
      const len = r.end - r.start;
      if (left < len - 1e-9) return r.start + left;
      left -= len;
    }
    return iv[iv.length - 1]!.end;
  };
  const out: Word[] = [];
  let acc = 0;
  for (let i = 0; i < tokens.length; i++) {
    const s = (acc / all) * total;
    acc += chars[i]!;
    const e = ((acc - 1) / all) * total;
    const start = at(s);
    // a word is not stretched across a pause between intervals
    const end = Math.max(start + 0.01, Math.min(at(e), iv.find((r) => r.end >= start - 1e-9)?.end ?? at(e)));
    out.push({ text: tokens[i]!.text, start: round3(start), end: round3(end) });
  }
  return out;
}

/** A window to align: its time span and its text. */
export interface AlignWindow {
  start: number;
  end: number;
  tokens: TextToken[];
}

export interface AlignedWindow {
  words: Word[];
  /** Tokens whose times came from the decoder (the rest were placed between them by length). */
  aligned: number;
}

/**
 * Given each token's decoded span (or null), fills the missing ones between their timed neighbours (or the
 * window's edges) in proportion to their characters.
 */
export function fillGaps(tokens: readonly TextToken[], spans: ReadonlyArray<{ start: number; end: number } | null>, win: SpeechRegion): Word[] {
  const out: Word[] = [];
  const sp = spans.map((s) => (s ? { ...s } : null));
  let i = 0;
  while (i < tokens.length) {
    const s = sp[i];
    if (s) {
      out.push({ text: tokens[i]!.text, start: round3(s.start), end: round3(s.end) });
      i++;
      continue;
    }
    let j = i;
    while (j < tokens.length && !sp[j]) j++;
    let from = i > 0 ? out[i - 1]!.end : win.start;
    let to = j < tokens.length ? sp[j]!.start : win.end;
    // no room between the timed neighbours (the decoder gave the missing word's sound to them): each gives up to half
    const need = MIN_WORD_SEC * (j - i);
    if (to - from < need) {
      const short = need - (to - from);
      if (i > 0) {
        const p = out[i - 1]!;
        from = round3(Math.max(p.start + (p.end - p.start) / 2, from - short / 2));
        p.end = from;
      }
      if (j < tokens.length) {
        const n = sp[j]!;
        to = round3(Math.min(n.start + (n.end - n.start) / 2, to + short / 2));
        n.start = to;
      }
    }
    const run = proportionalWords(tokens.slice(i, j), [{ start: from, end: Math.max(to, from + 0.01 * (j - i)) }]);
    out.push(...run);
    i = j;
  }
  return out;
}

export interface AlignerOptions {
  modelDir?: string;
  concurrency?: number;
  timeoutMs?: number;
}

export interface Aligner {
  available(): boolean;
  /** Whether the language has an acoustic model here (only English). */
  supports(lang: string): boolean;
  align(wav16kMono: string, windows: readonly AlignWindow[], o?: EngineCallOptions & { parallel?: number }): Promise<AlignedWindow[]>;
}

export function createPocketsphinxAligner(opts: AlignerOptions = {}): Aligner {
  const modelDir = opts.modelDir ?? DEFAULT_POCKETSPHINX_MODEL;
  const hmm = join(modelDir, 'en-us');
  const dictPath = join(modelDir, 'cmudict-en-us.dict');
  const available = () => !!which(POCKETSPHINX_BIN) && existsSync(hmm) && existsSync(dictPath);

  async function decode(
    dir: string,
    items: Array<{ idx: number; start: number; end: number }>,
    n: number,
    hdr: number,
    o: EngineCallOptions,
  ): Promise<Map<number, Word[]>> {
    const ctl = join(dir, `p${n}.ctl`);
    const fsgctl = join(dir, `p${n}.fsgctl`);
    const hyp = join(dir, `p${n}.hypseg`);
    const log = join(dir, `p${n}.log`);
    writeFileSync(ctl, items.map((w) => `in ${Math.max(0, Math.floor(w.start * FRAME_RATE))} ${Math.ceil(w.end * FRAME_RATE)} w${w.idx}`).join('\n') + '\n');
    writeFileSync(fsgctl, items.map((w) => `w${w.idx}`).join('\n') + '\n');
    const args = [
      '-hmm', hmm, '-dict', join(dir, 'words.dict'),
      '-adcin', 'yes', '-adchdr', String(hdr), '-samprate', '16000',
      '-cepdir', dir, '-cepext', '.wav',
      '-ctl', ctl, '-fsgctl', fsgctl, '-fsgdir', dir, '-fsgext', '.fsg',
      // wider beams than recognition: the grammar is tiny, losing the path is the only failure
      '-beam', '1e-60', '-wbeam', '1e-50', '-pbeam', '1e-60',
      '-hypseg', hyp, '-logfn', log,
    ];
    try {
      await run(POCKETSPHINX_BIN, args, { signal: o.signal, timeoutMs: opts.timeoutMs ?? 30 * 60_000, cpuSlot: true });
    } catch (e) {
      if (e instanceof CommandError && e.reason === 'exit') {
        const tail = existsSync(log) ? readFileSync(log, 'utf8').trimEnd().split('\n').slice(-8).join('\n') : '';
        throw new EngineError('failed', `pocketsphinx alignment failed: ${e.message}\n${tail}`, { cause: e });
      }
      throw e;
    }
    const out = new Map<number, Word[]>();
    for (const line of (existsSync(hyp) ? readFileSync(hyp, 'utf8') : '').split('\n')) {
      const u = parseHypsegLine(line);
      if (u) out.set(Number(u.uttId.slice(1)), u.words);
    }
    return out;
  }

  return {
    available,
    supports: (lang) => lang.toLowerCase().split(/[-_]/)[0] === 'en' && available(),
    async align(wav, windows, o = {}) {
      if (!available()) throw new EngineError('unavailable', 'pocketsphinx or its en-us model is not installed');
      const info = readWavInfo(wav);
      if (info.sampleRate !== 16000 || info.channels !== 1 || info.bitsPerSample !== 16 || info.format !== 1) {
        throw new EngineError('bad_input', 'alignment needs 16 kHz mono 16-bit PCM WAV');
      }
      const dict = await loadDict(dictPath);
      const wins = windows.map((w) => ({ ...w, start: Math.max(0, w.start), end: Math.min(w.end, info.durationSec) }));
      // the dictionary keys each window's grammar can use (in the pronunciation dictionary)
      const known = wins.map((w) => w.tokens.map((t) => t.keys.length > 0 && t.keys.every((k) => dict.has(k))));
      const jobs = wins
        .map((w, idx) => ({ idx, start: w.start, end: w.end, keys: w.tokens.flatMap((t, k) => (known[idx]![k] ? t.keys : [])) }))
        .filter((j) => j.keys.length > 0 && j.end - j.start >= 0.1);
      const decoded = new Map<number, Word[]>();
      if (jobs.length > 0) {
        const dir = mkdtempSync(join(tmpdir(), 'psx-align-'));
        try {
          symlinkSync(resolve(wav), join(dir, 'in.wav'));
          const used = new Set(jobs.flatMap((j) => j.keys));
          writeFileSync(join(dir, 'words.dict'), [...used].sort().flatMap((k) => dict.get(k)!).join('\n') + '\n');
          for (const j of jobs) writeFileSync(join(dir, `w${j.idx}.fsg`), buildFsg(j.keys, `w${j.idx}`));
          const conc = Math.max(1, Math.min(o.parallel ?? opts.concurrency ?? Math.min(2, cpus().length), jobs.length));
          const parts: Array<typeof jobs> = Array.from({ length: conc }, () => []);
          const total = jobs.reduce((s, j) => s + j.end - j.start, 0);
          let acc = 0;
          for (const j of jobs) {
            parts[Math.min(conc - 1, Math.floor((acc / total) * conc))]!.push(j);
            acc += j.end - j.start;
          }
          const maps = await mapLimit(parts.filter((p) => p.length > 0), conc, (p, n) => decode(dir, p, n, info.dataOffset, o));
          for (const m of maps) for (const [k, v] of m) decoded.set(k, v);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
      return wins.map((w, idx) => {
        if (w.tokens.length === 0) return { words: [], aligned: 0 };
        const job = jobs.find((j) => j.idx === idx);
        const hyp = decoded.get(idx) ?? [];
        const frame0 = Math.max(0, Math.floor(w.start * FRAME_RATE)) / FRAME_RATE;
        // the decoded words, in grammar order: a full match, or the prefix the decoder reached
        let n = 0;
        while (job && n < hyp.length && n < job.keys.length && hyp[n]!.text === job.keys[n]) n++;
        const spans: Array<{ start: number; end: number } | null> = [];
        let k = 0;
        w.tokens.forEach((t, ti) => {
          if (!known[idx]![ti]) return spans.push(null);
          const first = k;
          k += t.keys.length;
          if (k > n) return spans.push(null);
          spans.push({ start: frame0 + hyp[first]!.start, end: Math.min(w.end, frame0 + hyp[k - 1]!.end) });
        });
        return { words: fillGaps(w.tokens, spans, w), aligned: spans.filter(Boolean).length };
      });
    },
  };
}

/**
 * Splits a text's sentences over speech regions in order, in proportion to their characters and the regions'
 * lengths; a region's share ends at the nearest sentence end when one is close (within a third of its words), else
 * at the nearest clause mark.
 * Answers one token list per region.
 */
export function distributeText(sents: readonly TextToken[][], regions: readonly SpeechRegion[]): TextToken[][] {
  const tokens = sents.flat();
  const ends = new Set<number>();
  let c = 0;
  for (const s of sents) ends.add((c += s.length));
  const out: TextToken[][] = regions.map(() => []);
  if (tokens.length === 0 || regions.length === 0) return out;
  const chars = tokens.map((t) => t.text.length + 1);
  const allChars = chars.reduce((a, b) => a + b, 0);
  const total = regions.reduce((s, r) => s + Math.max(0, r.end - r.start), 0) || 1;
  let from = 0;
  /** Characters of the tokens before `from`. */
  let accFrom = 0;
  let time = 0;
  for (let r = 0; r < regions.length; r++) {
    if (r === regions.length - 1) {
      out[r] = tokens.slice(from);
      break;
    }
    time += Math.max(0, regions[r]!.end - regions[r]!.start);
    const targetChars = (time / total) * allChars;
    let cut = from;
    let acc = accFrom;
    while (cut < tokens.length && acc + chars[cut]! / 2 <= targetChars) acc += chars[cut++]!;
    const reach = Math.max(1, Math.round((cut - from) / 3));
    // a sentence end when one is close, else a clause mark (, ; : -)
    const clause = (i: number) => i > 0 && /[,;:\u2013\u2014-]["'\u201d\u2019)]?$/.test(tokens[i - 1]!.text);
    let best = -1;
    for (const isEnd of [(i: number) => ends.has(i), clause]) {
      for (let d = 0; d <= reach && best < 0; d++) {
        if (isEnd(cut - d) && cut - d > from) best = cut - d;
        else if (isEnd(cut + d) && cut + d <= tokens.length) best = cut + d;
      }
    }
    if (best >= 0) cut = best;
    out[r] = tokens.slice(from, cut);
    for (let i = from; i < cut; i++) accFrom += chars[i]!;
    from = cut;
  }
  return out;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
