// Voice per speaker: same gender, nearest typical pitch, different speakers get different voices while
// there are enough. A voice a person chose (locked) is kept.
import type { Voice } from '../../../engines/types';

export interface SpeakerForVoice {
  id: string;
  gender: 'male' | 'female' | null;
  pitch_hz: number | null;
  voice_id: string | null;
  voice_locked: boolean;
}

const TYPICAL_PITCH = { male: 120, female: 210 } as const;

function pitchDistance(voice: Voice, speaker: SpeakerForVoice): number {
  const sp = speaker.pitch_hz ?? (speaker.gender ? TYPICAL_PITCH[speaker.gender] : null);
  const vp = voice.pitch ?? TYPICAL_PITCH[voice.gender];
  if (!sp || !vp) return 0;
  return Math.abs(12 * Math.log2(vp / sp)); // semitones
}

/** Returns speakerId -> voiceId for every speaker that is not locked to a voice still offered. */
export function chooseVoices(speakers: readonly SpeakerForVoice[], voices: readonly Voice[]): Map<string, string> {
  const out = new Map<string, string>();
  if (voices.length === 0) return out;
  const used = new Map<string, number>();
  const ids = new Set(voices.map((v) => v.id));
  for (const s of speakers) if (s.voice_locked && s.voice_id && ids.has(s.voice_id)) used.set(s.voice_id, 1);
  for (const s of speakers) {
    if (s.voice_locked && s.voice_id && ids.has(s.voice_id)) continue;
    const sameGender = s.gender ? voices.filter((v) => v.gender === s.gender) : [];
    const pool = sameGender.length > 0 ? sameGender : voices;
    const best = [...pool].sort(
      (a, b) =>
        (used.get(a.id) ?? 0) - (used.get(b.id) ?? 0) ||
        pitchDistance(a, s) - pitchDistance(b, s) ||
        (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    )[0]!;
    used.set(best.id, (used.get(best.id) ?? 0) + 1);
    out.set(s.id, best.id);
  }
  return out;
}
