// OpenAI-compatible adapter: one implementation for OpenAI and for self-hosted servers speaking the
// same API (faster-whisper servers such as speaches, Kokoro-FastAPI, Ollama, vLLM, LocalAI).
//   ASR  POST {base}/audio/transcriptions  multipart: file, model, response_format=verbose_json,
//        timestamp_granularities[]=word and segment, language. Long audio is sent in chunks cut at
//        speech-region boundaries (the API takes at most 25 MB per file).
//   TTS  POST {base}/audio/speech  {model, input, voice, speed, response_format:'wav'}; the WAV is
//        checked for completeness and written atomically.
//   MT   POST {base}/chat/completions  with response_format json_object, the glossary's terms and a
//        length budget per segment; a result over its budget is sent back to be shortened.
//   AI rewrite (POST /api/tools/summarize) through the same chat endpoint.
// {base} is the OpenAI SDK convention: it includes /v1 (https://api.openai.com/v1).
// The parts live in openai-asr.ts, openai-tts.ts and openai-chat.ts (MT and rewrite); this file has what they share.
import type * as v from 'valibot';
import { EngineHttpClient, type HttpClientOptions } from './http';

/** Options every adapter passes through to its HTTP client (timeouts, retries, test hooks). */
export type SharedHttpOptions = Pick<HttpClientOptions, 'timeoutMs' | 'retry' | 'sleep' | 'fetch' | 'log'>;

export interface OpenAiEndpoint {
  /** Base URL including the API version, e.g. https://api.openai.com/v1 or http://localhost:11434/v1. */
  baseUrl: string;
  /** Bearer key; null for servers that need none. */
  apiKey: string | null;
  model: string;
}

export interface OpenAiVoiceSpec {
  id: string;
  /** Language code, or '*' for a multilingual voice (every language of the engine). */
  lang: string;
  gender: 'male' | 'female';
  dialect?: string;
  pitch?: number;
  name?: string;
}

export const ENGINE = 'openai';

export function client(ep: OpenAiEndpoint, http: SharedHttpOptions | undefined): EngineHttpClient {
  return new EngineHttpClient({
    engine: ENGINE,
    baseUrl: ep.baseUrl,
    headers: ep.apiKey ? { Authorization: `Bearer ${ep.apiKey}` } : {},
    secrets: [ep.apiKey],
    ...(http ?? {}),
  });
}

export function baseLang(lang: string): string {
  return lang.toLowerCase().split(/[-_]/)[0]!;
}

export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Languages written without spaces between words. */

export function issuePath(issues: ReadonlyArray<v.BaseIssue<unknown>>): string {
  const i = issues[0];
  if (!i) return 'invalid';
  const path = i.path?.map((p) => String(p.key)).join('.') ?? '';
  return `${path ? `${path}: ` : ''}${i.message}`;
}
