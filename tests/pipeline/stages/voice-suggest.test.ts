// voice_suggest on a real two-voice clip (a LibriVox reader and other sentences pitch-shifted up 11 semitones):
// each speaker gets a built-in voice of the same gender, and the figure of the issue is measured: the distance in
// semitones between each original speaker's median pitch and the dubbed voice's, with the stock voice and after
// voice matching (the built-in voice pitch-shifted toward the speaker with rubberband, formants kept).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDspDiarization } from '../../../server/engines/builtin/dsp-diarization';
import { createEspeakTts } from '../../../server/engines/builtin/espeak';
import { createSileroVad } from '../../../server/engines/builtin/silero-vad';
import { chooseVoices } from '../../../server/domains/projects/stages/voices';
import { pitchProfile, semitones } from '../../../server/engines/builtin/pitch';
import { pitchShift } from '../../../server/media/ffmpeg';
import { readWav } from '../../../server/media/wav';
import { makeSpeechTrack, tempDir } from '../../fixtures/media';

const SENTENCE = 'Buenos días a todos, hoy vamos a hablar de un tema muy importante para nuestra empresa.';

function samplesOf(wav: string, spans?: Array<{ start: number; end: number }>): { x: Float32Array; sr: number } {
  const w = readWav(wav);
  const x = w.channelData[0]!;
  if (!spans) return { x, sr: w.sampleRate };
  const parts = spans.map((s) => x.subarray(Math.floor(s.start * w.sampleRate), Math.floor(s.end * w.sampleRate)));
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return { x: out, sr: w.sampleRate };
}
const median = (wav: string, spans?: Array<{ start: number; end: number }>) => {
  const { x, sr } = samplesOf(wav, spans);
  return pitchProfile(x, sr).medianHz!;
};

describe('voice_suggest on a two-voice clip', () => {
  it('gives the female speaker a female voice and the male speaker a male one; voice matching brings the pitch within 2 semitones', async () => {
    const track = await makeSpeechTrack({ twoSpeakers: true });
    const regions = await createSileroVad().detect(track.wav);
    const { labels, profiles } = await createDspDiarization().diarize(track.wav, regions);
    // Which fixture voice each label is (the turn its first region falls in).
    const truth = new Map<string, 'male' | 'female'>();
    regions.forEach((r, i) => {
      const mid = (r.start + r.end) / 2;
      const t = track.turns.find((x) => mid >= x.start && mid <= x.end);
      if (t && !truth.has(labels[i]!)) truth.set(labels[i]!, t.speaker);
    });
    const tts = createEspeakTts();
    await tts.init?.();
    const voices = tts.voices('es');
    expect(voices.length).toBeGreaterThan(1);
    const chosen = chooseVoices(
      profiles.map((p) => ({ id: p.speaker, gender: p.gender, pitch_hz: p.meanPitchHz, voice_id: null, voice_locked: false })),
      voices,
    );
    const dir = tempDir('voice-match-');
    const rows: Array<{ speaker: string; original: number; voice: string; stockSt: number; matchedSt: number }> = [];
    for (const p of profiles) {
      const voice = voices.find((v) => v.id === chosen.get(p.speaker))!;
      expect(voice.gender, `${p.speaker} (${truth.get(p.speaker)})`).toBe(truth.get(p.speaker));
      const spans = regions.filter((_, i) => labels[i] === p.speaker);
      const original = median(track.wav, spans);
      const stockWav = join(dir, `${p.speaker}-stock.wav`);
      await tts.synthesize({ text: SENTENCE, lang: 'es', voiceId: voice.id, rate: 1, outPath: stockWav });
      const stock = median(stockWav);
      const matchedWav = join(dir, `${p.speaker}-matched.wav`);
      await pitchShift(stockWav, matchedWav, semitones(stock, original), { preserveFormants: true });
      const matched = median(matchedWav);
      rows.push({ speaker: truth.get(p.speaker)!, original, voice: voice.id, stockSt: Math.abs(semitones(stock, original)), matchedSt: Math.abs(semitones(matched, original)) });
    }
    console.log(
      'median-pitch distance (semitones), original speaker vs dubbed voice:\n' +
        rows.map((r) => `  ${r.speaker} speaker (${r.original.toFixed(0)} Hz), ${r.voice}: stock ${r.stockSt.toFixed(2)}, voice matching ${r.matchedSt.toFixed(2)}`).join('\n'),
    );
    expect(new Set(rows.map((r) => r.speaker))).toEqual(new Set(['male', 'female']));
    for (const r of rows) expect(r.matchedSt).toBeLessThan(2);
  }, 240_000);
});
