// The configured adapters inside the engine registry: the settings' language lists follow the
// configuration (ASR_ENGINE=openai brings Japanese), per-language fallback to the built-in engines,
// capability flags, and a transcribe -> translate -> synthesise chain on the fake servers.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfiguredRegistry } from '../../../../server/engines/adapters';
import { readWavInfo } from '../../../../server/media/wav';
import { FakeDeepL } from '../../../fakes/deepl';
import { FakeElevenLabs } from '../../../fakes/elevenlabs';
import { FakeOpenAi } from '../../../fakes/openai';
import { recordingSleep, tempDir, writeTestWav } from '../../../fakes/util';

const OPENAI_KEY = 'sk-registry-openai-key-000111';
const DEEPL_KEY = 'registry-deepl-key:fx';
const XI_KEY = 'registry-xi-key-222333';
let openai: FakeOpenAi;
let deepl: FakeDeepL;
let eleven: FakeElevenLabs;
const http = { sleep: recordingSleep().sleep, log: () => {}, retry: { maxAttempts: 2 }, timeoutMs: 5000 };

beforeAll(async () => {
  openai = await new FakeOpenAi({ apiKey: OPENAI_KEY }).start();
  deepl = await new FakeDeepL({ apiKey: DEEPL_KEY }).start();
  eleven = await new FakeElevenLabs({ apiKey: XI_KEY }).start();
});
afterAll(async () => {
  await Promise.all([openai.close(), deepl.close(), eleven.close()]);
});

const values = (l: Array<{ value: string }>) => l.map((x) => x.value);

describe('language lists follow the configured engines', () => {
  it('ASR_ENGINE=builtin: Japanese is not offered for transcription', async () => {
    const { registry } = createConfiguredRegistry({ ASR_ENGINE: 'builtin' }, { http });
    const lists = await registry.languageLists();
    expect(values(lists.transcription)).not.toContain('ja');
    expect(await registry.asrFor('ja')).toBeUndefined();
  });

  it('ASR_ENGINE=openai: Japanese appears as a transcription language', async () => {
    const { registry } = createConfiguredRegistry({ ASR_ENGINE: 'openai', OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: openai.url }, { http });
    const lists = await registry.languageLists();
    expect(values(lists.transcription)).toContain('ja');
    expect(values(lists.transcription)).toContain('en');
    expect((await registry.asrFor('ja'))?.id).toBe('openai');
    expect(registry.asr.id).toBe('openai');
  });

  it('a language the chosen engine lacks falls back to the built-in engine', async () => {
    const { registry } = createConfiguredRegistry(
      { MT_ENGINE: 'deepl', DEEPL_API_KEY: DEEPL_KEY, DEEPL_BASE_URL: deepl.url, TTS_ENGINE: 'elevenlabs', ELEVENLABS_API_KEY: XI_KEY, ELEVENLABS_BASE_URL: eleven.url },
      { http },
    );
    expect((await registry.mtFor('en', 'de'))?.id).toBe('deepl');
    // DeepL has no Catalan; apertium's eng-cat pair serves it.
    expect((await registry.mtFor('en', 'ca'))?.id).toBe('apertium');
    expect((await registry.ttsFor('es'))?.id).toBe('elevenlabs');
    // ElevenLabs does not speak Persian; espeak-ng does.
    expect((await registry.ttsFor('fa'))?.id).toBe('espeak');
  });

  it('flags: voice_clone with ElevenLabs, is_glossary_available with DeepL', async () => {
    const builtin = await createConfiguredRegistry({}, { http }).registry.languageLists();
    const { registry } = createConfiguredRegistry(
      { MT_ENGINE: 'deepl', DEEPL_API_KEY: DEEPL_KEY, DEEPL_BASE_URL: deepl.url, TTS_ENGINE: 'elevenlabs', ELEVENLABS_API_KEY: XI_KEY, ELEVENLABS_BASE_URL: eleven.url },
      { http },
    );
    const lists = await registry.languageLists();
    const de = lists.translation.find((l) => l.value === 'de');
    expect(de).toMatchObject({ voice_clone: true, is_glossary_available: true, is_voice_preset_available: true });
    // Catalan: apertium translates it and espeak-ng speaks it; espeak cannot clone.
    expect(lists.translation.find((l) => l.value === 'ca')).toMatchObject({ voice_clone: false });
    expect(builtin.translation.every((l) => l.voice_clone === false)).toBe(true);
  });

  it('a configuration error stops start-up with a readable message', () => {
    expect(() => createConfiguredRegistry({ TTS_ENGINE: 'elevenlabs' })).toThrow('TTS_ENGINE=elevenlabs needs ELEVENLABS_API_KEY');
  });
});

describe('every stage on the fake servers', () => {
  it('transcribes with OpenAI, translates with DeepL and the glossary, speaks with ElevenLabs', async () => {
    openai.reset();
    deepl.reset();
    eleven.reset();
    const dir = tempDir('chain-');
    const { registry, adapters } = createConfiguredRegistry(
      {
        ASR_ENGINE: 'openai',
        OPENAI_API_KEY: OPENAI_KEY,
        OPENAI_BASE_URL: openai.url,
        MT_ENGINE: 'deepl',
        DEEPL_API_KEY: DEEPL_KEY,
        DEEPL_BASE_URL: deepl.url,
        TTS_ENGINE: 'elevenlabs',
        ELEVENLABS_API_KEY: XI_KEY,
        ELEVENLABS_BASE_URL: eleven.url,
        LLM_ENGINE: 'openai',
      },
      { http },
    );
    const wav = writeTestWav(dir, 8);
    const asr = (await registry.asrFor('en'))!;
    const segments = await asr.transcribe(wav, [{ start: 0.5, end: 7.5 }], 'en');
    expect(segments.length).toBeGreaterThan(0);

    const mt = (await registry.mtFor('en', 'de'))!;
    const texts = segments.map((s) => s.text);
    const translated = await mt.translate(texts, 'en', 'de', { glossary: [{ source: 'channel', target: 'Kanal' }] });
    expect(translated[0]).toContain('Kanal');
    expect(deepl.glossaries.size).toBe(1);

    const tts = (await registry.ttsFor('de'))!;
    const voice = (await registry.voices('de'))[0]!;
    expect(voice.engine).toBe('elevenlabs');
    const out = join(dir, 'seg0.wav');
    const { durationSec } = await tts.synthesize({ text: translated[0]!, lang: 'de', voiceId: voice.id, rate: 1, outPath: out });
    expect(existsSync(out)).toBe(true);
    expect(readWavInfo(out).durationSec).toBeCloseTo(durationSec, 3);

    const rewritten = await adapters.rewriter!.rewrite({ text: translated[0]!, lang: 'de', maxChars: 20 });
    expect(rewritten.length).toBeLessThanOrEqual(20);

    expect([...openai.violations(), ...deepl.violations(), ...eleven.violations()]).toEqual([]);
  });
});
