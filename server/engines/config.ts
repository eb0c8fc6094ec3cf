// Engine configuration from the environment, validated with valibot at start-up.
//
//   ASR_ENGINE  builtin | openai                (default builtin)
//   MT_ENGINE   builtin | openai | deepl        (default builtin)
//   TTS_ENGINE  builtin | openai | elevenlabs   (default builtin)
//   LLM_ENGINE  openai | none                   (default none; the AI rewrite tool)
//   OPENAI_BASE_URL (default https://api.openai.com/v1), OPENAI_API_KEY,
//   OPENAI_ASR_MODEL (whisper-1), OPENAI_TTS_MODEL (tts-1), OPENAI_CHAT_MODEL (gpt-4o-mini)
//   DEEPL_API_KEY, DEEPL_BASE_URL (default from the key: api-free.deepl.com for ':fx' keys)
//   ELEVENLABS_API_KEY, ELEVENLABS_BASE_URL (default https://api.elevenlabs.io)
// Optional refinements (for mixing servers, e.g. faster-whisper + Kokoro + Ollama):
//   OPENAI_{ASR,TTS,CHAT}_BASE_URL and OPENAI_{ASR,TTS,CHAT}_API_KEY override the shared ones per kind;
//   OPENAI_TTS_VOICES  comma list of voices: `af_heart,jm_kumo` (Kokoro names carry language and
//                      gender) or `id:lang:gender[:dialect]`, lang '*' for a multilingual voice;
//   OPENAI_ASR_LANGUAGES, OPENAI_TTS_LANGUAGES, OPENAI_CHAT_LANGUAGES  comma lists of ISO 639-1 codes;
//   DEEPL_FORMALITY    default | more | less | prefer_more | prefer_less;
//   ELEVENLABS_MODEL   (eleven_multilingual_v2), ELEVENLABS_OUTPUT_FORMAT (pcm_24000);
//   ENGINE_HTTP_TIMEOUT_MS (120000), ENGINE_HTTP_MAX_ATTEMPTS (4).
// Lip-sync:
//   LIPSYNC_ENGINE  builtin | sync            (default builtin: the offline mouth warp)
//   SYNC_API_KEY (needed for sync), SYNC_BASE_URL (https://api.sync.so), SYNC_MODEL (lipsync-2),
//   SYNC_POLL_INTERVAL_MS (5000), SYNC_TIMEOUT_SEC (1800).
// Errors name the variable and never print a key or a URL (URLs may carry credentials).
import { inspect } from 'node:util';
import * as v from 'valibot';
import { kokoroVoiceInfo } from './adapters/capabilities';
import type { DeepLFormality } from './adapters/deepl';
import type { ElevenLabsPcmFormat } from './adapters/elevenlabs';
import type { OpenAiVoiceSpec } from './adapters/openai';
import type { EngineRegistryConfig } from './registry';

export class EngineConfigError extends Error {
  override readonly name = 'EngineConfigError';
}

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

const Str = v.pipe(v.optional(v.string(), ''), v.transform((s) => s.trim()));
const choice = <T extends string>(name: string, options: readonly T[], def: T) =>
  v.pipe(
    v.optional(v.string(), def),
    v.transform((s) => (s.trim() === '' ? def : s.trim().toLowerCase())),
    v.check((s) => (options as readonly string[]).includes(s), (i) => `${name} must be one of ${options.join(', ')} (got '${String(i.input)}')`),
    v.transform((s) => s as T),
  );
const int = (name: string, def: number, min: number, max: number) =>
  v.pipe(
    v.optional(v.string(), ''),
    v.transform((s) => (s.trim() === '' ? def : Number(s.trim()))),
    v.check((n) => Number.isInteger(n) && n >= min && n <= max, `${name} must be a whole number from ${min} to ${max}`),
  );

const EnvSchema = v.object({
  ASR_ENGINE: choice('ASR_ENGINE', ['builtin', 'openai'] as const, 'builtin'),
  MT_ENGINE: choice('MT_ENGINE', ['builtin', 'openai', 'deepl'] as const, 'builtin'),
  TTS_ENGINE: choice('TTS_ENGINE', ['builtin', 'openai', 'elevenlabs'] as const, 'builtin'),
  LLM_ENGINE: choice('LLM_ENGINE', ['openai', 'none'] as const, 'none'),
  OPENAI_BASE_URL: Str,
  OPENAI_API_KEY: Str,
  OPENAI_ASR_MODEL: Str,
  OPENAI_TTS_MODEL: Str,
  OPENAI_CHAT_MODEL: Str,
  OPENAI_ASR_BASE_URL: Str,
  OPENAI_TTS_BASE_URL: Str,
  OPENAI_CHAT_BASE_URL: Str,
  OPENAI_ASR_API_KEY: Str,
  OPENAI_TTS_API_KEY: Str,
  OPENAI_CHAT_API_KEY: Str,
  OPENAI_TTS_VOICES: Str,
  OPENAI_ASR_LANGUAGES: Str,
  OPENAI_TTS_LANGUAGES: Str,
  OPENAI_CHAT_LANGUAGES: Str,
  DEEPL_API_KEY: Str,
  DEEPL_BASE_URL: Str,
  DEEPL_FORMALITY: choice('DEEPL_FORMALITY', ['default', 'more', 'less', 'prefer_more', 'prefer_less'] as const, 'default'),
  ELEVENLABS_API_KEY: Str,
  ELEVENLABS_BASE_URL: Str,
  ELEVENLABS_MODEL: Str,
  ELEVENLABS_OUTPUT_FORMAT: choice('ELEVENLABS_OUTPUT_FORMAT', ['pcm_16000', 'pcm_22050', 'pcm_24000', 'pcm_44100'] as const, 'pcm_24000'),
  LIPSYNC_ENGINE: choice('LIPSYNC_ENGINE', ['builtin', 'sync'] as const, 'builtin'),
  SYNC_API_KEY: Str,
  SYNC_BASE_URL: Str,
  SYNC_MODEL: Str,
  SYNC_POLL_INTERVAL_MS: int('SYNC_POLL_INTERVAL_MS', 5000, 10, 600_000),
  SYNC_TIMEOUT_SEC: int('SYNC_TIMEOUT_SEC', 1800, 10, 86_400),
  ENGINE_HTTP_TIMEOUT_MS: int('ENGINE_HTTP_TIMEOUT_MS', 120_000, 1000, 3_600_000),
  ENGINE_HTTP_MAX_ATTEMPTS: int('ENGINE_HTTP_MAX_ATTEMPTS', 4, 1, 10),
});

export interface OpenAiKindConfig {
  baseUrl: string;
  apiKey: string | null;
  model: string;
  languages?: string[];
}

export interface EngineConfig {
  asr: 'builtin' | 'openai';
  mt: 'builtin' | 'openai' | 'deepl';
  tts: 'builtin' | 'openai' | 'elevenlabs';
  llm: 'openai' | 'none';
  lipsync: 'builtin' | 'sync';
  openai: {
    asr: OpenAiKindConfig;
    tts: OpenAiKindConfig & { voices?: OpenAiVoiceSpec[] };
    chat: OpenAiKindConfig;
  };
  deepl: { apiKey: string; baseUrl: string | null; formality: DeepLFormality } | null;
  elevenlabs: { apiKey: string; baseUrl: string; modelId: string; outputFormat: ElevenLabsPcmFormat } | null;
  sync: { apiKey: string; baseUrl: string; model: string; pollIntervalMs: number; timeoutMs: number } | null;
  http: { timeoutMs: number; maxAttempts: number };
  /** Preferred engine id per kind, for createEngineRegistry(). */
  registry: EngineRegistryConfig;
}

/** A URL reduced to scheme and host, for logs. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(invalid URL)';
  }
}

function httpUrl(name: string, raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new EngineConfigError(`${name} must be an http(s) URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new EngineConfigError(`${name} must be an http(s) URL`);
  if (u.username || u.password) throw new EngineConfigError(`${name} must not contain credentials (use the API key variable)`);
  return u;
}

/** OpenAI-style base URL: includes the API version; a bare host gets /v1. */
function openAiBase(name: string, raw: string): string {
  const u = httpUrl(name, raw);
  let path = u.pathname.replace(/\/+$/, '');
  if (path === '') path = '/v1';
  return `${u.protocol}//${u.host}${path}`;
}

/** Service root without a trailing version segment (the adapters add /v1 or /v2). */
function serviceRoot(name: string, raw: string, version: string): string {
  const u = httpUrl(name, raw);
  const path = u.pathname.replace(/\/+$/, '').replace(new RegExp(`/${version}$`), '');
  return `${u.protocol}//${u.host}${path}`;
}

function langList(name: string, raw: string): string[] | undefined {
  if (!raw) return undefined;
  const list = raw.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const l of list) if (!/^[a-z]{2,3}$/.test(l)) throw new EngineConfigError(`${name}: '${l}' is not an ISO 639-1 language code`);
  return list;
}

/** OPENAI_TTS_VOICES: `af_heart,jm_kumo` or `id:lang:gender[:dialect]` entries. */
export function parseVoiceList(raw: string): OpenAiVoiceSpec[] {
  const out: OpenAiVoiceSpec[] = [];
  for (const entry of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const parts = entry.split(':').map((s) => s.trim());
    const id = parts[0]!;
    if (!/^[\w.+-]+$/.test(id)) throw new EngineConfigError(`OPENAI_TTS_VOICES: '${id}' is not a voice name`);
    if (parts.length === 1) {
      const k = kokoroVoiceInfo(id);
      if (!k) {
        throw new EngineConfigError(
          `OPENAI_TTS_VOICES: give '${id}' as ${id}:<lang>:<male|female> (only Kokoro names like af_heart carry their language and gender)`,
        );
      }
      out.push({ id, lang: k.lang, gender: k.gender, ...(k.dialect ? { dialect: k.dialect } : {}) });
      continue;
    }
    const [, lang, gender, dialect] = parts;
    if (!lang || (lang !== '*' && !/^[a-z]{2,3}$/.test(lang))) throw new EngineConfigError(`OPENAI_TTS_VOICES: '${entry}' needs a language code or '*'`);
    if (gender !== 'male' && gender !== 'female') throw new EngineConfigError(`OPENAI_TTS_VOICES: '${entry}' needs male or female`);
    out.push({ id, lang, gender, ...(dialect ? { dialect: dialect.toLowerCase() } : {}) });
  }
  if (!out.length) throw new EngineConfigError('OPENAI_TTS_VOICES is set but lists no voice');
  return out;
}

/** Reads and checks the engine configuration; throws EngineConfigError with a readable message. */
export function loadEngineConfig(env: Record<string, string | undefined> = process.env): EngineConfig {
  const parsed = v.safeParse(EnvSchema, env);
  if (!parsed.success) {
    // Messages only: never the received value of a key or URL.
    throw new EngineConfigError(`Invalid engine configuration: ${parsed.issues.map((i) => i.message).join('; ')}`);
  }
  const e = parsed.output;

  const sharedBase = e.OPENAI_BASE_URL ? openAiBase('OPENAI_BASE_URL', e.OPENAI_BASE_URL) : OPENAI_DEFAULT_BASE_URL;
  const kind = (k: 'ASR' | 'TTS' | 'CHAT', model: string, defModel: string, langs: string): OpenAiKindConfig => {
    const own = e[`OPENAI_${k}_BASE_URL`];
    return {
      baseUrl: own ? openAiBase(`OPENAI_${k}_BASE_URL`, own) : sharedBase,
      apiKey: e[`OPENAI_${k}_API_KEY`] || e.OPENAI_API_KEY || null,
      model: model || defModel,
      ...(langs ? { languages: langList(`OPENAI_${k}_LANGUAGES`, langs) } : {}),
    };
  };
  const openai: EngineConfig['openai'] = {
    asr: kind('ASR', e.OPENAI_ASR_MODEL, 'whisper-1', e.OPENAI_ASR_LANGUAGES),
    tts: {
      ...kind('TTS', e.OPENAI_TTS_MODEL, 'tts-1', e.OPENAI_TTS_LANGUAGES),
      ...(e.OPENAI_TTS_VOICES ? { voices: parseVoiceList(e.OPENAI_TTS_VOICES) } : {}),
    },
    chat: kind('CHAT', e.OPENAI_CHAT_MODEL, 'gpt-4o-mini', e.OPENAI_CHAT_LANGUAGES),
  };

  // OpenAI itself needs a key; a self-hosted server at another address may not.
  const needKey = (setting: string, c: OpenAiKindConfig, urlVar: string) => {
    if (!c.apiKey && new URL(c.baseUrl).host === 'api.openai.com') {
      throw new EngineConfigError(`${setting} needs OPENAI_API_KEY (or ${urlVar} pointing at a self-hosted OpenAI-compatible server)`);
    }
  };
  if (e.ASR_ENGINE === 'openai') needKey('ASR_ENGINE=openai', openai.asr, 'OPENAI_ASR_BASE_URL/OPENAI_BASE_URL');
  if (e.TTS_ENGINE === 'openai') needKey('TTS_ENGINE=openai', openai.tts, 'OPENAI_TTS_BASE_URL/OPENAI_BASE_URL');
  if (e.MT_ENGINE === 'openai') needKey('MT_ENGINE=openai', openai.chat, 'OPENAI_CHAT_BASE_URL/OPENAI_BASE_URL');
  if (e.LLM_ENGINE === 'openai') needKey('LLM_ENGINE=openai', openai.chat, 'OPENAI_CHAT_BASE_URL/OPENAI_BASE_URL');

  if (e.MT_ENGINE === 'deepl' && !e.DEEPL_API_KEY) throw new EngineConfigError('MT_ENGINE=deepl needs DEEPL_API_KEY');
  if (e.TTS_ENGINE === 'elevenlabs' && !e.ELEVENLABS_API_KEY) throw new EngineConfigError('TTS_ENGINE=elevenlabs needs ELEVENLABS_API_KEY');
  if (e.LIPSYNC_ENGINE === 'sync' && !e.SYNC_API_KEY) throw new EngineConfigError('LIPSYNC_ENGINE=sync needs SYNC_API_KEY');

  const deepl = e.DEEPL_API_KEY
    ? { apiKey: e.DEEPL_API_KEY, baseUrl: e.DEEPL_BASE_URL ? serviceRoot('DEEPL_BASE_URL', e.DEEPL_BASE_URL, 'v2') : null, formality: e.DEEPL_FORMALITY }
    : null;
  const elevenlabs = e.ELEVENLABS_API_KEY
    ? {
        apiKey: e.ELEVENLABS_API_KEY,
        baseUrl: e.ELEVENLABS_BASE_URL ? serviceRoot('ELEVENLABS_BASE_URL', e.ELEVENLABS_BASE_URL, 'v1') : 'https://api.elevenlabs.io',
        modelId: e.ELEVENLABS_MODEL || 'eleven_multilingual_v2',
        outputFormat: e.ELEVENLABS_OUTPUT_FORMAT,
      }
    : null;

  const sync = e.SYNC_API_KEY
    ? {
        apiKey: e.SYNC_API_KEY,
        baseUrl: e.SYNC_BASE_URL ? serviceRoot('SYNC_BASE_URL', e.SYNC_BASE_URL, 'v2') : 'https://api.sync.so',
        model: e.SYNC_MODEL || 'lipsync-2',
        pollIntervalMs: e.SYNC_POLL_INTERVAL_MS,
        timeoutMs: e.SYNC_TIMEOUT_SEC * 1000,
      }
    : null;

  const registry: EngineRegistryConfig = {};
  if (e.ASR_ENGINE !== 'builtin') registry.asr = e.ASR_ENGINE;
  if (e.MT_ENGINE !== 'builtin') registry.mt = e.MT_ENGINE;
  if (e.TTS_ENGINE !== 'builtin') registry.tts = e.TTS_ENGINE;
  if (e.LIPSYNC_ENGINE !== 'builtin') registry.lipsync = e.LIPSYNC_ENGINE;

  const cfg: EngineConfig = {
    asr: e.ASR_ENGINE,
    mt: e.MT_ENGINE,
    tts: e.TTS_ENGINE,
    llm: e.LLM_ENGINE,
    lipsync: e.LIPSYNC_ENGINE,
    openai,
    deepl,
    elevenlabs,
    sync,
    http: { timeoutMs: e.ENGINE_HTTP_TIMEOUT_MS, maxAttempts: e.ENGINE_HTTP_MAX_ATTEMPTS },
    registry,
  };
  // Printing or serialising the configuration shows the redacted summary, never the keys.
  Object.defineProperty(cfg, 'toJSON', { value: () => describeEngineConfig(cfg), enumerable: false });
  Object.defineProperty(cfg, inspect.custom, { value: () => `EngineConfig ${JSON.stringify(describeEngineConfig(cfg))}`, enumerable: false });
  return cfg;
}

/** A summary safe for logs and admin pages: engines, models and hosts, never keys or URL credentials. */
export function describeEngineConfig(c: EngineConfig): Record<string, string> {
  const oa = (k: OpenAiKindConfig) => `openai (${k.model} at ${displayUrl(k.baseUrl)})`;
  return {
    asr: c.asr === 'openai' ? oa(c.openai.asr) : 'builtin',
    mt: c.mt === 'openai' ? oa(c.openai.chat) : c.mt === 'deepl' ? `deepl (${c.deepl?.baseUrl ? displayUrl(c.deepl.baseUrl) : 'default endpoint'})` : 'builtin',
    tts:
      c.tts === 'openai'
        ? oa(c.openai.tts)
        : c.tts === 'elevenlabs'
          ? `elevenlabs (${c.elevenlabs!.modelId} at ${displayUrl(c.elevenlabs!.baseUrl)})`
          : 'builtin',
    llm: c.llm === 'openai' ? oa(c.openai.chat) : 'none',
    lipsync: c.lipsync === 'sync' ? `sync (${c.sync!.model} at ${displayUrl(c.sync!.baseUrl)})` : 'builtin',
  };
}
