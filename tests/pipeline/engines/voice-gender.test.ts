// Gender from more than pitch (issue 28): the formant scale (LPC peaks F1-F3) follows the vocal tract, not the pitch;
// genderOf weighs both, so a 150 Hz voice is male with a man's formants and female with a woman's, and a voice in
// between is "unsure" (voice_suggest then picks the voice nearest in pitch, whatever its gender).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseVoices } from '../../../server/domains/projects/stages/voices';
import { formantScale, genderOf, GENDER_SURE } from '../../../server/engines/builtin/voice-profile';
import type { Voice } from '../../../server/engines/types';
import { pitchShift } from '../../../server/media/ffmpeg';
import { readWav, toMono } from '../../../server/media/wav';
import { librivoxWav, tempDir } from '../../fixtures/media';

describe('gender from pitch and formants', () => {
  it('pitch alone decides clear cases; formants decide the middle', () => {
    expect(genderOf(100, null)).toMatchObject({ gender: 'male', confidence: 1 });
    expect(genderOf(210, null)).toMatchObject({ gender: 'female' });
    // 150 Hz: a man's formants (1250 Hz) -> male, a woman's (1470 Hz) -> female
    expect(genderOf(150, 1250).gender).toBe('male');
    expect(genderOf(150, 1470).gender).toBe('female');
    // pitch and formants in between: unsure
    expect(genderOf(158, 1340).confidence).toBeLessThan(GENDER_SURE);
    // a high-pitched man with a long vocal tract stays male with confidence
    expect(genderOf(165, 1180)).toMatchObject({ gender: 'male' });
  });

  it('the formant scale of real speech rises with a shorter vocal tract, not with the pitch', async () => {
    const dir = tempDir('gender-');
    const src = librivoxWav('0870');
    const up = join(dir, 'formants-up.wav');
    await pitchShift(src, up, 12 * Math.log2(1.18)); // whole spectrum up 18 %: formants and pitch
    const f0 = formantScale(toMono(readWav(src).channelData), 16000)!;
    const f1 = formantScale(toMono(readWav(up).channelData), 16000)!;
    expect(f0).toBeGreaterThan(1000);
    expect(f0).toBeLessThan(1400);
    expect(f1 / f0).toBeGreaterThan(1.08);
  }, 60_000);

  it('an unsure speaker gets the voice nearest in pitch, of either gender', () => {
    const voices: Voice[] = [
      { id: 'm', name: 'M', lang: 'es', gender: 'male', pitch: 104, engine: 'espeak' },
      { id: 'f', name: 'F', lang: 'es', gender: 'female', pitch: 178, engine: 'espeak' },
    ];
    const pick = (gender: 'male' | 'female' | null, pitch: number) =>
      chooseVoices([{ id: 's', gender, pitch_hz: pitch, voice_id: null, voice_locked: false }], voices).get('s');
    expect(pick(null, 165)).toBe('f');
    expect(pick(null, 130)).toBe('m');
    expect(pick('male', 165)).toBe('m');
    expect(pick('female', 130)).toBe('f');
  });
});
