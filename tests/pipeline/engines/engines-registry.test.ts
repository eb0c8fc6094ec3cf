// The registry's capability queries and the settings' language lists, on the real installed tools.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { Language as LanguageSchema } from '../../../contract/schemas/settings';
import { buildLanguageLists, LANGUAGE_CATALOGUE, languageMeta, type EngineCapabilities } from '../../../server/engines/languages';
import { createEngineRegistry } from '../../../server/engines/registry';
import type { AsrEngine, MtEngine, TtsEngine } from '../../../server/engines/types';

const FIELDS = [
  'id', 'label', 'country_code', 'country_label', 'is_dialect', 'is_free', 'is_glossary_available', 'is_voice_preset_available',
  'mean_char_per_syllable', 'speech_rate', 'speech_tempo_feature', 'translation_label', 'value', 'voice_clone', 'voice_clone_beta',
  'variant_note', 'voice_clone_label', 'voice_preset_dialect', 'voice_preset_dialect_label',
].sort();

describe('engine registry (built-ins)', () => {
  const reg = createEngineRegistry();

  it('has one built-in engine per kind', () => {
    expect(reg.vad.id).toBe('silero-vad');
    expect(reg.asr.id).toBe('pocketsphinx');
    expect(reg.diarization.id).toBe('dsp-diarization');
    expect(reg.mt.id).toBe('apertium');
    expect(reg.tts.id).toBe('espeak');
    expect(reg.separation.id).toBe('dsp-separation');
  });

  it('answers capability queries', async () => {
    expect((await reg.asrFor('en'))?.id).toBe('pocketsphinx');
    expect(await reg.asrFor('fr')).toBeUndefined();
    expect((await reg.mtFor('en', 'es'))?.id).toBe('apertium');
    expect((await reg.mtFor('en', 'es-419'))?.id).toBe('apertium');
    expect(await reg.mtFor('en', 'ja')).toBeUndefined();
    expect((await reg.ttsFor('ja'))?.id).toBe('espeak');
    expect((await reg.ttsForVoice('espeak:es+f3', 'es'))?.id).toBe('espeak');
    // Every voice a regional variant offers is spoken (the batch bench found es-419's m1/m2 refused at the voiceover).
    const latin = await reg.voices('es-419');
    expect(latin.map((v) => v.id)).toContain('espeak:es-419+m2');
    for (const v of latin) expect((await reg.ttsForVoice(v.id, 'es-419'))?.id, v.id).toBe('espeak');
    expect((await reg.voices('es')).length).toBeGreaterThan(4);
    expect(reg.problems()).toEqual({});
  });

  it('language lists: transcription = ASR languages, translation = MT pair from them + a TTS voice', async () => {
    const lists = await reg.languageLists();
    expect(lists.transcription.map((l) => l.value)).toEqual(['en']);
    const tr = lists.translation.map((l) => l.value);
    expect(tr).toContain('es');
    expect(tr).toContain('es-419'); // espeak has a Latin American voice
    expect(tr).not.toContain('en');
    expect(tr).not.toContain('ja'); // a voice but no MT pair
    for (const list of [lists.transcription, lists.translation]) {
      expect(list.map((l) => l.id)).toEqual([...list.map((l) => l.id)].sort((a, b) => a - b));
      for (const l of list) {
        expect(Object.keys(l).sort()).toEqual(FIELDS);
        expect(v.safeParse(LanguageSchema, l).success).toBe(true);
      }
    }
    const es = lists.translation.find((l) => l.value === 'es')!;
    expect(es).toMatchObject({ label: 'Spanish', is_glossary_available: true, is_voice_preset_available: true, voice_clone: false, is_dialect: false });
    const es419 = lists.translation.find((l) => l.value === 'es-419')!;
    expect(es419).toMatchObject({ is_dialect: true, voice_preset_dialect: 'es-419' });
    // cached: the same promise result
    expect(await reg.languageLists()).toBe(lists);
  });

  it('prefers a registered adapter for what it can do and falls back to the built-ins per language', async () => {
    const r = createEngineRegistry();
    const fakeAsr: AsrEngine = { id: 'fake-asr', languages: () => ['en', 'fr', 'de'], transcribe: async () => [] };
    const fakeMt: MtEngine = { id: 'fake-mt', pairs: () => [['en', 'fr'], ['fr', 'en']], translate: async (t) => t };
    const fakeTts: TtsEngine = {
      id: 'fake-tts',
      supportsCloning: true,
      languages: () => ['fr'],
      voices: (lang) => (lang === 'fr' ? [{ id: 'fake:1', name: 'Marie', lang: 'fr', gender: 'female', engine: 'fake-tts' }] : []),
      synthesize: async () => ({ durationSec: 1 }),
    };
    r.register('asr', fakeAsr, { prefer: true });
    r.register('mt', fakeMt, { prefer: true });
    r.register('tts', fakeTts, { prefer: true });
    expect((await r.asrFor('fr'))?.id).toBe('fake-asr');
    expect((await r.asrFor('en'))?.id).toBe('fake-asr');
    expect((await r.mtFor('en', 'es'))?.id).toBe('apertium'); // fallback per pair
    expect((await r.mtFor('en', 'fr'))?.id).toBe('fake-mt');
    expect((await r.ttsFor('fr'))?.id).toBe('fake-tts');
    expect((await r.ttsFor('es'))?.id).toBe('espeak');
    const lists = await r.languageLists();
    expect(lists.transcription.map((l) => l.value)).toEqual(['en', 'fr', 'de']);
    const fr = lists.translation.find((l) => l.value === 'fr')!;
    expect(fr.voice_clone).toBe(true);
    expect(fr.is_glossary_available).toBe(false);
    expect(lists.translation.map((l) => l.value)).toEqual(expect.arrayContaining(['es', 'fr', 'en']));
    // configuration picks the preferred engine by id
    const c = createEngineRegistry({ asr: 'fake-asr' });
    c.register('asr', fakeAsr);
    expect(c.asr.id).toBe('fake-asr');
  });

  it('treats an engine whose discovery fails as unavailable', async () => {
    const r = createEngineRegistry();
    r.register('mt', { id: 'broken', init: async () => Promise.reject(new Error('no server')), pairs: () => [['en', 'de']], translate: async (t) => t }, { prefer: true });
    expect(await r.mtFor('en', 'de')).toBeUndefined();
    expect(r.problems()).toEqual({ broken: 'no server' });
  });
});

describe('language catalogue', () => {
  it('has ~40 languages with unique stable ids and sane metrics', () => {
    expect(LANGUAGE_CATALOGUE.length).toBeGreaterThanOrEqual(40);
    expect(new Set(LANGUAGE_CATALOGUE.map((l) => l.id)).size).toBe(LANGUAGE_CATALOGUE.length);
    expect(new Set(LANGUAGE_CATALOGUE.map((l) => l.value)).size).toBe(LANGUAGE_CATALOGUE.length);
    for (const l of LANGUAGE_CATALOGUE) {
      expect(l.speech_rate).toBeGreaterThan(3);
      expect(l.speech_rate).toBeLessThan(9);
      expect(l.mean_char_per_syllable).toBeGreaterThan(0.5);
      expect(l.mean_char_per_syllable).toBeLessThan(4);
      expect(l.country_code).toMatch(/^[A-Z]{2}$/);
    }
    expect(languageMeta('es-AR')?.value).toBe('es');
    expect(languageMeta('PT-br')?.value).toBe('pt-BR');
  });

  it('builds lists from capabilities (pure)', () => {
    const caps: EngineCapabilities = {
      asrLanguages: ['en', 'de'],
      mtPairs: [
        { src: 'en', dst: 'fr', glossary: true },
        { src: 'es', dst: 'it', glossary: true }, // source not transcribable: not reachable
        { src: 'de', dst: 'pt', glossary: false },
      ],
      tts: { fr: { dialects: ['fr-fr'], cloning: false }, it: { dialects: ['it'], cloning: true }, pt: { dialects: ['pt', 'pt-br'], cloning: true, cloningBeta: true } },
    };
    const { transcription, translation } = buildLanguageLists(caps);
    expect(transcription.map((l) => l.value)).toEqual(['en', 'de']);
    expect(transcription[0]!.is_glossary_available).toBe(true);
    // the regions the voices speak: pt-BR ('pt-br'), pt-PT ('pt'), fr-FR ('fr-fr'); not fr-CA
    expect(translation.map((l) => l.value)).toEqual(['fr', 'pt', 'pt-BR', 'pt-PT', 'fr-FR']);
    // no engine here has a Brazilian vocabulary: the option says so; Portugal is what plain 'pt' stands for
    expect(translation.find((l) => l.value === 'pt-BR')!.variant_note).toMatch(/Portuguese \(Brazil\)/);
    expect(translation.find((l) => l.value === 'pt-PT')!.variant_note).toBeNull();
    expect(translation.find((l) => l.value === 'pt')).toMatchObject({ voice_clone: true, voice_clone_beta: true, voice_clone_label: 'Voice clone (beta)', is_glossary_available: false });
    expect(translation.find((l) => l.value === 'fr-BE')).toBeUndefined(); // no Belgian voice
  });
});
