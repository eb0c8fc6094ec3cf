// Matching a project's speaker to a Teamspace's cast (issue 31, part 5): a distance between two measured voice
// profiles (server/engines/builtin/voice-profile.ts) and the one-to-one pairing of speakers with cast members.
// Pure: the voice_suggest stage and the bench (bench/cast.ts) call it. The scales and the threshold are
// calibrated by `npm run bench:cast` (LibriVox readings, other recordings, espeak-ng and festival voices).
import type { VoiceProfile } from '../../../contract/schemas/voice-preset';

/**
 * How far apart two features may be before they count as one unit of distance: pitch in semitones, the formant
 * scale and the spectral centroid in octaves, the pitch range in semitones, the speech rate in octaves.
 */
const SCALE = { pitchSt: 3, formantOct: 0.1, centroidOct: 0.3, rangeSt: 4, rateOct: 0.4 } as const;
const WEIGHT = { pitch: 1, formant: 1, centroid: 1, range: 0.5, rate: 0.5 } as const;

/** A speaker is recognised as a cast member under this distance (see bench/cast.ts for the rates it gives). */
export const CAST_MATCH_THRESHOLD = 0.75;
/** Less speech than this (seconds) is too little to recognise anyone by. */
export const CAST_MIN_SPEECH_SEC = 2;

const oct = (a: number, b: number) => Math.abs(Math.log2(a / b));

/** Weighted RMS of the features' differences, each over its scale; Infinity when a profile is unusable. */
export function profileDistance(a: VoiceProfile, b: VoiceProfile): number {
  if (!(a.median_hz > 0) || !(b.median_hz > 0)) return Infinity;
  const terms: Array<[number, number]> = [];
  terms.push([WEIGHT.pitch, (12 * oct(a.median_hz, b.median_hz)) / SCALE.pitchSt]);
  if (a.formant_hz && b.formant_hz) terms.push([WEIGHT.formant, oct(a.formant_hz, b.formant_hz) / SCALE.formantOct]);
  if (a.spectral_tilt > 0 && b.spectral_tilt > 0) terms.push([WEIGHT.centroid, oct(a.spectral_tilt, b.spectral_tilt) / SCALE.centroidOct]);
  terms.push([WEIGHT.range, Math.abs(a.range_st - b.range_st) / SCALE.rangeSt]);
  if (a.speech_rate > 0 && b.speech_rate > 0) terms.push([WEIGHT.rate, oct(a.speech_rate, b.speech_rate) / SCALE.rateOct]);
  const w = terms.reduce((s, [wt]) => s + wt, 0);
  return Math.sqrt(terms.reduce((s, [wt, d]) => s + wt * d * d, 0) / w);
}

export interface CastCandidate {
  id: string;
  profile: VoiceProfile | null;
}

/**
 * Speaker id -> cast member id: each pair under the threshold, closest pairs first, one speaker per member and
 * one member per speaker (two speakers of one project are two people).
 */
export function matchCast(
  speakers: readonly CastCandidate[],
  members: readonly CastCandidate[],
  threshold = CAST_MATCH_THRESHOLD,
): Map<string, { memberId: string; distance: number }> {
  const pairs: Array<{ s: string; m: string; d: number }> = [];
  for (const s of speakers) {
    if (!s.profile || s.profile.speech_sec < CAST_MIN_SPEECH_SEC) continue;
    for (const m of members) {
      if (!m.profile) continue;
      const d = profileDistance(s.profile, m.profile);
      if (d < threshold) pairs.push({ s: s.id, m: m.id, d });
    }
  }
  pairs.sort((x, y) => x.d - y.d || (x.s < y.s ? -1 : x.s > y.s ? 1 : x.m < y.m ? -1 : x.m > y.m ? 1 : 0));
  const out = new Map<string, { memberId: string; distance: number }>();
  const taken = new Set<string>();
  for (const p of pairs) {
    if (out.has(p.s) || taken.has(p.m)) continue;
    out.set(p.s, { memberId: p.m, distance: Math.round(p.d * 1000) / 1000 });
    taken.add(p.m);
  }
  return out;
}

/** The profile of two recordings of one person kept as one (a merge): weighted by their seconds of speech. */
export function mergeProfiles(a: VoiceProfile, b: VoiceProfile): VoiceProfile {
  const wa = Math.max(0.1, a.speech_sec);
  const wb = Math.max(0.1, b.speech_sec);
  const geo = (x: number, y: number) => Math.exp((wa * Math.log(x) + wb * Math.log(y)) / (wa + wb));
  const lin = (x: number, y: number) => (wa * x + wb * y) / (wa + wb);
  const r = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
  const main = wa >= wb ? a : b;
  return {
    median_hz: r(geo(a.median_hz, b.median_hz), 1),
    range_st: r(lin(a.range_st, b.range_st), 2),
    spectral_tilt: r(geo(a.spectral_tilt, b.spectral_tilt), 0),
    speech_rate: a.speech_rate > 0 && b.speech_rate > 0 ? r(geo(a.speech_rate, b.speech_rate), 2) : main.speech_rate,
    speech_sec: r(a.speech_sec + b.speech_sec, 2),
    gender: main.gender,
    formant_hz: a.formant_hz && b.formant_hz ? r(geo(a.formant_hz, b.formant_hz), 0) : (a.formant_hz ?? b.formant_hz ?? null),
    gender_confidence: main.gender_confidence,
  };
}
