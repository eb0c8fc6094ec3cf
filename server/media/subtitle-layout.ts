// Subtitle layout: segments (text over a time slot, optionally with word timings) become readable cues following
// common subtitle guidelines: at most 42 characters per line and 2 lines per cue, line breaks at phrase
// boundaries (never after an article, preposition or conjunction; preferably after punctuation; balanced lines),
// at most 17 characters per second (20 as a hard limit), each cue 0.83 s to 7 s. A long segment becomes several
// cues, timed to its words where word timings exist, else in proportion to characters.
// Pure functions, no I/O. Writers: server/media/subtitles.ts (SRT, VTT; burned subtitles are made from the SRT).
import type { Cue } from './subtitles';

export interface SubtitleLimits {
  /** Characters per line. */
  maxLineChars: number;
  /** Lines per cue. */
  maxLines: number;
  /** Reading speed aimed at (characters per second, spaces included). */
  targetCps: number;
  /** Reading speed never to exceed where the timing allows. */
  maxCps: number;
  /** Seconds a cue stays at least. */
  minDuration: number;
  /** Seconds a cue stays at most. */
  maxDuration: number;
}

export const DEFAULT_SUBTITLE_LIMITS: Readonly<SubtitleLimits> = Object.freeze({
  maxLineChars: 42,
  maxLines: 2,
  targetCps: 17,
  maxCps: 20,
  minDuration: 0.83,
  maxDuration: 7,
});

/** Two frames at 24 fps: the least gap left between two cues. */
export const MIN_GAP_SEC = 0.084;
/** A cue may show this long before its speech starts (to be read in time), and stay this long after it ends. */
export const MAX_LEAD_IN_SEC = 0.5;
export const MAX_LINGER_SEC = 2;

export interface TimedWord {
  text: string;
  start: number;
  end: number;
}

export interface LayoutSegment {
  start: number;
  end: number;
  text: string;
  /** Word timings of the segment's speech (the source's words for a translation: used as the speech's rhythm). */
  words?: readonly TimedWord[] | null;
}

// Words a line must not end with: articles, determiners, prepositions, conjunctions, pronouns that lean on the
// next word (Spanish, English, French, Italian, Portuguese, German). Lower case.
const CLINGING = new Set(
  (
    // es
    'el la los las lo un una unos unas de del al a en con por para sin sobre entre hacia desde hasta tras ante bajo según ' +
    'y e o u ni que se su sus mi mis tu tus nuestro nuestra nuestros nuestras este esta estos estas ese esa esos esas ' +
    'aquel aquella muy más menos no me te le les nos os cuando donde como si pero porque aunque mientras cada otro otra ' +
    // en
    'the a an of to in on at for with by from into onto about as and or but nor so that this these those my your his her ' +
    'its our their is are was were be been not if than then very will would can could should must has have had do does ' +
    // fr / it / pt / de
    'le les des du au aux et ou un une ce cette ces mon ma mes ton ta son sa ses il lo gli i della dello delle dei degli nel nella ' +
    'o os as um uma uns umas do da dos das no na nos nas ao aos pelo pela em der die das ein eine einen einem einer und oder im am zum zur vom'
  ).split(/\s+/),
);
// Conjunctions a new line may start with (a good break before them).
const LINE_STARTERS = new Set('y e o u ni que pero porque aunque mientras cuando donde and or but because while when where which who that et ou mais qui und oder aber'.split(' '));

// Abbreviations whose full stop ends no sentence.
const ABBREVIATIONS = new Set('sr sra srta dr dra ud uds vd vds mr mrs ms st jr prof etc vs núm pág av'.split(' '));

function bare(word: string): string {
  return word.toLowerCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
}

/** The cost of ending a line (or a cue, `cue` = true) after `word` when `next` follows. Lower is better. */
function breakCost(word: string, next: string | undefined, cue: boolean): number {
  if (next === undefined) return 0;
  if (/[.!?…]["'»”)\]]*$/.test(word) && !ABBREVIATIONS.has(bare(word))) return cue ? -40 : -25;
  if (/[,;:]["'»”)\]]*$/.test(word) || /[-–—]$/.test(word)) return cue ? -12 : -8;
  if (/^[-–—(«"“]/.test(next)) return -4;
  if (CLINGING.has(bare(word))) return 60;
  if (/^\p{N}/u.test(word) && /^\p{L}/u.test(next)) return 20; // "25 | años"
  if (LINE_STARTERS.has(bare(next))) return -3;
  return 0;
}

/** Splits a word longer than `max` characters into pieces (hyphenated) that fit on a line. */
function tokens(text: string, max: number): string[] {
  const out: string[] = [];
  for (const w of text.split(/\s+/).filter((x) => x !== '')) {
    if ([...w].length <= max) {
      out.push(w);
      continue;
    }
    const chars = [...w];
    const step = Math.max(1, max - 1);
    for (let i = 0; i < chars.length; ) {
      const rest = chars.length - i;
      if (rest <= max) {
        out.push(chars.slice(i).join(''));
        break;
      }
      out.push(chars.slice(i, i + step).join('') + '-');
      i += step;
    }
  }
  return out;
}

const len = (s: string) => [...s].length;
/** Characters of words 0..i-1 (code points), for joined lengths in constant time. */
function prefixLengths(ws: readonly string[]): number[] {
  const p = [0];
  for (const w of ws) p.push(p.at(-1)! + len(w));
  return p;
}
/** Characters of words a..b-1 joined by spaces. */
const joined = (p: readonly number[], a: number, b: number) => Math.max(0, b - a - 1 + p[b]! - p[a]!);
const joinedLength = (ws: readonly string[], a: number, b: number) => {
  let n = b - a - 1;
  for (let i = a; i < b; i++) n += len(ws[i]!);
  return Math.max(0, n);
};

/**
 * Whether words a..b-1 fit one cue: in at most `maxLines` lines of at most `maxLineChars` characters (what breakWords
 * lays out; filling each line with as many words as fit uses the fewest lines, so it decides).
 */
function fitsCue(p: readonly number[], a: number, b: number, limits: SubtitleLimits): boolean {
  if (joined(p, a, b) <= limits.maxLineChars) return true;
  if (limits.maxLines < 2) return false;
  let lines = 0;
  for (let i = a; i < b; ) {
    if (joined(p, i, i + 1) > limits.maxLineChars) return false;
    let j = i + 1;
    while (j < b && joined(p, i, j + 1) <= limits.maxLineChars) j++;
    if (++lines > limits.maxLines) return false;
    i = j;
  }
  return true;
}

/**
 * Breaks the words into at most `maxLines` lines of at most `maxLineChars` characters: one line when it fits,
 * else the balanced split that breaks at the best phrase boundary. Null when the words do not fit.
 */
function breakWords(ws: readonly string[], limits: SubtitleLimits): string[] | null {
  const p = prefixLengths(ws);
  const total = joined(p, 0, ws.length);
  if (total <= limits.maxLineChars) return [ws.join(' ')];
  if (limits.maxLines < 2) return null;
  // best[k][i]: the least cost of laying words 0..i out in k lines (i exclusive), with the choice made.
  const n = ws.length;
  const L = Math.min(limits.maxLines, n);
  const ideal = total / Math.ceil(total / limits.maxLineChars);
  const best: number[][] = Array.from({ length: L + 1 }, () => new Array<number>(n + 1).fill(Infinity));
  const from: number[][] = Array.from({ length: L + 1 }, () => new Array<number>(n + 1).fill(-1));
  best[0]![0] = 0;
  for (let k = 1; k <= L; k++) {
    for (let i = 1; i <= n; i++) {
      for (let j = i - 1; j >= 0; j--) {
        const l = joined(p, j, i);
        if (l > limits.maxLineChars) break;
        if (best[k - 1]![j] === Infinity) continue;
        const dev = (l - ideal) / limits.maxLineChars;
        // a slightly longer bottom line reads better than a longer top one
        const shape = i < n ? (l > ideal ? 1 : 0) : 0;
        const c = best[k - 1]![j]! + 40 * dev * dev + shape + (i < n ? breakCost(ws[i - 1]!, ws[i], false) : 0);
        if (c < best[k]![i]!) {
          best[k]![i] = c;
          from[k]![i] = j;
        }
      }
    }
  }
  let k = -1;
  for (let q = 1; q <= L; q++) if (best[q]![n]! < Infinity) { k = q; break; } // fewest lines first
  if (k < 0) return null;
  const lines: string[] = [];
  for (let i = n; k > 0; k--) {
    const j = from[k]![i]!;
    lines.unshift(ws.slice(j, i).join(' '));
    i = j;
  }
  return lines;
}

/** The text laid out in lines (joined by "\n"), or null when it cannot fit one cue. @internal */
export function breakLines(text: string, limits: SubtitleLimits = DEFAULT_SUBTITLE_LIMITS): string | null {
  const lines = breakWords(tokens(text, limits.maxLineChars), limits);
  return lines ? lines.join('\n') : null;
}

/** Characters a viewer reads (line breaks not counted). */
export function cueChars(text: string): number {
  return len(text.replace(/\s*\n\s*/g, ' ').trim());
}

/** Chunks of words (as [from, to) indices) that each fit one cue: `count` chunks, best boundaries, balanced. */
function chunkWords(ws: readonly string[], count: number, limits: SubtitleLimits): Array<[number, number]> | null {
  const n = ws.length;
  const p = prefixLengths(ws);
  const total = joined(p, 0, n);
  const ideal = total / count;
  const fit = (a: number, b: number) => joined(p, a, b) <= limits.maxLines * limits.maxLineChars && fitsCue(p, a, b, limits);
  const best: number[][] = Array.from({ length: count + 1 }, () => new Array<number>(n + 1).fill(Infinity));
  const from: number[][] = Array.from({ length: count + 1 }, () => new Array<number>(n + 1).fill(-1));
  best[0]![0] = 0;
  for (let k = 1; k <= count; k++) {
    for (let i = k; i <= n; i++) {
      for (let j = i - 1; j >= k - 1; j--) {
        if (best[k - 1]![j] === Infinity) continue;
        if (joined(p, j, i) > limits.maxLines * limits.maxLineChars) break;
        if (!fit(j, i)) continue;
        const dev = (joined(p, j, i) - ideal) / Math.max(ideal, 1);
        const c = best[k - 1]![j]! + 60 * dev * dev + (i < n ? breakCost(ws[i - 1]!, ws[i], true) : 0);
        if (c < best[k]![i]!) {
          best[k]![i] = c;
          from[k]![i] = j;
        }
      }
    }
  }
  if (best[count]![n] === Infinity) return null;
  const out: Array<[number, number]> = [];
  for (let i = n, k = count; k > 0; k--) {
    const j = from[k]![i]!;
    out.unshift([j, i]);
    i = j;
  }
  return out;
}

/** The fewest cues the words fit in (greedy: each cue takes as many words as still fit). */
function fewestCues(ws: readonly string[], limits: SubtitleLimits): number {
  const p = prefixLengths(ws);
  let n = 0;
  for (let i = 0; i < ws.length; ) {
    let j = i + 1;
    while (j < ws.length && fitsCue(p, i, j + 1, limits)) j++;
    n++;
    i = j;
  }
  return n;
}

/**
 * A map from a fraction of the text's characters to a time in the segment. With word timings, the text's
 * characters are spread over the spoken words (pauses take no characters); else evenly over the slot.
 * `late` picks the end of a pause at a boundary that falls in one (a cue's start), else its beginning.
 */
function timeline(seg: LayoutSegment): (f: number, late: boolean) => number {
  const words = (seg.words ?? [])
    .filter((w) => Number.isFinite(w.start) && Number.isFinite(w.end) && w.end >= w.start)
    // each word weighs its characters and the space after it (as the text's fractions count them)
    .map((w) => ({ start: Math.min(Math.max(w.start, seg.start), seg.end), end: Math.min(Math.max(w.end, seg.start), seg.end), n: Math.max(1, len(w.text.trim())) + 1 }))
    .sort((a, b) => a.start - b.start);
  if (words.length < 2) return (f) => seg.start + f * (seg.end - seg.start);
  const total = words.reduce((s, w) => s + w.n, 0);
  // the slot's edges belong to the first and last words (speech that starts late still shows its cue from the start)
  words[0]!.start = seg.start;
  words[words.length - 1]!.end = seg.end;
  return (f, late) => {
    let acc = 0;
    const at = f * total;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      const next = acc + w.n;
      if (at < next || i === words.length - 1) {
        // exactly at a word's start: the previous word's end (early) or this word's start (late)
        if (at <= acc + 1e-9 && i > 0 && !late) return words[i - 1]!.end;
        const r = Math.min(1, Math.max(0, (at - acc) / w.n));
        return w.start + r * (w.end - w.start);
      }
      acc = next;
    }
    return seg.end;
  };
}

function layoutSegment(seg: LayoutSegment, limits: SubtitleLimits): Cue[] {
  const ws = tokens(seg.text.replace(/\s+/g, ' ').trim(), limits.maxLineChars);
  if (ws.length === 0) return [];
  const dur = seg.end - seg.start;
  const chars = joinedLength(ws, 0, ws.length);
  let count = Math.max(fewestCues(ws, limits), Math.ceil(dur / limits.maxDuration - 1e-9));
  // a cue shorter than the minimum only where the text needs it (never more cues than words)
  count = Math.min(count, ws.length);
  let chunks = chunkWords(ws, count, limits);
  while (!chunks && count < ws.length) chunks = chunkWords(ws, ++count, limits);
  if (!chunks) chunks = ws.map((_, i) => [i, i + 1] as [number, number]);
  const texts = chunks.map(([a, b]) => breakWords(ws.slice(a, b), limits)?.join('\n') ?? ws.slice(a, b).join(' '));
  const place = (at: (f: number, late: boolean) => number): Cue[] => {
    // each chunk's share of the text: its characters and the space after each word
    let before = 0;
    return chunks.map(([a, b], k) => {
      const f0 = before / (chars + 1);
      before += joinedLength(ws, a, b) + 1;
      const f1 = Math.min(1, before / (chars + 1));
      const start = a === 0 ? seg.start : at(f0, true);
      const end = b === ws.length ? seg.end : at(f1, false);
      return { start, end: Math.max(start, end), text: texts[k]! };
    });
  };
  const fastest = (cues: readonly Cue[]) => Math.max(...cues.map((c) => cueChars(c.text) / Math.max(c.end - c.start, 1e-3)));
  const timed = place(timeline(seg));
  if (timed.length < 2 || fastest(timed) <= limits.maxCps) return timed;
  // timed to the words, a cue would read too fast: the slot shared in proportion to characters, if that reads better
  const even = place(timeline({ ...seg, words: null }));
  return fastest(even) < fastest(timed) ? even : timed;
}


/**
 * Readable cues of the segments (sorted by time, empty texts and empty slots skipped). Cues that read too fast or
 * stay too briefly are lengthened into the silence after them (then before them), never over a neighbour.
 */
export function layoutSubtitles(
  segments: readonly LayoutSegment[],
  limits: SubtitleLimits = DEFAULT_SUBTITLE_LIMITS,
  /** The media's length: no cue is lengthened past it. */
  mediaEnd = Infinity,
): Cue[] {
  const segs = [...segments]
    .filter((s) => s.text.trim() !== '' && s.end > s.start)
    .sort((a, b) => a.start - b.start || a.end - b.end)
    // how far its cues may move from the speech
    .map((s) => ({ ...s, earliest: Math.max(0, s.start - MAX_LEAD_IN_SEC), latest: Math.min(mediaEnd, Math.max(s.end, s.end + MAX_LINGER_SEC)) }));
  // A segment that reads too fast takes the silence after it (then before it) first, so all its cues gain.
  for (let i = 0; i < segs.length; i++) {
    const s = segs[i]!;
    const want = Math.ceil((cueChars(s.text.replace(/\s+/g, ' ')) / limits.targetCps) * 1000) / 1000;
    if (s.end - s.start >= want) continue;
    const next = segs[i + 1];
    s.end = Math.max(s.end, Math.min(s.start + want, next ? next.start - MIN_GAP_SEC : Infinity, s.latest));
    if (s.end - s.start >= want) continue;
    const prev = segs[i - 1];
    s.start = Math.min(s.start, Math.max(s.end - want, prev ? prev.end + MIN_GAP_SEC : 0, s.earliest));
    if (s.end - s.start >= want || !prev) continue;
    // still too fast: the previous segment gives up the time it does not need to be read (its cue ends earlier)
    const prevWant = Math.max(limits.minDuration, cueChars(prev.text.replace(/\s+/g, ' ')) / limits.targetCps);
    const start = Math.max(s.end - want, s.earliest, prev.start + prevWant + MIN_GAP_SEC);
    if (start < s.start) {
      prev.end = Math.min(prev.end, start - MIN_GAP_SEC);
      s.start = start;
    }
  }
  const cues = segs.flatMap((s) => layoutSegment(s, limits).map((c) => ({ ...c, earliest: s.earliest, latest: s.latest })));
  for (let i = 0; i < cues.length; i++) {
    const c = cues[i]!;
    const n = cueChars(c.text);
    const want = Math.ceil(Math.min(limits.maxDuration, Math.max(limits.minDuration, n / limits.targetCps)) * 1000) / 1000;
    if (c.end - c.start < want) {
      const next = cues[i + 1];
      const limit = Math.max(c.end, Math.min(next ? next.start - MIN_GAP_SEC : Infinity, c.latest));
      c.end = Math.min(c.start + want, limit);
    }
    if (c.end - c.start < want) {
      const prev = cues[i - 1];
      const limit = Math.min(c.start, Math.max(prev ? prev.end + MIN_GAP_SEC : 0, c.earliest));
      c.start = Math.max(c.end - want, limit);
    }
    const prev = cues[i - 1];
    if (c.end - c.start < want && prev) {
      // still too short or fast: the previous cue gives up the time it does not need to be read
      const prevWant = Math.max(limits.minDuration, cueChars(prev.text) / limits.targetCps);
      const start = Math.max(c.end - want, c.earliest, prev.start + prevWant + MIN_GAP_SEC);
      if (start < c.start) {
        prev.end = Math.min(prev.end, start - MIN_GAP_SEC);
        c.start = start;
      }
    }
    if (c.end - c.start > limits.maxDuration) c.end = c.start + limits.maxDuration;
  }
  return cues.map((c) => ({ start: round3(c.start), end: round3(c.end), text: c.text }));
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export type CueProblem = 'line_too_long' | 'too_many_lines' | 'too_fast' | 'too_short' | 'too_long';

export interface CueCheck {
  index: number;
  start: number;
  end: number;
  cps: number;
  problems: CueProblem[];
}

/** The cues that break the limits (reading speed: the hard limit), with what they break. */
export function checkCues(cues: readonly Cue[], limits: SubtitleLimits = DEFAULT_SUBTITLE_LIMITS): CueCheck[] {
  const out: CueCheck[] = [];
  cues.forEach((c, index) => {
    const lines = c.text.split('\n');
    const dur = c.end - c.start;
    const cps = dur > 0 ? cueChars(c.text) / dur : Infinity;
    const problems: CueProblem[] = [];
    if (lines.some((l) => len(l) > limits.maxLineChars)) problems.push('line_too_long');
    if (lines.length > limits.maxLines) problems.push('too_many_lines');
    if (cps > limits.maxCps + 1e-6) problems.push('too_fast');
    if (dur < limits.minDuration - 1e-6) problems.push('too_short');
    if (dur > limits.maxDuration + 1e-6) problems.push('too_long');
    if (problems.length) out.push({ index, start: c.start, end: c.end, cps: Math.round(cps * 10) / 10, problems });
  });
  return out;
}
