// Fitting synthesised speech to its time slot.
//
// For each segment: estimate the natural duration of the text (syllables ≈ letters / the language's
// letters-per-syllable, divided by its syllables per second); choose the synthesis rate so the speech
// fits the slot (clamped to minRate..maxRate); synthesise and measure; if longer than the slot,
// time-stretch with rubberband within minTempo..maxTempo; if still longer, borrow the silence up to the
// next segment's start (minus a guard); if even that is not enough, synthesise once more at a higher
// rate (never above maxRate) and stretch again; as a last resort cut with a short fade and record the
// overflow. Every clip is placed at its own segment start: nothing after it moves (zero drift).
//
// Results are cached by a content hash of (text, language, voice, TTS engine, fit settings, slot): an
// unchanged segment is not re-synthesised and yields the byte-identical cached file.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sequenceClips, timeStretch, trimWithFade } from '../../../media/ffmpeg';
import { wavDurationSec } from '../../../media/wav';
import { languageMeta } from '../../../engines/languages';
import { mapLimit } from '../../../engines/builtin/util';
import type { TtsEngine } from '../../../engines/types';

/** Bump when the algorithm changes in a way that changes outputs (invalidates caches). */
export const FIT_VERSION = 1;

export interface FitSettings {
  /** Synthesis rate range relative to the language's normal rate. */
  minRate: number;
  maxRate: number;
  /** Time-stretch (rubberband tempo) range. */
  minTempo: number;
  maxTempo: number;
  /** Silence kept before the next segment when borrowing, seconds. */
  guardSec: number;
  /** Fade-out length when a clip must be cut, seconds. */
  fadeSec: number;
  /** A clip this much longer than its target still counts as fitting, seconds. */
  toleranceSec: number;
}

export const DEFAULT_FIT_SETTINGS: Readonly<FitSettings> = {
  minRate: 0.9, // never drag speech much to fill a long slot: a short pause sounds better than slow speech
  maxRate: 1.6,
  minTempo: 0.85,
  maxTempo: 1.25,
  guardSec: 0.05,
  fadeSec: 0.05,
  toleranceSec: 0.02,
};

export interface FitSegmentInput {
  id?: string | number;
  /** Seconds. */
  start: number;
  end: number;
  text: string;
  /** Language of the text (639-1, dialect values like 'es-419' allowed). */
  lang: string;
  voiceId: string;
  /** Start of the next segment (defaults to the next segment by start time, else the video end). */
  nextStart?: number;
}

export interface FitPlan {
  index: number;
  id?: string | number;
  start: number;
  /** Target length: the segment's own duration (cut down if the next segment starts earlier). */
  slotSec: number;
  /** Hard limit: up to the next segment's start minus the guard. */
  limitSec: number;
  syllables: number;
  naturalSec: number;
  /** First synthesis rate. */
  rate: number;
}

export interface FittedSegment {
  index: number;
  id?: string | number;
  /** The fitted clip (null for empty text). */
  path: string | null;
  /** Synthesis rate of the final take (1 = the language's normal rate). */
  rate: number;
  /** rubberband tempo applied (1 = none). */
  stretch: number;
  /** Final overall speed vs natural: rate × stretch. */
  speedFactor: number;
  /** Seconds cut off the end because nothing else made it fit (0 normally). */
  overflowSec: number;
  durationSec: number;
  placedStart: number;
  placedEnd: number;
  /** Seconds taken from the silence after the slot. */
  borrowedSec: number;
  resynthesized: boolean;
  cacheKey: string | null;
  /** True when the clip came from the cache (no synthesis). */
  cached: boolean;
}

export interface PlanOptions {
  /** Video end: the limit of the last segment. */
  totalDurationSec?: number;
  settings?: Partial<FitSettings>;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));

/** Letters (and digits) of a text: the basis of the syllable estimate. */
export function countLetters(text: string): number {
  return (text.match(/[\p{L}\p{N}]/gu) ?? []).length;
}

/** Estimated natural duration of a text in seconds (syllables / rate, plus short pauses at punctuation). */
export function estimateNaturalDuration(text: string, lang: string): { syllables: number; seconds: number } {
  const meta = languageMeta(lang);
  const cps = meta?.mean_char_per_syllable ?? 2.5;
  const rate = meta?.speech_rate ?? 5.5;
  const syllables = countLetters(text) / cps;
  const inner = text.trim().replace(/[.!?…]+["')\]]*$/u, '');
  // pauses at punctuation followed by a space ("1.234,5" and "12:30" are not pauses)
  const pauses = (inner.match(/[.!?;:…](?=\s)/g) ?? []).length * 0.25 + (inner.match(/(?:[,،](?=\s)|[、，])/g) ?? []).length * 0.12;
  return { syllables, seconds: syllables > 0 ? syllables / rate + pauses : 0 };
}

/** Pure planning step: slots, limits, natural durations and the first synthesis rate of each segment. */
export function planFit(segments: readonly FitSegmentInput[], o: PlanOptions = {}): FitPlan[] {
  const s: FitSettings = { ...DEFAULT_FIT_SETTINGS, ...o.settings };
  const order = segments.map((seg, i) => ({ seg, i })).sort((a, b) => a.seg.start - b.seg.start || a.i - b.i);
  const nextByIndex = new Map<number, number>();
  order.forEach(({ i }, k) => {
    const next = order[k + 1]?.seg.start;
    nextByIndex.set(i, next ?? o.totalDurationSec ?? Infinity);
  });
  return segments.map((seg, i) => {
    const nextStart = seg.nextStart ?? nextByIndex.get(i)!;
    const own = Math.max(0, seg.end - seg.start);
    const limit = Math.max(0.05, Number.isFinite(nextStart) ? nextStart - s.guardSec - seg.start : own + 3600);
    const slot = Math.max(0.05, Math.min(own, limit));
    const nat = estimateNaturalDuration(seg.text, seg.lang);
    const rate = nat.seconds > 0 ? clamp(nat.seconds / slot, s.minRate, s.maxRate) : 1;
    return {
      index: i,
      id: seg.id,
      start: seg.start,
      slotSec: round3(slot),
      limitSec: round3(limit),
      syllables: Math.round(nat.syllables * 10) / 10,
      naturalSec: round3(nat.seconds),
      rate: round3(rate),
    };
  });
}

/** Content hash of everything that determines a fitted clip. */
export function fitCacheKey(seg: FitSegmentInput, plan: FitPlan, engineId: string, settings: FitSettings): string {
  const payload = JSON.stringify([
    FIT_VERSION,
    seg.text.replace(/\s+/g, ' ').trim(),
    seg.lang,
    seg.voiceId,
    engineId,
    [settings.minRate, settings.maxRate, settings.minTempo, settings.maxTempo, settings.guardSec, settings.fadeSec, settings.toleranceSec],
    [plan.slotSec, plan.limitSec],
  ]);
  return createHash('sha256').update(payload).digest('hex').slice(0, 40);
}

export interface FitOptions {
  tts: TtsEngine;
  /** Where fitted clips are kept across runs (content-addressed). */
  cacheDir: string;
  /** Scratch space for intermediate takes. */
  workDir: string;
  signal?: AbortSignal;
  totalDurationSec?: number;
  settings?: Partial<FitSettings>;
  /** Segments processed in parallel (default 2). */
  concurrency?: number;
  /** Called with the number of segments fitted so far. */
  onFitted?: (count: number) => void;
}

type CachedMeta = Omit<FittedSegment, 'index' | 'id' | 'path' | 'placedStart' | 'placedEnd' | 'cached' | 'cacheKey'>;

/** Fits every segment (see the module comment); results in input order. */
export async function fitSegments(segments: readonly FitSegmentInput[], o: FitOptions): Promise<FittedSegment[]> {
  const settings: FitSettings = { ...DEFAULT_FIT_SETTINGS, ...o.settings };
  const plans = planFit(segments, { totalDurationSec: o.totalDurationSec, settings });
  mkdirSync(o.cacheDir, { recursive: true });
  mkdirSync(o.workDir, { recursive: true });
  let fitted = 0;
  return mapLimit(plans, o.concurrency ?? 2, async (plan) => {
    const r = await fitOne(segments[plan.index]!, plan, settings, o);
    o.onFitted?.(++fitted);
    return r;
  });
}

async function fitOne(seg: FitSegmentInput, plan: FitPlan, s: FitSettings, o: FitOptions): Promise<FittedSegment> {
  const base = { index: plan.index, id: seg.id, placedStart: seg.start };
  if (!seg.text.trim()) {
    return { ...base, path: null, rate: 1, stretch: 1, speedFactor: 1, overflowSec: 0, durationSec: 0, placedEnd: seg.start, borrowedSec: 0, resynthesized: false, cacheKey: null, cached: false };
  }
  const key = fitCacheKey(seg, plan, o.tts.id, s);
  const clip = join(o.cacheDir, `${key}.wav`);
  const metaPath = join(o.cacheDir, `${key}.json`);
  if (existsSync(clip) && existsSync(metaPath)) {
    try {
      const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as CachedMeta;
      return { ...base, ...meta, path: clip, placedEnd: round3(seg.start + meta.durationSec), cacheKey: key, cached: true };
    } catch {
      /* unreadable metadata: fit again */
    }
  }

  const tag = `${key}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tmp: string[] = [];
  const work = (name: string) => {
    const p = join(o.workDir, `${tag}-${name}.wav`);
    tmp.push(p);
    return p;
  };
  const tol = s.toleranceSec;
  try {
    // 1. synthesise at the planned rate
    let rate = plan.rate;
    let take = work('take1');
    let rawDur = (await o.tts.synthesize({ text: seg.text, lang: seg.lang, voiceId: seg.voiceId, rate, outPath: take }, { signal: o.signal })).durationSec;
    let stretch = 1;
    let cur = take;
    let dur = rawDur;
    let resynthesized = false;

    // 2. time-stretch toward the slot, within the tempo range
    const stretchTo = async (target: number, label: string) => {
      if (dur <= target + tol) return;
      const tempo = clamp(rawDur / target, Math.max(1, s.minTempo), s.maxTempo);
      if (tempo <= 1.0005) return;
      const out = work(label);
      dur = await timeStretch(take, out, tempo, { signal: o.signal });
      cur = out;
      stretch = tempo;
    };
    await stretchTo(plan.slotSec, 'st1');

    // 3. borrowing the gap is implicit: anything up to limitSec is accepted.
    // 4. still too long: synthesise once more, faster (never above maxRate), and stretch again
    if (dur > plan.limitSec + tol && rate < s.maxRate - 1e-6) {
      const needed = (rate * rawDur) / (plan.limitSec * s.maxTempo);
      rate = round3(clamp(Math.max(needed * 1.05, rate * 1.1), rate, s.maxRate));
      take = work('take2');
      rawDur = (await o.tts.synthesize({ text: seg.text, lang: seg.lang, voiceId: seg.voiceId, rate, outPath: take }, { signal: o.signal })).durationSec;
      cur = take;
      dur = rawDur;
      stretch = 1;
      resynthesized = true;
      await stretchTo(plan.slotSec, 'st2');
    }

    // 5. last resort: cut with a fade at the limit
    let overflow = 0;
    if (dur > plan.limitSec + tol) {
      const out = work('trim');
      overflow = dur - plan.limitSec;
      dur = await trimWithFade(cur, out, plan.limitSec, { fadeSec: s.fadeSec, signal: o.signal });
      cur = out;
    }

    const meta: CachedMeta = {
      rate,
      stretch: round3(stretch),
      speedFactor: round3(rate * stretch),
      overflowSec: round3(overflow),
      durationSec: round3(wavDurationSec(cur)),
      borrowedSec: round3(Math.max(0, dur - plan.slotSec)),
      resynthesized,
    };
    // publish atomically: clip first, metadata last (a hit needs both)
    const part = `${clip}.${tag}.part`;
    copyFileSync(cur, part);
    renameSync(part, clip);
    writeFileSync(`${metaPath}.${tag}.part`, JSON.stringify(meta));
    renameSync(`${metaPath}.${tag}.part`, metaPath);
    return { ...base, ...meta, path: clip, placedEnd: round3(seg.start + meta.durationSec), cacheKey: key, cached: false };
  } finally {
    for (const p of tmp) rmSync(p, { force: true });
  }
}

/**
 * The dub voice track: every fitted clip at its own start on a silent track exactly
 * `totalDurationSec` long (mono WAV, 48 kHz by default). The clips are laid in sequence (linear in the
 * track's length); the samples are those of placing them with delays and a mix (placeClips).
 */
export async function buildVoiceTrack(
  fitted: readonly FittedSegment[],
  totalDurationSec: number,
  outWav: string,
  o: { sampleRate?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const clips = fitted.filter((f) => f.path && f.durationSec > 0).map((f) => ({ path: f.path!, offsetSec: f.placedStart }));
  await sequenceClips(clips, totalDurationSec, outWav, { sampleRate: o.sampleRate ?? 48000, channels: 1, signal: o.signal });
}
