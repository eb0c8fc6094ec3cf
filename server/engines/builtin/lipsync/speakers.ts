// Which face speaks which turns. The picture is the original video, so the person who speaks a turn is
// the one whose mouth moved during it in the original: each track's mouth motion inside a speaker's
// turns, against its motion outside any turn, scores that pairing. With one speaker on screen the most
// active face (else the largest) is animated at every frame; with several, each track speaks for the
// speaker its mouth moved with (else, left to right, in the order the speakers first talk).
import type { SpeechTurn } from '../../types';
import { mouthOpening } from './mouth';
import { pointsAt, type FaceTrack } from './tracks';

/** Mouth motion above this (mean change of opening per frame) counts as a signal. */
const MIN_ACTIVITY = 0.004;

export interface SpeakerPlan {
  /** The tracks a speaker's turns drive. */
  bySpeaker: Map<string, number[]>;
  /** For one speaker on screen: per track, a priority (the best visible track is animated). */
  priority: Map<number, number>;
  multiple: boolean;
}

/** Frame indices inside each speaker's turns. */
function framesOf(turns: readonly SpeechTurn[], fps: number, frames: number): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const t of turns) {
    const s = out.get(t.speaker) ?? new Set<number>();
    for (let f = Math.max(0, Math.floor(t.start * fps)); f < Math.min(frames, Math.ceil(t.end * fps)); f++) s.add(f);
    out.set(t.speaker, s);
  }
  return out;
}

function motion(t: FaceTrack): Map<number, number> {
  const m = new Map<number, number>();
  let prev: number | null = null;
  for (let k = 0; k < t.points.length; k++) {
    const p = t.points[k];
    const o = p ? mouthOpening(p) : null;
    if (o !== null && prev !== null) m.set(t.first + k, Math.abs(o - prev));
    prev = o;
  }
  return m;
}

function mean(xs: number[]): number | null {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
}

/** How much more the track's mouth moves inside `inside` than outside every turn (null: too little data). */
export function activity(m: Map<number, number>, inside: Set<number>, anyTurn: Set<number>): number | null {
  const a: number[] = [];
  const b: number[] = [];
  for (const [f, v] of m) {
    if (inside.has(f)) a.push(v);
    else if (!anyTurn.has(f)) b.push(v);
  }
  if (a.length < 5) return null;
  const ma = mean(a)!;
  const mb = mean(b) ?? 0;
  return ma - mb;
}

export function planSpeakers(tracks: readonly FaceTrack[], turns: readonly SpeechTurn[], fps: number, frames: number, multiple: boolean): SpeakerPlan {
  const bySpeakerFrames = framesOf(turns, fps, frames);
  const anyTurn = new Set<number>();
  for (const s of bySpeakerFrames.values()) for (const f of s) anyTurn.add(f);
  const speakers = [...bySpeakerFrames.keys()];
  const motions = new Map(tracks.map((t) => [t.id, motion(t)]));
  const bySpeaker = new Map<string, number[]>(speakers.map((s) => [s, []]));
  const priority = new Map<number, number>();

  if (!multiple || speakers.length <= 1) {
    // One speaker on screen: every turn drives the best visible face. Activity first, then size.
    for (const t of tracks) {
      const act = activity(motions.get(t.id)!, anyTurn, anyTurn) ?? 0;
      priority.set(t.id, (act > MIN_ACTIVITY ? 1000 + act * 1000 : 0) + t.meanWidth);
    }
    for (const s of speakers) bySpeaker.set(s, tracks.map((t) => t.id));
    return { bySpeaker, priority, multiple: false };
  }

  const firstTalk = new Map<string, number>();
  for (const t of turns) firstTalk.set(t.speaker, Math.min(firstTalk.get(t.speaker) ?? Infinity, t.start));
  const byFirstTalk = [...speakers].sort((a, b) => firstTalk.get(a)! - firstTalk.get(b)!);
  const leftToRight = [...tracks].sort((a, b) => a.meanX - b.meanX);
  for (const t of tracks) {
    let best: string | null = null;
    let bestScore = MIN_ACTIVITY;
    for (const s of speakers) {
      const a = activity(motions.get(t.id)!, bySpeakerFrames.get(s)!, anyTurn);
      if (a !== null && a > bestScore) {
        best = s;
        bestScore = a;
      }
    }
    // No signal (a still face, too short a track): left to right in the order the speakers first talk.
    best ??= byFirstTalk[leftToRight.indexOf(t) % byFirstTalk.length]!;
    bySpeaker.get(best)!.push(t.id);
    priority.set(t.id, t.meanWidth);
  }
  return { bySpeaker, priority, multiple: true };
}

/**
 * How much each speaker is talking at time `sec`: 1 inside a turn, ramping over `rampSec` before and after
 * (the mouth starts moving with the first sound and settles after the last).
 */
export function speakerWeights(turns: readonly SpeechTurn[], sec: number, rampSec = 0.1): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of turns) {
    let w = 0;
    if (sec >= t.start && sec <= t.end) w = 1;
    else if (sec < t.start && sec > t.start - rampSec) w = 1 - (t.start - sec) / rampSec;
    else if (sec > t.end && sec < t.end + rampSec) w = 1 - (sec - t.end) / rampSec;
    if (w > (out.get(t.speaker) ?? 0)) out.set(t.speaker, w);
  }
  return out;
}

/** The tracks to animate at frame `f` with their weights (0..1]. */
export function activeTracks(plan: SpeakerPlan, tracks: readonly FaceTrack[], turns: readonly SpeechTurn[], f: number, fps: number): Array<{ track: FaceTrack; weight: number }> {
  const weights = speakerWeights(turns, f / fps);
  if (weights.size === 0) return [];
  const visible = tracks.filter((t) => pointsAt(t, f));
  if (!plan.multiple) {
    const w = Math.max(...weights.values());
    const best = visible.sort((a, b) => plan.priority.get(b.id)! - plan.priority.get(a.id)!)[0];
    return best && w > 0 ? [{ track: best, weight: w }] : [];
  }
  const out: Array<{ track: FaceTrack; weight: number }> = [];
  for (const [speaker, w] of weights) {
    if (w <= 0) continue;
    const ids = plan.bySpeaker.get(speaker) ?? [];
    for (const t of visible) if (ids.includes(t.id)) out.push({ track: t, weight: w });
  }
  return out;
}
