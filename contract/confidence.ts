// Recognition confidence shared by the server (quality report) and the editor (shading): a recognised word whose
// calibrated confidence (the measured chance it is right, 0..1) is under this is doubtful, worth a listen.
// Measured on the LibriVox set of pocketsphinx-testdata (bench/asr-confidence.ts).
export const DOUBTFUL_WORD_CONFIDENCE = 0.5;

/** A segment with at least this many doubtful words, or this share of its words doubtful, needs a listen. */
export const DOUBTFUL_WORDS_FLAG = { count: 3, share: 0.25 } as const;

export interface ScoredWord {
  text: string;
  confidence?: number | null;
}

/** Words of a segment whose confidence says they are likely wrong. @internal */
export function doubtfulWords<W extends ScoredWord>(words: readonly W[] | null | undefined): W[] {
  return (words ?? []).filter((w) => typeof w.confidence === 'number' && Number.isFinite(w.confidence) && w.confidence < DOUBTFUL_WORD_CONFIDENCE);
}

/** Whether a segment has enough doubtful words to be flagged (n doubtful out of `total` scored words). */
export function manyDoubtful(n: number, total: number): boolean {
  return n >= DOUBTFUL_WORDS_FLAG.count || (n >= 2 && total > 0 && n / total >= DOUBTFUL_WORDS_FLAG.share);
}

/** A word of a segment's text as the editor shows it: its place in the text and the recognizer's confidence. */
export interface TextWord {
  /** Character offsets in the text: text.slice(from, to) is the word as written. */
  from: number;
  to: number;
  /** The recognised word's confidence when this written word is one the recognizer heard (null: none). */
  confidence: number | null;
  doubtful: boolean;
}

const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/**
 * The words of a segment's (possibly edited) text, each matched to the recognised word it still is: a longest
 * common subsequence over the normalised words (case and punctuation ignored), so a word the user corrected or
 * added carries no score, and the recognised words the user replaced no longer count. Pure; O(text x words).
 */
export function scoreTextWords(text: string, words: readonly ScoredWord[] | null | undefined): TextWord[] {
  const tokens: Array<{ from: number; to: number; key: string }> = [];
  for (const m of text.matchAll(/\S+/g)) tokens.push({ from: m.index!, to: m.index! + m[0].length, key: norm(m[0]) });
  const ws = (words ?? []).map((w) => ({ key: norm(w.text), confidence: typeof w.confidence === 'number' && Number.isFinite(w.confidence) ? w.confidence : null }));
  const n = tokens.length;
  const m = ws.length;
  const out: TextWord[] = tokens.map((t) => ({ from: t.from, to: t.to, confidence: null, doubtful: false }));
  if (n === 0 || m === 0 || n * m > 250_000) return out;
  // lcs[i][j]: longest common subsequence of tokens[i..] and ws[j..]
  const lcs = Array.from({ length: n + 1 }, () => new Uint16Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = tokens[i]!.key !== '' && tokens[i]!.key === ws[j]!.key ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (tokens[i]!.key !== '' && tokens[i]!.key === ws[j]!.key) {
      const c = ws[j]!.confidence;
      out[i] = { ...out[i]!, confidence: c, doubtful: c !== null && c < DOUBTFUL_WORD_CONFIDENCE };
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) i++;
    else j++;
  }
  return out;
}
