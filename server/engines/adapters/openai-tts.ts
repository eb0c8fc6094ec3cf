// OpenAI-compatible TTS: POST {base}/audio/speech, the WAV checked for completeness and written atomically.
// Shared client and types: ./openai.ts.
import { EngineError, type EngineCallOptions, type TtsEngine, type Voice } from '../types';
import { completeWav, writeFileAtomic } from './audio';
import { OPENAI_TTS_LANGUAGES, OPENAI_VOICES } from './capabilities';
import { abortError } from './errors';
import { ENGINE, baseLang, client, round3, type OpenAiEndpoint, type OpenAiVoiceSpec, type SharedHttpOptions } from './openai';

// ------------------------------------------------------------------------------------------------ TTS

export interface OpenAiTtsOptions extends OpenAiEndpoint {
  /** Voices the server offers (default: OpenAI's six multilingual voices). */
  voices?: readonly OpenAiVoiceSpec[];
  /** Languages for multilingual ('*') voices (default: OpenAI's text-to-speech list). */
  languages?: readonly string[];
  http?: SharedHttpOptions;
}

export const OPENAI_TTS_MAX_INPUT = 4096;

export function createOpenAiTts(o: OpenAiTtsOptions): TtsEngine {
  const http = client(o, o.http);
  const specs: OpenAiVoiceSpec[] = [...(o.voices ?? OPENAI_VOICES.map((x) => ({ ...x, lang: '*' })))];
  const multi = [...(o.languages ?? OPENAI_TTS_LANGUAGES)];
  const langs = [...new Set(specs.flatMap((s) => (s.lang === '*' ? multi : [baseLang(s.lang)])))];
  const voiceFor = (s: OpenAiVoiceSpec, lang: string): Voice => ({
    id: s.id,
    name: s.name ?? s.id.replace(/^[a-z]{2}_/, '').replace(/^./, (c) => c.toUpperCase()),
    lang,
    gender: s.gender,
    pitch: s.pitch ?? (s.gender === 'male' ? 120 : 210),
    engine: ENGINE,
    ...(s.dialect ? { dialect: s.dialect } : {}),
  });
  return {
    id: ENGINE,
    label: `OpenAI-compatible speech (${o.model} at ${new URL(o.baseUrl).host})`,
    supportsCloning: false,
    available: () => true,
    async init() {},
    languages: () => langs,
    voices(lang) {
      const code = baseLang(lang);
      return specs.filter((s) => (s.lang === '*' ? multi.includes(code) : baseLang(s.lang) === code)).map((s) => voiceFor(s, code));
    },
    async synthesize(req, co: EngineCallOptions = {}) {
      const code = baseLang(req.lang);
      if (!langs.includes(code)) throw new EngineError('unsupported_language', `engine ${ENGINE} does not speak '${req.lang}'`);
      const spec = specs.find((s) => s.id === req.voiceId && (s.lang === '*' || baseLang(s.lang) === code));
      if (!spec) throw new EngineError('unknown_voice', `engine ${ENGINE} has no voice '${req.voiceId}' for '${req.lang}'`);
      const text = req.text.trim();
      if (!text) throw new EngineError('bad_input', 'nothing to synthesise: the text is empty');
      if (text.length > OPENAI_TTS_MAX_INPUT) {
        throw new EngineError('bad_input', `engine ${ENGINE} synthesises at most ${OPENAI_TTS_MAX_INPUT} characters per call (got ${text.length})`);
      }
      const speed = Math.min(4, Math.max(0.25, Number.isFinite(req.rate) && req.rate > 0 ? req.rate : 1));
      const res = await http.request('POST', '/audio/speech', {
        json: { model: o.model, input: text, voice: spec.id, speed: round3(speed), response_format: 'wav' },
        signal: co.signal,
        what: 'speech synthesis',
      });
      const { wav, info } = completeWav(ENGINE, res.body, 'speech synthesis');
      if (co.signal?.aborted) throw abortError(ENGINE);
      writeFileAtomic(req.outPath, wav);
      return { durationSec: info.durationSec };
    },
  };
}
