// espeak-ng TTS: voice discovery, real synthesis, rate control.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diarizeSamples } from '../../../server/engines/builtin/dsp-diarization';
import {
  buildVoiceList,
  createEspeakTts,
  espeakArgs,
  espeakCodeToIso1,
  espeakWpm,
  parseEspeakVoiceId,
  parseEspeakVoices,
} from '../../../server/engines/builtin/espeak';
import { EngineError } from '../../../server/engines/types';
import { extractMonoWav } from '../../../server/media/ffmpeg';
import { readWav, readWavInfo } from '../../../server/media/wav';
import { tempDir } from '../../fixtures/media';

const tts = createEspeakTts();
const TEXT = 'The quick brown fox jumps over the lazy dog, and then it runs far away into the forest.';

describe('espeak-ng', () => {
  it('lists languages and male/female voices', async () => {
    await tts.init!();
    const langs = tts.languages();
    expect(langs.length).toBeGreaterThan(50);
    for (const l of ['en', 'es', 'fr', 'de', 'pt', 'zh']) expect(langs).toContain(l);
    const en = tts.voices('en');
    expect(en[0]!.id).toBe('espeak:en-us+m1');
    expect(en.some((v) => v.gender === 'female')).toBe(true);
    expect(en.some((v) => v.gender === 'male')).toBe(true);
    expect(en.every((v) => v.engine === 'espeak' && v.lang === 'en')).toBe(true);
    expect(en.some((v) => v.dialect === 'en-gb')).toBe(true);
    expect(tts.voices('es-419').some((v) => v.dialect === 'es-419')).toBe(true);
    expect(tts.voices('xx')).toEqual([]);
  });

  it('synthesises non-empty audio whose duration scales with the rate', async () => {
    const d = tempDir();
    const slow = await tts.synthesize({ text: TEXT, lang: 'en', voiceId: 'espeak:en-us+m3', rate: 1, outPath: join(d, 'r1.wav') });
    const fast = await tts.synthesize({ text: TEXT, lang: 'en', voiceId: 'espeak:en-us+m3', rate: 1.5, outPath: join(d, 'r15.wav') });
    expect(slow.durationSec).toBeGreaterThan(3);
    expect(readWavInfo(join(d, 'r1.wav')).durationSec).toBeCloseTo(slow.durationSec, 6);
    const ratio = slow.durationSec / fast.durationSec;
    expect(ratio).toBeGreaterThan(1.3);
    expect(ratio).toBeLessThan(1.7);
    const x = readWav(join(d, 'r1.wav')).channelData[0]!;
    expect(Math.max(...x.subarray(0, 20000).map(Math.abs))).toBeGreaterThan(0.1);
  });

  it('female voices are higher than male voices', async () => {
    const d = tempDir();
    const pitch = async (voiceId: string) => {
      const raw = join(d, `${voiceId.replace(/\W/g, '_')}.wav`);
      await tts.synthesize({ text: 'Hola, esto es una prueba de voz en español.', lang: 'es', voiceId, rate: 1, outPath: raw });
      const w16 = join(d, `${voiceId.replace(/\W/g, '_')}-16k.wav`);
      await extractMonoWav(raw, w16);
      const x = readWav(w16).channelData[0]!;
      return diarizeSamples(x, [{ start: 0, end: x.length / 16000 }]).profiles[0]!;
    };
    const m = await pitch('espeak:es+m3');
    const f = await pitch('espeak:es+f3');
    expect(m.gender).toBe('male');
    expect(f.gender).toBe('female');
    expect(f.meanPitchHz).toBeGreaterThan(m.meanPitchHz * 1.4);
  });

  it('refuses unknown voices', async () => {
    const out = join(tempDir(), 'x.wav');
    await expect(tts.synthesize({ text: 'hi', lang: 'en', voiceId: 'espeak:zz-qq+m1', rate: 1, outPath: out })).rejects.toBeInstanceOf(EngineError);
    await expect(tts.synthesize({ text: 'hi', lang: 'en', voiceId: 'elevenlabs:abc', rate: 1, outPath: out })).rejects.toThrow(/not an espeak voice|no voice/);
    await expect(tts.synthesize({ text: 'hi', lang: 'en', voiceId: 'espeak:en-us', rate: 0, outPath: out })).rejects.toThrow(/rate/);
  });
});

describe('espeak helpers', () => {
  it('parses the voice list', () => {
    const out = ` Pty Language       Age/Gender VoiceName          File                 Other Languages
 5  en-us           --/M      English_(America)  gmw/en-US            (en 3)
 5  cmn             --/M      Chinese_(Mandarin,_latin_as_English) sit/cmn              (zh-cmn 5)(zh 5)
 5  chr-US-Qaaa-x-west --/M      Cherokee_          iro/chr
`;
    expect(parseEspeakVoices(out)).toEqual([
      { code: 'en-us', name: 'English_(America)', lang: 'en' },
      { code: 'cmn', name: 'Chinese_(Mandarin,_latin_as_English)', lang: 'zh' },
      { code: 'chr-US-Qaaa-x-west', name: 'Cherokee_', lang: null },
    ]);
    expect(espeakCodeToIso1('es-419')).toBe('es');
    const voices = buildVoiceList(parseEspeakVoices(out), 'zh');
    expect(voices[0]!.id).toBe('espeak:cmn+m1');
  });
  it('voice ids, rates and arguments', () => {
    expect(parseEspeakVoiceId('espeak:en-us+f3')).toEqual({ code: 'en-us', variant: 'f3' });
    expect(parseEspeakVoiceId('es')).toEqual({ code: 'es', variant: null });
    expect(parseEspeakVoiceId('bad id!')).toBeNull();
    expect(espeakWpm(1)).toBe(175);
    expect(espeakWpm(1.2)).toBe(210);
    expect(espeakWpm(10)).toBe(500);
    expect(espeakWpm(0.1)).toBe(80);
    expect(espeakArgs({ code: 'es', variant: 'f3', wpm: 200, textFile: '/t.txt', outPath: '/o.wav' })).toEqual([
      '-v', 'es+f3', '-s', '200', '-b', '1', '-f', '/t.txt', '-w', '/o.wav',
    ]);
  });
});
