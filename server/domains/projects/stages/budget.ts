// The character budget of a segment (issue 29, "Length that fits"): how many characters of the target language
// the dubbed voice speaks within the segment's slot. One function, used by the translation stage (the MT engines'
// maxChars), the editor's Shorten and the AI rewrite's "Shorten to fit".
//   slot  = the segment's own time (end - start) plus the pause after it, up to MAX_PAUSE_SEC (a breath the voice
//           may take without being heard late), minus the guard the voiceover keeps before the next segment;
//   rate  = the target language's characters per second (./rates.ts) x the speaker's voice rate: the factor the
//           voice matching applies from the speaker's measured speaking rate (the voice profile), 1 when unmeasured.
import type { VoiceProfile } from '../../../../contract/schemas/voice-preset';
import type { Db } from '../../../db/index';
import { DEFAULT_FIT_SETTINGS } from './fit';
import { matchingPlan } from '../../voices/engines';
import { speakersOf } from '../repository';
import { nextSegmentStart } from '../transcript/repository';
import { charsPerSecond } from './rates';

/** Seconds of the following pause a line may use. */
export const MAX_PAUSE_SEC = 0.5;
/** The smallest budget given (a one-word line). */
export const MIN_BUDGET_CHARS = 4;

export interface SegmentBudget {
  /** The segment's own seconds. */
  slot_sec: number;
  /** Seconds of the following pause counted in. */
  pause_sec: number;
  /** Characters per second of the target voice. */
  chars_per_sec: number;
  /** Characters that fit. */
  chars: number;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** The speaking-rate factor of a speaker's voice, from its measured profile (1 when not measured). */
export function voiceRateFactor(profile: VoiceProfile | null | undefined): number {
  if (!profile || !Number.isFinite(profile.speech_rate) || profile.speech_rate <= 0) return 1;
  return matchingPlan(profile, 1, 0.5).rateFactor;
}

/**
 * The budget of `seg` in `lang`: `nextStart` is the start of the following segment (null: none), `rateFactor`
 * the voice's speaking-rate factor (voiceRateFactor).
 */
export function segmentBudget(
  seg: { start_sec: number; end_sec: number },
  nextStart: number | null,
  lang: string,
  rateFactor = 1,
): SegmentBudget {
  const own = Math.max(0, seg.end_sec - seg.start_sec);
  const gap = nextStart === null ? 0 : nextStart - seg.end_sec - DEFAULT_FIT_SETTINGS.guardSec;
  const pause = Math.max(0, Math.min(MAX_PAUSE_SEC, gap));
  const cps = Math.round(charsPerSecond(lang) * (Number.isFinite(rateFactor) && rateFactor > 0 ? rateFactor : 1) * 100) / 100;
  return { slot_sec: r3(own), pause_sec: r3(pause), chars_per_sec: cps, chars: Math.max(MIN_BUDGET_CHARS, Math.floor((own + pause) * cps)) };
}

/**
 * The budgets of a project's segments (in any order): the following segment is the next one by start time of
 * the whole transcript; `profiles` gives each speaker's measured voice profile.
 */
export function segmentBudgets(
  segs: ReadonlyArray<{ id: string; start_sec: number; end_sec: number; speaker: string }>,
  lang: string,
  profiles: ReadonlyMap<string, VoiceProfile | null> = new Map(),
): Map<string, SegmentBudget> {
  const order = [...segs].sort((a, b) => a.start_sec - b.start_sec || a.end_sec - b.end_sec);
  const out = new Map<string, SegmentBudget>();
  order.forEach((s, k) => {
    // the segment that starts next (another speaker already talking leaves no pause to take)
    const next = order[k + 1]?.start_sec ?? null;
    out.set(s.id, segmentBudget(s, next, lang, voiceRateFactor(profiles.get(s.speaker))));
  });
  return out;
}

/** The budget of one saved segment: the next segment of its project by start time, its speaker's voice rate. */
export async function savedSegmentBudget(
  db: Db,
  projectId: string,
  lang: string,
  seg: { id: string; start_sec: number; end_sec: number; speaker: string },
): Promise<SegmentBudget> {
  const next = await nextSegmentStart(db, projectId, seg);
  const profile = (await speakersOf(db, projectId)).find((s) => s.id === seg.speaker)?.profile ?? null;
  return segmentBudget(seg, next, lang, voiceRateFactor(profile));
}
