// loadConfig validates the model engine configuration at start-up (config.engines): the built-in defaults
// need nothing, a bad setting stops start-up with a message naming the variable and never the key.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/config';

const KEY = 'sk-config-test-SECRET-0123456789';

function errorOf(env: Record<string, string>): Error {
  try {
    loadConfig(env);
  } catch (e) {
    return e as Error;
  }
  throw new Error(`loadConfig accepted ${Object.keys(env).join(', ')}`);
}

describe('config.engines', () => {
  it('defaults to the built-in engines with no AI rewrite, from an empty environment', () => {
    const c = loadConfig({});
    expect(c.engines).toMatchObject({ asr: 'builtin', mt: 'builtin', tts: 'builtin', llm: 'none', registry: {} });
  });

  it('reads the configured engines; printing the config never shows a key', () => {
    const c = loadConfig({
      ASR_ENGINE: 'openai', MT_ENGINE: 'deepl', TTS_ENGINE: 'elevenlabs', LLM_ENGINE: 'openai',
      OPENAI_API_KEY: KEY, DEEPL_API_KEY: `${KEY}:fx`, ELEVENLABS_API_KEY: KEY,
    });
    expect(c.engines.registry).toEqual({ asr: 'openai', mt: 'deepl', tts: 'elevenlabs' });
    expect(c.engines.openai.chat.apiKey).toBe(KEY);
    expect(JSON.stringify(c)).not.toContain(KEY);
    expect(inspect(c, { depth: 10 })).not.toContain(KEY);
    expect(JSON.stringify(c.engines)).toContain('openai (whisper-1 at https://api.openai.com)');
  });

  it('a bad engine setting stops start-up with a ConfigError naming the variable', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ MT_ENGINE: 'deepl' }, 'MT_ENGINE=deepl needs DEEPL_API_KEY'],
      [{ TTS_ENGINE: 'elevenlabs' }, 'TTS_ENGINE=elevenlabs needs ELEVENLABS_API_KEY'],
      [{ LLM_ENGINE: 'openai' }, 'LLM_ENGINE=openai needs OPENAI_API_KEY (or OPENAI_CHAT_BASE_URL/OPENAI_BASE_URL pointing at a self-hosted OpenAI-compatible server)'],
      [{ ASR_ENGINE: 'whisper' }, "Invalid engine configuration: ASR_ENGINE must be one of builtin, openai (got 'whisper')"],
      [{ ASR_ENGINE: 'openai', OPENAI_API_KEY: KEY, OPENAI_BASE_URL: `https://user:${KEY}@proxy.example/v1` }, 'OPENAI_BASE_URL must not contain credentials (use the API key variable)'],
      [{ ENGINE_HTTP_MAX_ATTEMPTS: '0' }, 'Invalid engine configuration: ENGINE_HTTP_MAX_ATTEMPTS must be a whole number from 1 to 10'],
    ];
    for (const [env, msg] of cases) {
      const e = errorOf(env);
      expect(e).toBeInstanceOf(ConfigError);
      expect(e.message).toBe(msg);
      expect(e.message).not.toContain(KEY);
    }
  });

  it('a self-hosted OpenAI-compatible server needs no key', () => {
    const c = loadConfig({ ASR_ENGINE: 'openai', OPENAI_ASR_BASE_URL: 'http://whisper-host:8000' });
    expect(c.engines.openai.asr).toMatchObject({ baseUrl: 'http://whisper-host:8000/v1', apiKey: null, model: 'whisper-1' });
  });
});
