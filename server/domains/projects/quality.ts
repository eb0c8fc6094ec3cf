// The quality report of a dub (issue 15): made after each generate from the output files themselves (the
// voice-only track, the final soundtrack, the source audio), not from the fitter's plan. Per segment: speed,
// where the dubbed voice was really heard (ended within its slot, overflow, borrowed gap, overlap, drift),
// glossary terms expected and found, ASR confidence; per project: the largest drift, loudness (EBU R128) of the
// output and the source, whether the background was kept, speech coverage, and what needs attention.
import { checkSegmentTerms, type TermEntry } from '../glossaries/check';
import { manyDoubtful, scoreTextWords } from '../../../contract/confidence';
import { csvText } from '../../csv';
import { join } from 'node:path';
import { QUALITY_ISSUES, type AttentionItem, type QualityIssue, type QualityReport, type QualitySegment, type QualitySpeaker } from '../../../contract/schemas/quality';
import { extractMonoWav, measureLoudnessFigures } from '../../media/ffmpeg';
import type { LoudnessFigures } from '../../media/args';
import { speechSample } from '../../engines/builtin/voice-sample';
import { wavRmsEnvelopeAsync } from '../../media/wav';
import { projectKey } from '../../storage/index';
import type { Storage } from '../../storage/types';
import type { SegmentRow } from './transcript/repository';
import type { Cue } from '../../media/subtitles';
import { checkCues, type CueCheck, type SubtitleLimits } from '../../media/subtitle-layout';
import { nextTurn } from '../../turn';

export const QUALITY_ARTIFACT = 'quality.json';
export const qualityKey = (projectId: string) => projectKey(projectId, QUALITY_ARTIFACT);

/** Analysis frame of the level envelopes, seconds. */
const HOP = 0.02;
/** Thresholds of "needs attention". */
export const LIMITS = {
  overflowSec: 0.25,
  /** Speed factors outside 0.9-1.15 are audible (issue 28). */
  fastSpeech: 1.15,
  slowSpeech: 0.9,
  overlapSec: 0.2,
  driftSec: 0.3,
  /**
   * Mean calibrated word confidence (the chance a word is right, issue 33): the LibriVox reading averages 0.64 clean
   * (a quarter of its words wrong), 0.42-0.57 with music or noise 15 dB under it (half or more wrong).
   */
  asrConfidence: 0.55,
  /** The output's background may be this much quieter than the source's and still count as kept (dB). */
  backgroundDropDb: 15,
  /** Original speech left in the background above this (dB under the speech) is audible under the dub. */
  speechUnderDubDb: -20,
  /** The background quieter during a segment than around it by more than this (dB), beyond the source's own dip. */
  backgroundDipDb: 6,
  /** A dubbed voice further than this from its speaker's median pitch (semitones). */
  voicePitchSt: 4,
} as const;

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const r1 = (x: number) => Math.round(x * 10) / 10;

/** A dictionary entry as stored on the project's glossary (the flags are optional in older rows). */
export type GlossaryTerm = TermEntry;

const usableTerms = new WeakMap<readonly GlossaryTerm[], GlossaryTerm[]>();

/**
 * Glossary terms of one segment: the translations expected (their source term occurs in the source text) and
 * those found in the translation, by the dictionary's own check (whole words, do-not-translate terms expected
 * as written, case-sensitive terms compared as written).
 */
export function matchGlossary(src: string, dst: string, terms: readonly GlossaryTerm[]): { expected: string[]; found: string[] } {
  // The same filtered list for every segment of one report, so the check's per-list index is built once.
  let usable = usableTerms.get(terms);
  if (!usable) usableTerms.set(terms, (usable = terms.filter((t) => typeof t.source === 'string' && typeof t.target === 'string')));
  const c = checkSegmentTerms(src, dst, usable);
  const targets = (hits: ReadonlyArray<{ target: string }>) => [...new Set(hits.map((h) => h.target))];
  return { expected: targets(c.expected), found: targets(c.found) };
}

/**
 * The recognised words still in the source text that are likely wrong (contract/confidence.ts: a word the user
 * corrected no longer counts), as written, and how many words of the text carry a score.
 */
export function doubtfulOf(text: string, words: SegmentRow['words']): { texts: string[]; scored: number } {
  const tw = scoreTextWords(text, words);
  return {
    texts: tw.filter((w) => w.doubtful).map((w) => text.slice(w.from, w.to).replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '')),
    scored: tw.filter((w) => w.confidence !== null).length,
  };
}

/** Mean word confidence of a segment's recognised words (null when the engine gave none). */
export function asrConfidence(words: SegmentRow['words']): number | null {
  const c = (words ?? []).map((w) => (w as { confidence?: unknown }).confidence).filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return c.length ? r3(c.reduce((a, b) => a + b, 0) / c.length) : null;
}

export interface Envelope {
  hopSec: number;
  rms: Float32Array;
}

/** The k-th smallest value (0-based) of `a`, which it reorders (quickselect: linear on average). Pure but for `a`. */
export function kthSmallest(a: Float32Array, k: number): number {
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    // median of three as the pivot
    const mid = (lo + hi) >> 1;
    const x = a[lo]!, y = a[mid]!, z = a[hi]!;
    const pivot = x < y ? (y < z ? y : x < z ? z : x) : x < z ? x : y < z ? z : y;
    let l = lo;
    let r = hi;
    while (l <= r) {
      while (a[l]! < pivot) l++;
      while (a[r]! > pivot) r--;
      if (l <= r) {
        const t = a[l]!;
        a[l] = a[r]!;
        a[r] = t;
        l++;
        r--;
      }
    }
    if (k <= r) hi = r;
    else if (k >= l) lo = l;
    else return a[k]!;
  }
  return a[k]!;
}

/** The level above which the voice-only track counts as speaking: relative to its loud frames, with a floor. */
export function voiceThreshold(env: Envelope): number {
  // the 95th percentile by selection (an hour's envelope sorted through a comparator held the event loop ~100 ms)
  const rms = env.rms;
  let count = 0;
  for (let f = 0; f < rms.length; f++) if (rms[f]! > 1e-4) count++;
  const loud = new Float32Array(count);
  for (let f = 0, at = 0; f < rms.length; f++) if (rms[f]! > 1e-4) loud[at++] = rms[f]!;
  const p95 = count ? kthSmallest(loud, Math.floor(count * 0.95)) : 0;
  return Math.max(0.002, p95 * 0.08);
}

const db = (power: number) => (power > 0 ? r1(10 * Math.log10(power)) : null);

export interface QualityInputs {
  projectId: string;
  generation: number;
  duration: number;
  /** Segments in time order, with their text. */
  segments: readonly (Pick<SegmentRow, 'id' | 'start_sec' | 'end_sec' | 'speaker' | 'src_text' | 'dst_text' | 'speed_factor' | 'words'> &
    Partial<Pick<SegmentRow, 'term_hits'>> & { asr_confidence?: number | null })[];
  glossary: readonly GlossaryTerm[];
  /** Level envelopes (same hop) of the voice-only output, the final soundtrack and the source audio. */
  voice: Envelope;
  output: Envelope | null;
  source: Envelope | null;
  loudnessLufs: number | null;
  sourceLoudnessLufs: number | null;
  /** The background stem, the separation's speech estimate and the source's side channel (L-R)/2, same hop. */
  background?: Envelope | null;
  speech?: Envelope | null;
  sourceSide?: Envelope | null;
  /** Speakers with their own and their dubbed voice's pitch and gender (measured by measureQuality). */
  speakers?: QualitySpeaker[];
  loudnessRangeLu?: number | null;
  sourceLoudnessRangeLu?: number | null;
  truePeakDbtp?: number | null;
  loudnessTarget?: string | null;
  /** The subtitles as written (SRT, VTT, burned) and the limits they were laid out to (issue 29). */
  subtitles?: { cues: readonly Cue[]; limits: SubtitleLimits } | null;
  now?: Date;
}

const dbOf = (x: number) => 10 * Math.log10(Math.max(x, 1e-12));

/**
 * Original speech left in the background over frames [f0, f1): the least-squares slope of the background's power
 * on the speech estimate's power (leaked speech rises and falls with the speech, the music does not), in dB under the
 * speech. Null when there is too little speech to tell or nothing correlates.
 */
export function speechUnderDub(bg: Envelope, speech: Envelope, f0: number, f1: number): number | null {
  const n = Math.min(f1, bg.rms.length, speech.rms.length) - f0;
  if (n < 20) return null;
  let sx = 0;
  let sy = 0;
  for (let f = f0; f < f0 + n; f++) {
    sx += speech.rms[f]! ** 2;
    sy += bg.rms[f]! ** 2;
  }
  const mx = sx / n;
  const my = sy / n;
  let cxy = 0;
  let cxx = 0;
  let cyy = 0;
  for (let f = f0; f < f0 + n; f++) {
    const x = speech.rms[f]! ** 2 - mx;
    const y = bg.rms[f]! ** 2 - my;
    cxy += x * y;
    cxx += x * x;
    cyy += y * y;
  }
  if (cxx <= 0 || mx < 1e-8) return null;
  const slope = cxy / cxx;
  const r = cyy > 0 ? cxy / Math.sqrt(cxx * cyy) : 0;
  if (slope <= 0 || r < 0.3) return null;
  return Math.round(dbOf(slope) * 10) / 10;
}

/** Mean power of an envelope over frames where `keep` holds, within [f0, f1). */
function meanPower(env: Envelope, f0: number, f1: number, keep: (f: number) => boolean): number | null {
  let s = 0;
  let n = 0;
  for (let f = Math.max(0, f0); f < Math.min(f1, env.rms.length); f++) {
    if (!keep(f)) continue;
    s += env.rms[f]! ** 2;
    n++;
  }
  return n >= 10 ? s / n : null;
}

/** Seconds each side of a segment where its background is compared (outside any segment). */
const CONTEXT_SEC = 4;

/** Pure: the report from the measured envelopes and loudness, in one go (the merge uses analyseQualitySliced). @internal */
export function analyseQuality(i: QualityInputs): QualityReport {
  const steps = qualitySteps(i);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** Segments analysed between two turns of the event loop in analyseQualitySliced. */
const QUALITY_SLICE = 100;

/**
 * analyseQuality giving the event loop its turn between slices of segments: the merge stage runs beside the API,
 * and an hour's report in one go held every request about 0.1-0.3 s.
 */
export async function analyseQualitySliced(i: QualityInputs): Promise<QualityReport> {
  const steps = qualitySteps(i);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await nextTurn();
  }
}

/** The report, built in steps (each yield is a point where the caller may let others run). */
function* qualitySteps(i: QualityInputs): Generator<void, QualityReport, void> {
  const hop = i.voice.hopSec;
  const thr = voiceThreshold(i.voice);
  yield;
  const n = i.voice.rms.length;
  const voiced = (f: number) => f >= 0 && f < n && i.voice.rms[f]! >= thr;
  const frame = (t: number) => Math.floor(t / hop + 1e-9);
  const segs = [...i.segments].filter((s) => s.end_sec > s.start_sec).sort((a, b) => a.start_sec - b.start_sec || a.end_sec - b.end_sec);
  // Frames inside any segment's slot, and how many slots cover each (overlap).
  const cover = new Uint8Array(n);
  for (const s of segs) for (let f = Math.max(0, frame(s.start_sec)); f < Math.min(n, frame(s.end_sec)); f++) cover[f] = Math.min(255, cover[f]! + 1);
  yield;

  const segmentReport = (s: (typeof segs)[number], k: number): QualitySegment => {
    let nextStart = i.duration;
    for (let j = k + 1; j < segs.length; j++) {
      if (segs[j]!.start_sec > s.start_sec) {
        nextStart = segs[j]!.start_sec;
        break;
      }
    }
    // The voice heard from just before the slot up to the next segment's start belongs to this segment.
    const w0 = Math.max(0, frame(s.start_sec - 0.04));
    const w1 = Math.min(n, frame(Math.max(nextStart, Math.min(s.end_sec, i.duration))));
    let first = -1;
    let last = -1;
    for (let f = w0; f < w1; f++) {
      if (voiced(f)) {
        if (first < 0) first = f;
        last = f;
      }
    }
    const heard = first >= 0;
    const dubStart = heard ? r3(first * hop) : null;
    const dubEnd = heard ? r3((last + 1) * hop) : null;
    const overflow = dubEnd === null ? 0 : r3(Math.max(0, dubEnd - s.end_sec));
    const borrowed = r3(Math.min(overflow, Math.max(0, nextStart - s.end_sec)));
    let overlapFrames = 0;
    if (heard) for (let f = first; f <= last; f++) if (voiced(f) && cover[f]! > (f < frame(s.end_sec) && f >= frame(s.start_sec) ? 1 : 0)) overlapFrames++;
    const overlap = r3(overlapFrames * hop);
    const drift = dubStart === null ? null : r3(dubStart - s.start_sec);
    // the background under the segment: original speech left in it, and how much it dips against its surroundings
    let leak: number | null = null;
    let dip: number | null = null;
    if (i.background) {
      const a = frame(s.start_sec);
      const b = frame(s.end_sec);
      if (i.speech) leak = speechUnderDub(i.background, i.speech, a, b);
      const ctx = frame(CONTEXT_SEC);
      const around = (f: number) => !cover[f] && (f < a || f >= b);
      const inside = () => true;
      const bgIn = meanPower(i.background, a, b, inside);
      const bgOut = meanPower(i.background, a - ctx, b + ctx, around);
      if (bgIn !== null && bgOut !== null && bgOut > 1e-7) {
        let d = dbOf(bgOut) - dbOf(bgIn);
        // the source's own dip (music ducked under the voice): its side channel holds no centred speech
        const sIn = i.sourceSide ? meanPower(i.sourceSide, a, b, inside) : null;
        const sOut = i.sourceSide ? meanPower(i.sourceSide, a - ctx, b + ctx, around) : null;
        if (sIn !== null && sOut !== null && sOut > 1e-7) d -= dbOf(sOut) - dbOf(sIn);
        dip = Math.round(d * 10) / 10;
      }
    }
    const g = matchGlossary(s.src_text, s.dst_text, i.glossary);
    // terms the translation engine could not apply (its record) that the translation still lacks
    const unapplied = [...new Set((s.term_hits ?? []).filter((h) => !h.applied && g.expected.includes(h.target) && !g.found.includes(h.target)).map((h) => h.target))];
    // the recognizer's own score of the segment when stored, else the mean of its words'
    const conf = typeof s.asr_confidence === 'number' && Number.isFinite(s.asr_confidence) ? r3(s.asr_confidence) : asrConfidence(s.words);
    const doubt = doubtfulOf(s.src_text, s.words);
    const speed = s.speed_factor === null || s.speed_factor === undefined ? null : r3(s.speed_factor);
    const issues: QualityIssue[] = [];
    const ended = dubEnd === null || dubEnd <= s.end_sec + 0.05;
    if (!ended && overflow > LIMITS.overflowSec) issues.push('overflow');
    if (speed !== null && speed > LIMITS.fastSpeech) issues.push('fast_speech');
    if (speed !== null && speed < LIMITS.slowSpeech) issues.push('slow_speech');
    if (overlap > LIMITS.overlapSec) issues.push('overlap');
    if (drift !== null && Math.abs(drift) > LIMITS.driftSec) issues.push('drift');
    if (!heard && s.dst_text.trim() !== '') issues.push('missing_speech');
    if (g.found.length < g.expected.length) issues.push('glossary');
    // many doubtful words say where to listen: that flag replaces the segment's low confidence one
    if (manyDoubtful(doubt.texts.length, doubt.scored)) issues.push('doubtful_words');
    else if (conf !== null && conf < LIMITS.asrConfidence) issues.push('low_asr_confidence');
    if (leak !== null && leak > LIMITS.speechUnderDubDb) issues.push('speech_under_dub');
    if (dip !== null && dip > LIMITS.backgroundDipDb) issues.push('background_dip');
    return {
      id: s.id, start: r3(s.start_sec), end: r3(s.end_sec), speaker: s.speaker, speed_factor: speed, dub_start: dubStart, dub_end: dubEnd,
      ended_within_slot: ended, overflow_sec: overflow, borrowed_gap_sec: borrowed, overlap_sec: overlap, drift_sec: drift,
      glossary_expected: g.expected, glossary_found: g.found, ...(unapplied.length ? { glossary_unapplied: unapplied } : {}), asr_confidence: conf, speech_under_dub_db: leak, background_dip_db: dip, issues,
      doubtful_words: doubt.texts.length, doubtful_word_texts: doubt.texts,
    };
  };
  const out: QualitySegment[] = [];
  for (let k = 0; k < segs.length; k++) {
    out.push(segmentReport(segs[k]!, k));
    if (k % QUALITY_SLICE === QUALITY_SLICE - 1) yield;
  }
  yield;

  // Speech coverage: share of the slots' frames in which the dubbed voice is heard.
  let slotFrames = 0;
  let heardFrames = 0;
  for (let f = 0; f < n; f++) {
    if (!cover[f]) continue;
    slotFrames++;
    if (voiced(f)) heardFrames++;
  }
  // Background: where neither the source speaks (no slot) nor the dub, compare the output's level to the source's.
  let outPow = 0;
  let srcPow = 0;
  let bgFrames = 0;
  if (i.output && i.source) {
    const m = Math.min(n, i.output.rms.length, i.source.rms.length);
    for (let f = 0; f < m; f++) {
      if (cover[f] || voiced(f) || voiced(f - 1) || voiced(f + 1)) continue;
      outPow += i.output.rms[f]! ** 2;
      srcPow += i.source.rms[f]! ** 2;
      bgFrames++;
    }
  }
  yield;
  const bgOut = bgFrames > 0 ? db(outPow / bgFrames) : null;
  const bgSrc = bgFrames > 0 ? db(srcPow / bgFrames) : null;
  // Nothing to keep (no background in the source, or no moment without speech) counts as kept.
  const kept = bgSrc === null || bgSrc < -60 || (bgOut !== null && bgOut >= bgSrc - LIMITS.backgroundDropDb);
  const finite = (x: number | null) => (x === null || !Number.isFinite(x) ? null : r1(x));
  return {
    project_id: i.projectId,
    generation: i.generation,
    created_at: (i.now ?? new Date()).toISOString(),
    stale: false,
    duration: r3(i.duration),
    max_drift_sec: r3(Math.max(0, ...out.map((s) => Math.abs(s.drift_sec ?? 0)))),
    loudness_lufs: finite(i.loudnessLufs),
    source_loudness_lufs: finite(i.sourceLoudnessLufs),
    background_level_db: bgOut,
    source_background_level_db: bgSrc,
    background_kept: kept,
    speech_coverage: slotFrames ? r3(heardFrames / slotFrames) : 0,
    doubtful_words: out.reduce((a, s) => a + (s.doubtful_words ?? 0), 0),
    loudness_range_lu: finite(i.loudnessRangeLu ?? null),
    source_loudness_range_lu: finite(i.sourceLoudnessRangeLu ?? null),
    true_peak_dbtp: finite(i.truePeakDbtp ?? null),
    loudness_target: i.loudnessTarget ?? null,
    segments: out,
    speakers: i.speakers ?? [],
    attention: [
      ...speakerAttention(i.speakers ?? []),
      // the segments' flags in time order (a stable sort: a segment's own flags first, then its subtitles')
      ...[...out.flatMap(segmentAttention), ...(i.subtitles ? subtitleAttention(i.segments, i.subtitles.cues, i.subtitles.limits) : [])]
        .sort((a, b) => (a.start ?? 0) - (b.start ?? 0)),
    ],
  };
}

const st = (x: number) => `${Math.abs(x).toFixed(1)} semitone${Math.abs(x) >= 0.95 && Math.abs(x) < 1.05 ? '' : 's'}`;

/** The speakers' flags: a dubbed voice far from the speaker's pitch, or of the other gender. */
export function speakerAttention(speakers: readonly QualitySpeaker[]): AttentionItem[] {
  const items: AttentionItem[] = [];
  for (const s of speakers) {
    if (s.gender && s.dub_gender && s.gender !== s.dub_gender) {
      items.push({
        kind: 'voice_gender', severity: 'critical', segment_id: null, speaker: s.id, start: null,
        reason: `${s.name} sounds ${s.gender}, but is dubbed with a ${s.dub_gender} voice.`,
        action: `Choose a ${s.gender} voice for ${s.name} in the speakers panel (or an instant clone of ${s.name}), then generate again.`,
        value: s.pitch_distance_st,
      });
    }
    if (s.pitch_distance_st !== null && Math.abs(s.pitch_distance_st) > LIMITS.voicePitchSt) {
      items.push({
        kind: 'voice_pitch', severity: Math.abs(s.pitch_distance_st) > 2 * LIMITS.voicePitchSt ? 'critical' : 'warning', segment_id: null, speaker: s.id, start: null,
        reason: `${s.name}'s dubbed voice is ${st(s.pitch_distance_st)} ${s.pitch_distance_st > 0 ? 'higher' : 'lower'} than ${s.name} (${Math.round(s.dub_pitch_hz ?? 0)} Hz against ${Math.round(s.pitch_hz ?? 0)} Hz).`,
        action: `Choose a voice closer to ${s.name}'s pitch in the speakers panel, or make an instant clone of ${s.name}.`,
        value: s.pitch_distance_st,
      });
    }
  }
  return items;
}

/** A segment's flags, each with a reason and what to do. */
export function segmentAttention(s: QualitySegment): AttentionItem[] {
  const at = { segment_id: s.id, speaker: s.speaker || null, start: s.start };
  const speed = s.speed_factor ?? 1;
  const texts: Record<QualityIssue, () => Omit<AttentionItem, 'kind' | 'segment_id' | 'speaker' | 'start'>> = {
    overflow: () => ({
      severity: 'warning', value: s.overflow_sec,
      reason: `The dubbed voice runs ${s.overflow_sec.toFixed(2)} s past the end of its segment.`,
      action: 'Shorten the translation (or use Rewrite: shorten), or make the segment longer.',
    }),
    fast_speech: () => ({
      severity: speed > 1.3 ? 'critical' : 'warning', value: s.speed_factor,
      reason: `The voice is sped up to ×${speed.toFixed(2)} to fit: listeners hear it rushed (natural is 0.9-1.15).`,
      action: 'Shorten the translation (Rewrite: shorten), or give the segment more time.',
    }),
    slow_speech: () => ({
      severity: 'warning', value: s.speed_factor,
      reason: `The voice is slowed to ×${speed.toFixed(2)} to fill its slot: it sounds dragged (natural is 0.9-1.15).`,
      action: 'Lengthen the translation a little, or shorten the segment.',
    }),
    overlap: () => ({
      severity: 'warning', value: s.overlap_sec,
      reason: `The voice overlaps another segment for ${s.overlap_sec.toFixed(2)} s.`,
      action: 'Shorten this translation or move the segments apart.',
    }),
    drift: () => ({
      severity: 'warning', value: s.drift_sec,
      reason: `The voice starts ${Math.abs(s.drift_sec ?? 0).toFixed(2)} s ${(s.drift_sec ?? 0) > 0 ? 'after' : 'before'} the original speech.`,
      action: 'Shorten the segment before it, or adjust this segment’s start.',
    }),
    missing_speech: () => ({
      severity: 'critical', value: null,
      reason: 'No dubbed voice is heard in this segment although it has a translation.',
      action: 'Check the translation text and the speaker’s voice, then generate again.',
    }),
    glossary: () => {
      const missing = s.glossary_expected.filter((t) => !s.glossary_found.includes(t));
      const unapplied = (s.glossary_unapplied ?? []).filter((t) => missing.includes(t));
      const edited = missing.filter((t) => !unapplied.includes(t));
      const parts = [
        unapplied.length ? `The translation engine could not apply the dictionary term${unapplied.length > 1 ? 's' : ''}: ${unapplied.join(', ')}.` : '',
        edited.length ? `Dictionary term missing from the translation: ${edited.join(', ')}.` : '',
      ];
      return { severity: 'warning', value: null, reason: parts.filter(Boolean).join(' '), action: 'Edit the translation to use the dictionary’s term.' };
    },
    low_asr_confidence: () => ({
      severity: 'warning', value: s.asr_confidence,
      reason: `The original speech was recognised with low confidence (${Math.round((s.asr_confidence ?? 0) * 100)}%): the transcript may be wrong.`,
      action: 'Listen to the original and correct the transcript, then translate the segment again.',
    }),
    doubtful_words: () => {
      const words = s.doubtful_word_texts ?? [];
      const shown = words.slice(0, 5).map((w) => `“${w}”`).join(', ') + (words.length > 5 ? ` and ${words.length - 5} more` : '');
      return {
        severity: 'warning', value: s.doubtful_words ?? words.length,
        reason: `${words.length} words of the original speech were recognised with doubt (${shown}): the transcript is likely wrong there.`,
        action: 'Listen to the original at the shaded words and correct the transcript, then translate the segment again.',
      };
    },
    speech_under_dub: () => ({
      severity: (s.speech_under_dub_db ?? -99) > -12 ? 'critical' : 'warning', value: s.speech_under_dub_db ?? null,
      reason: `The original speech can still be heard under the dub here (about ${Math.abs(s.speech_under_dub_db ?? 0).toFixed(0)} dB under the voice).`,
      action: 'Listen to the segment; if the original voice distracts, lower the background or choose a stronger separation engine.',
    }),
    background_dip: () => ({
      severity: (s.background_dip_db ?? 0) > 12 ? 'critical' : 'warning', value: s.background_dip_db ?? null,
      reason: `The music and sounds drop by about ${(s.background_dip_db ?? 0).toFixed(0)} dB while this segment is spoken.`,
      action: 'Listen to the segment; if the drop is audible, keep the original audio here or choose a stronger separation engine.',
    }),
  };
  return s.issues.map((k) => ({ kind: k, ...at, ...texts[k]() }));
}

/**
 * The subtitles that still break the limits once laid out (a segment too fast for the silence around it, a cue
 * left shorter than the minimum ...): one item per segment, with the cues' problems and the worst reading speed.
 */
export function subtitleAttention(
  segments: ReadonlyArray<Pick<SegmentRow, 'id' | 'start_sec' | 'end_sec' | 'speaker'>>,
  cues: readonly Cue[],
  limits: SubtitleLimits,
): AttentionItem[] {
  const bySegment = new Map<string, CueCheck[]>();
  const order: string[] = [];
  for (const c of checkCues(cues, limits)) {
    // the segment the cue belongs to: the one it overlaps most (cues may be lengthened into the gaps around it)
    let best: (typeof segments)[number] | null = null;
    let bestOverlap = -Infinity;
    for (const sg of segments) {
      const o = Math.min(sg.end_sec, c.end) - Math.max(sg.start_sec, c.start);
      if (o > bestOverlap) { best = sg; bestOverlap = o; }
    }
    const id = best?.id ?? '';
    if (!bySegment.has(id)) { bySegment.set(id, []); order.push(id); }
    bySegment.get(id)!.push(c);
  }
  return order.map((id) => {
    const checks = bySegment.get(id)!;
    const sg = segments.find((x) => x.id === id);
    const has = (p: CueCheck['problems'][number]) => checks.some((c) => c.problems.includes(p));
    const fastest = Math.max(...checks.map((c) => c.cps));
    const reasons: string[] = [];
    if (has('too_fast')) reasons.push(`reads at ${r1(fastest)} characters per second (at most ${limits.maxCps} can be read)`);
    if (has('too_short')) reasons.push(`shows for only ${Math.min(...checks.map((c) => c.end - c.start)).toFixed(2)} s (at least ${limits.minDuration} s)`);
    if (has('too_long')) reasons.push(`stays up more than ${limits.maxDuration} s`);
    if (has('line_too_long')) reasons.push(`has a line over ${limits.maxLineChars} characters`);
    if (has('too_many_lines')) reasons.push(`has more than ${limits.maxLines} lines`);
    return {
      kind: 'subtitles',
      severity: has('too_fast') && fastest > limits.maxCps * 1.25 ? 'critical' : 'warning',
      segment_id: sg?.id ?? null,
      speaker: sg?.speaker || null,
      start: sg ? r3(sg.start_sec) : r3(checks[0]!.start),
      reason: `The subtitle here ${reasons.join(', ')}.`,
      action: has('too_fast') || has('too_short')
        ? 'Shorten the translation (Rewrite: shorten), or give the segment more time.'
        : 'Edit the translation, then generate again.',
      value: Number.isFinite(fastest) ? r1(fastest) : null,
    } satisfies AttentionItem;
  });
}

export interface QualityFiles {
  /** Voice-only output, final soundtrack, source audio (local paths). */
  voice: string;
  output: string;
  /** The source audio as extracted at ingest (mono 16 kHz WAV) and at full quality (for loudness). */
  source16k: string | null;
  sourceFull: string | null;
  /** The separation's background stem and speech estimate (null: not kept). */
  background?: string | null;
  speech16k?: string | null;
  /** The source's loudness when already measured (the merge measures it for its target). */
  sourceLoudness?: LoudnessFigures | null;
  tmp: string;
  signal?: AbortSignal;
  /**
   * What the merge already measured while it made the outputs (issue 30): with it the outputs are not decoded again.
   * Envelopes at the report's hop (0.02 s).
   */
  measured?: {
    /** The voice-only track, the final soundtrack (null: not known), the background stem and the speech estimate. */
    voice: Envelope;
    output: Envelope | null;
    background?: Envelope | null;
    speech?: Envelope | null;
    /** Loudness, range and true peak of the final soundtrack as it was encoded. */
    outputLoudness: LoudnessFigures | null;
    /** The voice as a mono 16 kHz WAV (the speakers' dubbed pitch). */
    voiceWav: string;
  } | null;
}

/** A speaker as the report needs it: their profile and the dub voice's gender. */
export interface SpeakerForQuality {
  id: string;
  name: string;
  voice_id: string | null;
  pitch_hz: number | null;
  gender: 'male' | 'female' | null;
  dub_gender: 'male' | 'female' | null;
}

/** Measures the files (levels, loudness), or takes what the merge measured, and analyses them. */
export async function measureQuality(
  files: QualityFiles,
  meta: Omit<QualityInputs, 'voice' | 'output' | 'source' | 'loudnessLufs' | 'sourceLoudnessLufs' | 'speakers'> & { speakers?: SpeakerForQuality[] },
): Promise<QualityReport> {
  const o = { signal: files.signal };
  const pre = files.measured ?? null;
  const voiceWav = pre ? pre.voiceWav : join(files.tmp, 'quality_voice.wav');
  const outWav = join(files.tmp, 'quality_output.wav');
  if (!pre) {
    await extractMonoWav(files.voice, voiceWav, o);
    await extractMonoWav(files.output, outWav, o);
  }
  const [loud, srcLoud] = await Promise.all([
    pre ? Promise.resolve(pre.outputLoudness) : measureLoudnessFigures(files.output, { ...o, truePeak: true }),
    files.sourceLoudness !== undefined && files.sourceLoudness !== null
      ? Promise.resolve(files.sourceLoudness)
      : files.sourceFull
        ? measureLoudnessFigures(files.sourceFull, o)
        : Promise.resolve(null),
  ]);
  // The dubbed voice of each speaker: its median pitch over the speaker's segments (in a worker thread).
  const speakers: QualitySpeaker[] = [];
  const sorted = [...meta.segments].filter((s) => s.end_sec > s.start_sec).sort((a, b) => a.start_sec - b.start_sec);
  for (const sp of meta.speakers ?? []) {
    const ranges = sorted
      .map((s, k) => ({ s, next: sorted[k + 1]?.start_sec ?? meta.duration }))
      .filter((x) => x.s.speaker === sp.id)
      .map((x) => ({ start: x.s.start_sec, end: Math.max(x.s.end_sec, x.next) }));
    let dubHz: number | null = null;
    if (ranges.length > 0) {
      const sample = await speechSample(
        { wav: voiceWav, ranges, keepSec: 40, trimToKeep: true, gapSec: 0, out: join(files.tmp, `quality_speaker_${speakers.length}.wav`), profileSec: 40 },
        o,
      ).catch(() => null);
      dubHz = sample?.profile?.median_hz ?? null;
    }
    speakers.push({
      id: sp.id, name: sp.name, voice_id: sp.voice_id, pitch_hz: sp.pitch_hz, gender: sp.gender, dub_pitch_hz: dubHz, dub_gender: sp.dub_gender,
      pitch_distance_st: dubHz !== null && sp.pitch_hz ? Math.round(12 * Math.log2(dubHz / sp.pitch_hz) * 10) / 10 : null,
    });
  }
  // Read with pauses for the event loop: the stage runs beside the API (an hour of audio took seconds in one go).
  return analyseQualitySliced({
    ...meta,
    speakers,
    voice: pre ? pre.voice : await wavRmsEnvelopeAsync(voiceWav, HOP),
    output: pre ? pre.output : await wavRmsEnvelopeAsync(outWav, HOP),
    source: files.source16k ? await wavRmsEnvelopeAsync(files.source16k, HOP) : null,
    background: pre?.background !== undefined && pre.background !== null ? pre.background : files.background ? await wavRmsEnvelopeAsync(files.background, HOP) : null,
    speech: pre?.speech !== undefined && pre.speech !== null ? pre.speech : files.speech16k ? await wavRmsEnvelopeAsync(files.speech16k, HOP) : null,
    sourceSide: files.sourceFull ? await wavRmsEnvelopeAsync(files.sourceFull, HOP, { weights: [0.5, -0.5] }) : null,
    loudnessLufs: loud?.I ?? null,
    sourceLoudnessLufs: srcLoud?.I ?? null,
    loudnessRangeLu: loud?.LRA ?? null,
    sourceLoudnessRangeLu: srcLoud?.LRA ?? null,
    truePeakDbtp: loud?.TP ?? null,
  });
}

export async function loadQuality(storage: Storage, projectId: string): Promise<QualityReport | null> {
  const k = qualityKey(projectId);
  if (!(await storage.exists(k))) return null;
  const r = JSON.parse((await storage.getBuffer(k)).toString('utf8')) as QualityReport;
  // reports made before the attention items (a list of segment ids): the items are made from the segments' issues
  if (r.attention.some((a) => typeof a === 'string')) {
    r.attention = r.segments.flatMap((s) => segmentAttention({ ...s, issues: s.issues.filter((i) => (QUALITY_ISSUES as readonly string[]).includes(i)) }));
  }
  return r;
}

const SEGMENT_COLUMNS = [
  'id', 'start', 'end', 'speaker', 'speed_factor', 'dub_start', 'dub_end', 'ended_within_slot', 'overflow_sec', 'borrowed_gap_sec',
  'overlap_sec', 'drift_sec', 'glossary_expected', 'glossary_found', 'asr_confidence', 'speech_under_dub_db', 'background_dip_db', 'issues', 'doubtful_words',
] as const;
const PROJECT_COLUMNS = [
  'project_id', 'generation', 'created_at', 'stale', 'duration', 'max_drift_sec', 'loudness_lufs', 'source_loudness_lufs',
  'background_level_db', 'source_background_level_db', 'background_kept', 'speech_coverage', 'attention', 'doubtful_words',
] as const;

/** The report as CSV: the project's figures (two lines), a blank line, then one line per segment. */
export function qualityCsv(r: QualityReport): string {
  return csvText([
    [...PROJECT_COLUMNS],
    PROJECT_COLUMNS.map((c) => (c === 'attention' ? r.attention.length : r[c])),
    [],
    [...SEGMENT_COLUMNS],
    ...r.segments.map((s) => SEGMENT_COLUMNS.map((c) => s[c])),
  ]);
}
