// Recognise the voice, not the mix (issue 33): recognition runs on the mix and on the separation's speech estimate
// (the voice stem), and each region keeps the hypothesis the recognizer itself is surer of. The score of a
// hypothesis is its words' confidences (pocketsphinx's -ctm posteriors) weighted by their durations, over the
// region's length: a decoder lost in music gives short, doubtful words, or none. The stem must win by a margin, so
// clean speech (where the stem is about the mix) keeps the mix's words: never worse than before.
// Engines that give no word confidences are left on the mix (nothing to choose by).
import type { AsrCallOptions, AsrEngine, AsrSegment, SpeechRegion } from '../types';

/** How much surer (score difference, 0..1) the stem's hypothesis must be to replace the mix's. */
export const STEM_MARGIN = 0.05;

export type AsrInput = 'mix' | 'speech';

export interface RegionChoice {
  start: number;
  end: number;
  input: AsrInput;
  mixScore: number;
  speechScore: number;
}

/** Duration-weighted word confidence over the region's length (0 when nothing was recognised). */
export function hypothesisScore(seg: AsrSegment | undefined, region: SpeechRegion): number {
  if (!seg || seg.words.length === 0) return 0;
  const len = Math.max(0.1, region.end - region.start);
  let s = 0;
  for (const w of seg.words) s += Math.max(0, w.end - w.start) * (w.confidence ?? 0);
  return Math.min(1, s / len);
}

const keyOf = (t: number) => Math.round(t * 100);

/** True when some word of the hypotheses has a confidence: only then can the inputs be compared. */
export function hasConfidences(segs: readonly AsrSegment[]): boolean {
  return segs.some((s) => s.words.some((w) => w.confidence !== undefined));
}

/**
 * Per region, the mix's or the stem's hypothesis (the segments are matched to the regions by start time, as the
 * engines return one segment per region with words). Pure.
 */
export function chooseByConfidence(
  regions: readonly SpeechRegion[],
  mix: readonly AsrSegment[],
  speech: readonly AsrSegment[],
  margin = STEM_MARGIN,
): { segments: AsrSegment[]; choices: RegionChoice[] } {
  const byStart = (segs: readonly AsrSegment[]) => new Map(segs.map((s) => [keyOf(s.start), s]));
  const m = byStart(mix);
  const v = byStart(speech);
  const segments: AsrSegment[] = [];
  const choices: RegionChoice[] = [];
  for (const r of regions) {
    const k = keyOf(Math.max(0, r.start));
    const ms = m.get(k);
    const vs = v.get(k);
    const mixScore = hypothesisScore(ms, r);
    const speechScore = hypothesisScore(vs, r);
    const input: AsrInput = speechScore > mixScore + margin ? 'speech' : 'mix';
    const seg = input === 'speech' ? vs : ms;
    if (seg) segments.push(seg);
    choices.push({ start: r.start, end: r.end, input, mixScore: round3(mixScore), speechScore: round3(speechScore) });
  }
  return { segments, choices };
}

/**
 * Recognises `regions` of the mix and, when there is a speech estimate, of it too; keeps per region the
 * hypothesis with the better confidence (see chooseByConfidence). Both decodes run side by side when the call
 * allows more than one decoder.
 */
export async function transcribeBestInput(
  asr: AsrEngine,
  mixWav: string,
  speechWav: string | null,
  regions: SpeechRegion[],
  lang: string,
  o: AsrCallOptions & { margin?: number; worthStem?: (r: SpeechRegion) => boolean } = {},
): Promise<{ segments: AsrSegment[]; choices: RegionChoice[] }> {
  const { margin, worthStem, ...call } = o;
  const mixOnly = (segs: AsrSegment[]) => ({
    segments: segs,
    choices: regions.map((r) => ({ start: r.start, end: r.end, input: 'mix' as const, mixScore: 0, speechScore: 0 })),
  });
  // Only the regions where the separation took something away are decoded a second time (clean speech is not).
  const second = speechWav ? regions.filter((r) => worthStem?.(r) ?? true) : [];
  if (!speechWav || second.length === 0) return mixOnly(await asr.transcribe(mixWav, regions, lang, call));
  const [mix, speech] = await Promise.all([asr.transcribe(mixWav, regions, lang, call), asr.transcribe(speechWav, second, lang, call)]);
  if (!hasConfidences(mix) && !hasConfidences(speech)) return mixOnly(mix);
  // a region not decoded on the stem has no stem hypothesis: it keeps the mix's words
  return chooseByConfidence(regions, mix, speech, margin);
}

/** Share of the mix's energy the separation removed in [a, b) seconds (0: the stem is the mix; 1: nothing kept). */
export function removedShare(mix: { hopSec: number; rms: Float32Array }, stem: { hopSec: number; rms: Float32Array }, a: number, b: number): number {
  const f0 = Math.max(0, Math.floor(a / mix.hopSec));
  const f1 = Math.min(mix.rms.length, stem.rms.length, Math.ceil(b / mix.hopSec));
  let pm = 0;
  let ps = 0;
  for (let f = f0; f < f1; f++) {
    pm += mix.rms[f]! ** 2;
    ps += stem.rms[f]! ** 2;
  }
  if (pm <= 1e-12) return 0;
  return Math.max(0, Math.min(1, 1 - ps / pm));
}

/**
 * Below this share of removed energy (about -18 dB) a region is clean speech and the mix is recognised alone. Measured
 * on LibriVox readings: clean 0.003-0.005; music 12 LU under the speech 0.045 (louder music more).
 */
export const CLEAN_SHARE = 0.015;

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
