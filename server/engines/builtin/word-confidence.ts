// Honest recognition confidence (issue 33 part 3). pocketsphinx's word posteriors (-ctm, from its lattice) are
// mapped to the measured chance the word is right (a monotone table fitted on the LibriVox set of
// pocketsphinx-testdata, clean and under music and noise: bench/asr-confidence.ts), so a low score means "likely
// wrong". OpenAI-compatible servers give no word scores: their segment's avg_logprob and no_speech_prob make the
// segment's confidence. A segment's confidence is its words' confidences weighted by their durations.
import type { Word } from '../types';

/**
 * Raw posterior -> chance the word is right, as knots of a piecewise-linear monotone map (isotonic fit of the
 * measured error rates, see the bench). Between knots the map is linear; outside, it is clamped.
 */
// Fitted on 278 words (129 wrong) of the five sentences clean and under music (drascula, frozen-bubble) and white
// noise at 15 dB SNR: raw < 0.01 right 14%, 0.01-0.08 27%, 0.08-0.2 41%, 0.2-0.89 54% (the posterior says little
// there), 0.89-0.94 70%, 0.94-1 78-82%. Louder noise makes every word less likely right; the map is the usable case.
export const POSTERIOR_CALIBRATION: ReadonlyArray<readonly [number, number]> = [
  [0, 0.12],
  [0.04, 0.27],
  [0.14, 0.41],
  [0.25, 0.52],
  [0.6, 0.55],
  [0.9, 0.66],
  [0.97, 0.79],
  [1, 0.84],
];

/** Calibrated confidence (0..1, three decimals) of a raw pocketsphinx word posterior. */
export function calibratePosterior(raw: number, table: ReadonlyArray<readonly [number, number]> = POSTERIOR_CALIBRATION): number {
  const x = Math.max(0, Math.min(1, Number.isFinite(raw) ? raw : 0));
  let y = table[table.length - 1]![1];
  if (x <= table[0]![0]) y = table[0]![1];
  else {
    for (let i = 1; i < table.length; i++) {
      const [x0, y0] = table[i - 1]!;
      const [x1, y1] = table[i]!;
      if (x <= x1) {
        y = x1 > x0 ? y0 + ((x - x0) / (x1 - x0)) * (y1 - y0) : y1;
        break;
      }
    }
  }
  return round3(Math.max(0, Math.min(1, y)));
}

/**
 * Confidence of a segment of an OpenAI-compatible (Whisper) answer: the mean token probability exp(avg_logprob)
 * times the chance it is speech at all (1 - no_speech_prob). Null when the server sent neither.
 */
export function whisperSegmentConfidence(avgLogprob: number | null | undefined, noSpeechProb: number | null | undefined): number | null {
  const hasLp = typeof avgLogprob === 'number' && Number.isFinite(avgLogprob);
  const hasNs = typeof noSpeechProb === 'number' && Number.isFinite(noSpeechProb);
  if (!hasLp && !hasNs) return null;
  const p = hasLp ? Math.exp(Math.min(0, avgLogprob)) : 1;
  const speech = hasNs ? 1 - Math.max(0, Math.min(1, noSpeechProb)) : 1;
  return round3(Math.max(0, Math.min(1, p * speech)));
}

/** Duration-weighted mean confidence of the scored words (null when none is scored). */
export function wordsConfidence(words: ReadonlyArray<Pick<Word, 'start' | 'end' | 'confidence'>> | null | undefined): number | null {
  let s = 0;
  let d = 0;
  for (const w of words ?? []) {
    if (typeof w.confidence !== 'number' || !Number.isFinite(w.confidence)) continue;
    const len = Math.max(0.01, w.end - w.start);
    s += len * w.confidence;
    d += len;
  }
  return d > 0 ? round3(s / d) : null;
}

const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}']/gu, '');

/**
 * Which hypothesis words are right: a Levenshtein alignment over words (case and punctuation ignored) of the
 * hypothesis to the reference; a word is right when aligned to the same reference word (wrong: substituted or
 * inserted). Used to measure the calibration.
 * @internal
 */
export function alignWords(reference: string, hypothesis: readonly string[]): boolean[] {
  const r = reference.split(/\s+/).map(norm).filter(Boolean);
  const h = hypothesis.map(norm);
  const n = r.length;
  const m = h.length;
  const d: number[][] = Array.from({ length: n + 1 }, (_, i) => Array.from({ length: m + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (r[i - 1] === h[j - 1] ? 0 : 1));
  }
  const right = new Array<boolean>(m).fill(false);
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    const same = r[i - 1] === h[j - 1];
    if (d[i]![j] === d[i - 1]![j - 1]! + (same ? 0 : 1)) {
      right[j - 1] = same;
      i--;
      j--;
    } else if (d[i]![j] === d[i]![j - 1]! + 1) j--;
    else i--;
  }
  return right;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
