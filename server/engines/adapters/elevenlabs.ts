// ElevenLabs adapter (text-to-speech and instant voice cloning).
//   POST   /v1/text-to-speech/{voice_id}?output_format=pcm_24000
//          {text, model_id, voice_settings:{stability, similarity_boost, speed?}, language_code?}
//          -> raw 16-bit PCM, wrapped here into a WAV and written atomically
//   GET    /v1/voices                      -> {voices:[{voice_id, name, category, labels:{gender,...}}]}
//   POST   /v1/voices/add                  multipart: name, files (one part per sample), description?,
//          labels?, remove_background_noise? -> {voice_id, requires_verification}
//   DELETE /v1/voices/{voice_id}
// Auth: `xi-api-key: <key>`. The spec's voice presets name the settings: stability is shown as
// "expressiveness", similarity_boost as "accent".
import { readFileSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';
import * as v from 'valibot';
import { EngineError, type EngineCallOptions, type TtsEngine, type Voice } from '../types';
import { pcm16ToWav, writeFileAtomic } from './audio';
import { ELEVENLABS_PREMADE_VOICES, elevenLabsLanguages, elevenLabsTakesLanguageCode } from './capabilities';
import { EngineResponseError, abortError } from './errors';
import { EngineHttpClient } from './http';
import type { SharedHttpOptions } from './openai';

export const ENGINE = 'elevenlabs';

export type ElevenLabsPcmFormat = 'pcm_16000' | 'pcm_22050' | 'pcm_24000' | 'pcm_44100';

export interface VoiceSettings {
  /** 0..1; the voice preset's stability (shown as "expressiveness" in the UI). */
  stability: number;
  /** 0..1; the voice preset's similarity_boost (shown as "accent" in the UI). */
  similarityBoost: number;
}

export interface ElevenLabsOptions {
  apiKey: string;
  /** Default https://api.elevenlabs.io */
  baseUrl?: string | null;
  /** Default eleven_multilingual_v2. */
  modelId?: string;
  /** Raw PCM sample rate requested (default pcm_24000; pcm_44100 needs a Pro plan). */
  outputFormat?: ElevenLabsPcmFormat;
  /** Used when a call gives none (default stability 0.5, similarity_boost 0.75). */
  defaultSettings?: VoiceSettings;
  http?: SharedHttpOptions;
}

export interface CloneRequest {
  name: string;
  /** Paths of clean speech samples of one speaker (WAV, MP3, ...). */
  files: string[];
  description?: string;
  labels?: Record<string, string>;
  removeBackgroundNoise?: boolean;
}

export interface SynthesizeRequest {
  text: string;
  lang: string;
  voiceId: string;
  rate: number;
  outPath: string;
  /** A voice preset's settings; the engine default when absent. */
  voiceSettings?: Partial<VoiceSettings>;
}

export interface ElevenLabsEngine extends TtsEngine {
  supportsCloning: true;
  synthesize(req: SynthesizeRequest, o?: EngineCallOptions): Promise<{ durationSec: number }>;
  /** Instant voice clone; the new voice is usable at once (unless requiresVerification). */
  cloneVoice(req: CloneRequest, o?: EngineCallOptions): Promise<{ voiceId: string; requiresVerification: boolean }>;
  deleteVoice(voiceId: string, o?: EngineCallOptions): Promise<void>;
  /** Re-reads GET /v1/voices. */
  refreshVoices(o?: EngineCallOptions): Promise<void>;
  lastInitError(): string | null;
}

const VoicesSchema = v.object({
  voices: v.array(
    v.object({
      voice_id: v.string(),
      name: v.optional(v.nullable(v.string())),
      category: v.optional(v.nullable(v.string())),
      labels: v.optional(v.nullable(v.record(v.string(), v.nullable(v.string())))),
    }),
  ),
});
const AddVoiceSchema = v.object({ voice_id: v.string(), requires_verification: v.optional(v.boolean()) });

interface KnownVoice {
  id: string;
  name: string;
  gender: 'male' | 'female';
  category: string;
  /** labels.accent, e.g. 'british', 'american'. */
  accent?: string;
}

/** English voices' accent label -> the catalogue's dialect code. */
const ENGLISH_ACCENTS: Record<string, string> = { british: 'en-gb', american: 'en-us', australian: 'en-au', irish: 'en-ie' };

const AUDIO_TYPES: Record<string, string> = {
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.m4a': 'audio/mp4',
  '.ogg': 'audio/ogg',
  '.flac': 'audio/flac',
  '.webm': 'audio/webm',
};

function clamp01(x: number | undefined, def: number): number {
  return typeof x === 'number' && Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : def;
}

function baseLang(lang: string): string {
  return lang.toLowerCase().split(/[-_]/)[0]!;
}

export function createElevenLabsTts(o: ElevenLabsOptions): ElevenLabsEngine {
  const http = new EngineHttpClient({
    engine: ENGINE,
    baseUrl: (o.baseUrl ?? 'https://api.elevenlabs.io').replace(/\/+$/, ''),
    headers: { 'xi-api-key': o.apiKey },
    secrets: [o.apiKey],
    ...(o.http ?? {}),
  });
  const modelId = o.modelId ?? 'eleven_multilingual_v2';
  const format = o.outputFormat ?? 'pcm_24000';
  const sampleRate = Number(format.split('_')[1]);
  const defaults: VoiceSettings = o.defaultSettings ?? { stability: 0.5, similarityBoost: 0.75 };
  const langs = [...elevenLabsLanguages(modelId)];
  let voices: KnownVoice[] = ELEVENLABS_PREMADE_VOICES.map((x) => ({ ...x, category: 'premade' }));
  let listed = false;
  let listedAt = 0;
  let background: Promise<void> | null = null;
  let initError: string | null = null;
  let initPromise: Promise<void> | null = null;

  async function refreshVoices(co: EngineCallOptions & { quick?: boolean } = {}): Promise<void> {
    const quick = co.quick ? { timeoutMs: 15_000, maxAttempts: 2 } : {};
    const parsed = v.safeParse(VoicesSchema, await http.json('GET', '/v1/voices', { ...quick, signal: co.signal, what: 'voice list' }));
    if (!parsed.success) throw new EngineResponseError(ENGINE, 'voice list: expected {"voices":[...]}');
    voices = parsed.output.voices.map((x) => ({
      id: x.voice_id,
      name: x.name ?? x.voice_id,
      gender: x.labels?.gender === 'male' ? 'male' : 'female',
      category: x.category ?? 'premade',
      ...(x.labels?.accent ? { accent: x.labels.accent.toLowerCase() } : {}),
    }));
    listed = true;
    listedAt = Date.now();
  }

  /** Voices cloned by another process (the worker vs the server) show up within this interval. */
  const VOICE_LIST_TTL_MS = 5 * 60_000;
  function refreshInBackgroundIfStale(): void {
    if (!listed || background || Date.now() - listedAt < VOICE_LIST_TTL_MS) return;
    background = refreshVoices({ quick: true })
      .catch((e: Error) => http.log(`voice list refresh failed: ${e.message}`))
      .finally(() => {
        background = null;
      });
  }

  const toVoice = (k: KnownVoice, lang: string): Voice => ({
    id: k.id,
    name: k.name,
    lang,
    gender: k.gender,
    pitch: k.gender === 'male' ? 120 : 210,
    engine: ENGINE,
    ...(lang === 'en' && k.accent && ENGLISH_ACCENTS[k.accent] ? { dialect: ENGLISH_ACCENTS[k.accent] } : {}),
  });

  return {
    id: ENGINE,
    label: `ElevenLabs (${modelId})`,
    supportsCloning: true,
    available: () => true,
    init() {
      // Discovery must not hold up start-up for long: short timeout, two attempts.
      initPromise ??= refreshVoices({ quick: true }).then(
        () => {
          initError = null;
        },
        (e: Error) => {
          initError = http.redact(e.message);
          http.log(`voice list unavailable, using the premade voices: ${initError}`);
        },
      );
      return initPromise;
    },
    lastInitError: () => initError,
    refreshVoices: (co) => refreshVoices(co),
    languages: () => langs,
    voices(lang) {
      refreshInBackgroundIfStale();
      const code = baseLang(lang);
      return langs.includes(code) ? voices.map((k) => toVoice(k, code)) : [];
    },

    async synthesize(req, co = {}) {
      const code = baseLang(req.lang);
      if (!langs.includes(code)) throw new EngineError('unsupported_language', `engine ${ENGINE} (${modelId}) does not speak '${req.lang}'`);
      const text = req.text.trim();
      if (!text) throw new EngineError('bad_input', 'nothing to synthesise: the text is empty');
      if (!req.voiceId || !/^[A-Za-z0-9_-]+$/.test(req.voiceId)) throw new EngineError('unknown_voice', `engine ${ENGINE} has no voice '${req.voiceId}'`);
      if (listed && !voices.some((k) => k.id === req.voiceId)) {
        // Possibly cloned by another process since the list was read.
        await refreshVoices(co);
        if (!voices.some((k) => k.id === req.voiceId)) throw new EngineError('unknown_voice', `engine ${ENGINE} has no voice '${req.voiceId}'`);
      }
      const rate = Number.isFinite(req.rate) && req.rate > 0 ? req.rate : 1;
      const settings: Record<string, number> = {
        stability: clamp01(req.voiceSettings?.stability, defaults.stability),
        similarity_boost: clamp01(req.voiceSettings?.similarityBoost, defaults.similarityBoost),
      };
      // voice_settings.speed takes 0.7..1.2; the pipeline time-stretches whatever remains.
      if (Math.abs(rate - 1) > 0.001) settings.speed = Math.round(Math.min(1.2, Math.max(0.7, rate)) * 1000) / 1000;
      const res = await http.request('POST', `/v1/text-to-speech/${encodeURIComponent(req.voiceId)}`, {
        query: { output_format: format },
        json: {
          text,
          model_id: modelId,
          voice_settings: settings,
          ...(elevenLabsTakesLanguageCode(modelId) ? { language_code: code === 'nb' ? 'no' : code } : {}),
        },
        signal: co.signal,
        what: 'speech synthesis',
      });
      const { wav, durationSec } = pcm16ToWav(ENGINE, res.body, sampleRate, 'speech synthesis');
      if (co.signal?.aborted) throw abortError(ENGINE);
      writeFileAtomic(req.outPath, wav);
      return { durationSec };
    },

    async cloneVoice(req, co = {}) {
      const name = req.name.trim();
      if (!name) throw new EngineError('bad_input', 'a cloned voice needs a name');
      if (!req.files.length) throw new EngineError('bad_input', 'voice cloning needs at least one speech sample');
      const form = new FormData();
      form.append('name', name);
      for (const f of req.files) {
        let size = 0;
        try {
          size = statSync(f).size;
        } catch {
          throw new EngineError('bad_input', `speech sample ${basename(f)} does not exist`);
        }
        if (size === 0) throw new EngineError('bad_input', `speech sample ${basename(f)} is empty`);
        const type = AUDIO_TYPES[extname(f).toLowerCase()] ?? 'application/octet-stream';
        form.append('files', new Blob([new Uint8Array(readFileSync(f))], { type }), basename(f));
      }
      if (req.description) form.append('description', req.description);
      if (req.labels && Object.keys(req.labels).length) form.append('labels', JSON.stringify(req.labels));
      if (req.removeBackgroundNoise !== undefined) form.append('remove_background_noise', String(req.removeBackgroundNoise));
      const parsed = v.safeParse(AddVoiceSchema, await http.json('POST', '/v1/voices/add', { form, signal: co.signal, what: 'voice cloning', idempotent: false }));
      if (!parsed.success) throw new EngineResponseError(ENGINE, 'voice cloning: the answer has no voice_id');
      const id = parsed.output.voice_id;
      const gender = req.labels?.gender === 'male' ? 'male' : 'female';
      voices = [...voices.filter((k) => k.id !== id), { id, name, gender, category: 'cloned' }];
      return { voiceId: id, requiresVerification: parsed.output.requires_verification ?? false };
    },

    async deleteVoice(voiceId, co = {}) {
      await http.request('DELETE', `/v1/voices/${encodeURIComponent(voiceId)}`, { signal: co.signal, what: 'voice deletion' });
      voices = voices.filter((k) => k.id !== voiceId);
    },
  };
}
