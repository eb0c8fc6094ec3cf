// Engine configuration from the environment: defaults, validation with clear messages, URL
// normalisation, per-kind overrides, and keys never printed.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { EngineConfigError, describeEngineConfig, loadEngineConfig, parseVoiceList } from '../../../../server/engines/config';

const KEY = 'sk-config-secret-key-abcdef123456';

function errorOf(env: Record<string, string>): EngineConfigError {
  try {
    loadEngineConfig(env);
  } catch (e) {
    expect(e).toBeInstanceOf(EngineConfigError);
    return e as EngineConfigError;
  }
  throw new Error('expected loadEngineConfig to throw');
}

describe('loadEngineConfig', () => {
  it('defaults to the built-in engines and no LLM', () => {
    const c = loadEngineConfig({});
    expect([c.asr, c.mt, c.tts, c.llm]).toEqual(['builtin', 'builtin', 'builtin', 'none']);
    expect(c.registry).toEqual({});
    expect(c.openai.asr).toEqual({ baseUrl: 'https://api.openai.com/v1', apiKey: null, model: 'whisper-1' });
    expect(c.openai.tts.model).toBe('tts-1');
    expect(c.openai.chat.model).toBe('gpt-4o-mini');
    expect(c.deepl).toBeNull();
    expect(c.elevenlabs).toBeNull();
    expect(c.http).toEqual({ timeoutMs: 120_000, maxAttempts: 4 });
  });

  it('selects OpenAI engines with a key and prefers them in the registry', () => {
    const c = loadEngineConfig({ ASR_ENGINE: 'openai', MT_ENGINE: 'openai', TTS_ENGINE: 'OpenAI', LLM_ENGINE: 'openai', OPENAI_API_KEY: KEY });
    expect(c.registry).toEqual({ asr: 'openai', mt: 'openai', tts: 'openai' });
    expect(c.openai.chat.apiKey).toBe(KEY);
  });

  it('OpenAI without a key is refused with the variable named, a self-hosted server without one is fine', () => {
    expect(errorOf({ ASR_ENGINE: 'openai' }).message).toBe(
      'ASR_ENGINE=openai needs OPENAI_API_KEY (or OPENAI_ASR_BASE_URL/OPENAI_BASE_URL pointing at a self-hosted OpenAI-compatible server)',
    );
    expect(errorOf({ LLM_ENGINE: 'openai' }).message).toContain('LLM_ENGINE=openai needs OPENAI_API_KEY');
    const c = loadEngineConfig({ ASR_ENGINE: 'openai', OPENAI_BASE_URL: 'http://whisper:8000', OPENAI_ASR_MODEL: 'Systran/faster-whisper-large-v3' });
    expect(c.openai.asr).toEqual({ baseUrl: 'http://whisper:8000/v1', apiKey: null, model: 'Systran/faster-whisper-large-v3' });
  });

  it('DeepL and ElevenLabs need their keys', () => {
    expect(errorOf({ MT_ENGINE: 'deepl' }).message).toBe('MT_ENGINE=deepl needs DEEPL_API_KEY');
    expect(errorOf({ TTS_ENGINE: 'elevenlabs' }).message).toBe('TTS_ENGINE=elevenlabs needs ELEVENLABS_API_KEY');
    const c = loadEngineConfig({
      MT_ENGINE: 'deepl',
      DEEPL_API_KEY: 'k:fx',
      DEEPL_BASE_URL: 'https://api-free.deepl.com/v2/',
      DEEPL_FORMALITY: 'prefer_less',
      TTS_ENGINE: 'elevenlabs',
      ELEVENLABS_API_KEY: 'xi',
      ELEVENLABS_BASE_URL: 'https://api.elevenlabs.io/v1',
    });
    expect(c.deepl).toEqual({ apiKey: 'k:fx', baseUrl: 'https://api-free.deepl.com', formality: 'prefer_less' });
    expect(c.elevenlabs).toEqual({ apiKey: 'xi', baseUrl: 'https://api.elevenlabs.io', modelId: 'eleven_multilingual_v2', outputFormat: 'pcm_24000' });
  });

  it('unknown engine names and bad numbers are refused with the allowed values', () => {
    expect(errorOf({ TTS_ENGINE: 'deepl' }).message).toContain("TTS_ENGINE must be one of builtin, openai, elevenlabs (got 'deepl')");
    expect(errorOf({ ASR_ENGINE: 'whisper' }).message).toContain('ASR_ENGINE must be one of builtin, openai');
    expect(errorOf({ ENGINE_HTTP_MAX_ATTEMPTS: '0' }).message).toContain('ENGINE_HTTP_MAX_ATTEMPTS must be a whole number from 1 to 10');
    expect(errorOf({ ELEVENLABS_OUTPUT_FORMAT: 'mp3_44100_128' }).message).toContain('ELEVENLABS_OUTPUT_FORMAT must be one of');
  });

  it('bad URLs are refused without echoing them (they may carry credentials)', () => {
    const e1 = errorOf({ OPENAI_BASE_URL: 'ftp://host/v1' });
    expect(e1.message).toBe('OPENAI_BASE_URL must be an http(s) URL');
    const e2 = errorOf({ ELEVENLABS_API_KEY: 'x', ELEVENLABS_BASE_URL: `https://user:${KEY}@proxy.example` });
    expect(e2.message).toBe('ELEVENLABS_BASE_URL must not contain credentials (use the API key variable)');
    expect(e2.message).not.toContain(KEY);
    expect(errorOf({ DEEPL_API_KEY: 'k', DEEPL_BASE_URL: 'not a url' }).message).toBe('DEEPL_BASE_URL must be an http(s) URL');
  });

  it('per-kind servers: faster-whisper for ASR, Kokoro for TTS, Ollama for MT', () => {
    const c = loadEngineConfig({
      ASR_ENGINE: 'openai',
      TTS_ENGINE: 'openai',
      MT_ENGINE: 'openai',
      OPENAI_ASR_BASE_URL: 'http://whisper:8000/v1',
      OPENAI_TTS_BASE_URL: 'http://kokoro:8880/v1',
      OPENAI_TTS_MODEL: 'kokoro',
      OPENAI_TTS_VOICES: 'af_heart, bm_george, jf_alpha, narrator:*:male',
      OPENAI_CHAT_BASE_URL: 'http://ollama:11434',
      OPENAI_CHAT_MODEL: 'qwen2.5:7b',
      OPENAI_CHAT_LANGUAGES: 'en,es,de',
    });
    expect(c.openai.asr.baseUrl).toBe('http://whisper:8000/v1');
    expect(c.openai.tts.baseUrl).toBe('http://kokoro:8880/v1');
    expect(c.openai.tts.voices).toEqual([
      { id: 'af_heart', lang: 'en', gender: 'female', dialect: 'en-us' },
      { id: 'bm_george', lang: 'en', gender: 'male', dialect: 'en-gb' },
      { id: 'jf_alpha', lang: 'ja', gender: 'female' },
      { id: 'narrator', lang: '*', gender: 'male' },
    ]);
    expect(c.openai.chat).toEqual({ baseUrl: 'http://ollama:11434/v1', apiKey: null, model: 'qwen2.5:7b', languages: ['en', 'es', 'de'] });
  });

  it('voice lists and language lists are checked', () => {
    expect(() => parseVoiceList('alloy')).toThrow("give 'alloy' as alloy:<lang>:<male|female>");
    expect(() => parseVoiceList('x:en:robot')).toThrow('needs male or female');
    expect(errorOf({ OPENAI_ASR_LANGUAGES: 'en,japanese' }).message).toContain("'japanese' is not an ISO 639-1 language code");
  });

  it('printing or serialising the configuration never shows a key', () => {
    const c = loadEngineConfig({
      ASR_ENGINE: 'openai',
      OPENAI_API_KEY: KEY,
      MT_ENGINE: 'deepl',
      DEEPL_API_KEY: `${KEY}-deepl`,
      TTS_ENGINE: 'elevenlabs',
      ELEVENLABS_API_KEY: `${KEY}-xi`,
    });
    const shown = [JSON.stringify(c), inspect(c), String(JSON.stringify(describeEngineConfig(c)))].join('\n');
    expect(shown).not.toContain(KEY);
    expect(describeEngineConfig(c)).toEqual({
      asr: 'openai (whisper-1 at https://api.openai.com)',
      mt: 'deepl (default endpoint)',
      tts: 'elevenlabs (eleven_multilingual_v2 at https://api.elevenlabs.io)',
      llm: 'none',
      lipsync: 'builtin',
    });
  });
});
