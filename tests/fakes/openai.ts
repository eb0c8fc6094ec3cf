// A fake OpenAI-compatible server (OpenAI, faster-whisper servers, Kokoro servers, Ollama, vLLM):
//   POST /v1/audio/transcriptions  multipart file, model, response_format=verbose_json,
//                                  timestamp_granularities[]=word|segment, language -> verbose_json
//   POST /v1/audio/speech          JSON {model, input, voice, speed, response_format:'wav'} -> WAV bytes
//   POST /v1/chat/completions      JSON {model, messages, response_format:{type:'json_object'}} -> chat.completion
// Requests are checked against the documented shapes; violations are recorded and answered with 400.
import { FakeServer, ShapeError, header, toneWav, type RecordedRequest, type Reply, type Route } from './base';

export interface VerboseJson {
  task: 'transcribe';
  language: string;
  duration: number;
  text: string;
  words?: Array<{ word: string; start: number; end: number }>;
  segments?: Array<{
    id: number;
    seek: number;
    start: number;
    end: number;
    text: string;
    tokens: number[];
    temperature: number;
    avg_logprob: number;
    compression_ratio: number;
    no_speech_prob: number;
  }>;
}

export interface ChatRequest {
  model: string;
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  response_format?: { type: string };
  temperature?: number;
}

export interface FakeOpenAiOptions {
  /** Expected bearer key; null = no authentication (self-hosted servers). */
  apiKey?: string | null;
  asrModel?: string;
  ttsModel?: string;
  chatModel?: string;
  voices?: string[];
  /** Builds the transcription of an uploaded WAV; default: two words per second of a fixed phrase. */
  transcript?: (audio: { durationSec: number; language: string | undefined; call: number }) => VerboseJson;
  /** Returns the assistant message content for a chat request; default: a bracketed "translation". */
  chat?: (body: ChatRequest, call: number) => string;
  /** Seconds of speech per input character at speed 1 (default 0.06). */
  secondsPerChar?: number;
  /** Answer speech with RIFF/data sizes 0xFFFFFFFF as a streaming server does. */
  streamingWav?: boolean;
}

const LANG_NAMES: Record<string, string> = { en: 'english', ja: 'japanese', es: 'spanish', de: 'german', fr: 'french' };
const PHRASES: Record<string, string[]> = {
  en: 'welcome back to the channel today we are going to talk about open source dubbing'.split(' '),
  ja: 'こんにちは 今日は オープンソースの 吹き替えに ついて 話します'.split(' '),
};

export function defaultTranscript(durationSec: number, language = 'en'): VerboseJson {
  const phrase = PHRASES[language] ?? PHRASES.en!;
  const words: NonNullable<VerboseJson['words']> = [];
  for (let t = 0.2, i = 0; t + 0.4 <= durationSec; t += 0.5, i++) {
    words.push({ word: phrase[i % phrase.length]!, start: round(t), end: round(t + 0.4) });
  }
  const segments: NonNullable<VerboseJson['segments']> = [];
  for (let i = 0; i < words.length; i += 6) {
    const ws = words.slice(i, i + 6);
    segments.push({
      id: segments.length,
      seek: 0,
      start: ws[0]!.start,
      end: ws[ws.length - 1]!.end,
      text: ' ' + ws.map((w) => w.word).join(' '),
      tokens: ws.map((_, k) => 50364 + k),
      temperature: 0,
      avg_logprob: -0.21,
      compression_ratio: 1.3,
      no_speech_prob: 0.01,
    });
  }
  return {
    task: 'transcribe',
    language: LANG_NAMES[language] ?? language,
    duration: round(durationSec),
    text: segments.map((s) => s.text).join('').trim(),
    words,
    segments,
  };
}

/** Default chat behaviour: answers the adapter's JSON prompts the way a cooperative model would. */
export function defaultChat(body: ChatRequest): string {
  const user = body.messages.filter((m) => m.role === 'user').pop();
  const payload = JSON.parse(user?.content ?? '{}') as {
    task?: string;
    target_language?: string;
    glossary?: Array<{ source: string; target: string }>;
    segments?: Array<{ id: number; text?: string; previous_translation?: string; max_chars?: number }>;
    text?: string;
    max_chars?: number;
  };
  if (payload.task === 'rewrite') {
    const text = (payload.text ?? '').split(/\s+/).slice(0, 8).join(' ');
    return JSON.stringify({ text: payload.max_chars ? text.slice(0, payload.max_chars) : text });
  }
  const glossary = payload.glossary ?? [];
  const translations = (payload.segments ?? []).map((s) => {
    if (s.previous_translation !== undefined) {
      // Shorten: keep as many words as fit.
      const words = s.previous_translation.split(' ');
      let out = '';
      for (const w of words) {
        const next = out ? `${out} ${w}` : w;
        if (s.max_chars !== undefined && next.length > s.max_chars) break;
        out = next;
      }
      return { id: s.id, text: out };
    }
    let text = s.text ?? '';
    for (const g of glossary) text = text.split(g.source).join(g.target);
    return { id: s.id, text: `[${payload.target_language}] ${text}` };
  });
  return JSON.stringify({ translations });
}

export class FakeOpenAi extends FakeServer {
  readonly opts: FakeOpenAiOptions;
  /** Calls answered so far per endpoint (the `call` argument of the transcript/chat hooks). */
  readonly calls = { asr: 0, chat: 0 };

  reset(): void {
    this.clearFaults();
    this.requests.length = 0;
    this.calls.asr = 0;
    this.calls.chat = 0;
  }

  constructor(opts: FakeOpenAiOptions = {}) {
    super();
    this.opts = { apiKey: 'sk-test-fake-openai-key-0123456789', voices: ['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer'], ...opts };
  }

  protected authorize(req: RecordedRequest): Reply | null {
    if (this.opts.apiKey === null) return null;
    const auth = header(req, 'authorization');
    if (auth === `Bearer ${this.opts.apiKey}`) return null;
    // OpenAI echoes (part of) the presented key: the adapter must not repeat it.
    const presented = auth?.replace(/^Bearer\s+/, '') ?? '';
    return {
      status: 401,
      json: {
        error: {
          message: `Incorrect API key provided: ${presented}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      },
    };
  }

  protected routes(): Route[] {
    return [
      { method: 'POST', path: '/v1/audio/transcriptions', handler: (r) => this.transcriptions(r) },
      { method: 'POST', path: '/v1/audio/speech', handler: (r) => this.speech(r) },
      { method: 'POST', path: '/v1/chat/completions', handler: (r) => this.chat(r) },
    ];
  }

  private transcriptions(req: RecordedRequest): Reply {
    const mp = req.multipart;
    if (!mp) throw new ShapeError('transcriptions expects multipart/form-data');
    const field = (n: string) => mp.fields[n] ?? [];
    const file = mp.files.find((f) => f.field === 'file');
    if (!file) throw new ShapeError("missing file part 'file'");
    if (!file.filename) throw new ShapeError('file part has no filename');
    if (file.data.subarray(0, 4).toString('ascii') !== 'RIFF' || file.data.subarray(8, 12).toString('ascii') !== 'WAVE') {
      throw new ShapeError('file is not a WAV');
    }
    const [model] = field('model');
    if (!model) throw new ShapeError("missing field 'model'");
    if (this.opts.asrModel && model !== this.opts.asrModel) throw new ShapeError(`unexpected model ${model}`);
    if (field('response_format')[0] !== 'verbose_json') throw new ShapeError('response_format must be verbose_json');
    const gran = field('timestamp_granularities[]');
    if (!gran.includes('word') || !gran.includes('segment')) throw new ShapeError('timestamp_granularities[] must include word and segment');
    const [language] = field('language');
    if (language !== undefined && !/^[a-z]{2,3}$/.test(language)) throw new ShapeError(`language must be ISO-639-1, got ${language}`);
    const sampleRate = file.data.readUInt32LE(24);
    const dataBytes = file.data.length - 44;
    const durationSec = dataBytes / 2 / sampleRate;
    const call = this.calls.asr++;
    const json = this.opts.transcript ? this.opts.transcript({ durationSec, language, call }) : defaultTranscript(durationSec, language);
    return { json };
  }

  private speech(req: RecordedRequest): Reply {
    const b = req.json as Record<string, unknown> | undefined;
    if (!b || typeof b !== 'object') throw new ShapeError('speech expects a JSON body');
    if (typeof b.model !== 'string' || !b.model) throw new ShapeError("missing 'model'");
    if (this.opts.ttsModel && b.model !== this.opts.ttsModel) throw new ShapeError(`unexpected model ${b.model}`);
    if (typeof b.input !== 'string' || !b.input) throw new ShapeError("missing 'input'");
    if (b.input.length > 4096) throw new ShapeError('input longer than 4096 characters');
    if (typeof b.voice !== 'string' || !this.opts.voices!.includes(b.voice)) throw new ShapeError(`unknown voice ${String(b.voice)}`);
    if (b.speed !== undefined && (typeof b.speed !== 'number' || b.speed < 0.25 || b.speed > 4)) throw new ShapeError('speed must be 0.25..4');
    if (b.response_format !== 'wav') throw new ShapeError(`response_format must be wav, got ${String(b.response_format)}`);
    const seconds = (b.input.length * (this.opts.secondsPerChar ?? 0.06)) / ((b.speed as number | undefined) ?? 1);
    return { headers: { 'Content-Type': 'audio/wav' }, body: toneWav(seconds, 24000, { streamingSizes: this.opts.streamingWav }) };
  }

  private chat(req: RecordedRequest): Reply {
    const b = req.json as ChatRequest | undefined;
    if (!b || typeof b !== 'object') throw new ShapeError('chat expects a JSON body');
    if (typeof b.model !== 'string' || !b.model) throw new ShapeError("missing 'model'");
    if (this.opts.chatModel && b.model !== this.opts.chatModel) throw new ShapeError(`unexpected model ${b.model}`);
    if (!Array.isArray(b.messages) || b.messages.length === 0) throw new ShapeError("'messages' must be a non-empty array");
    for (const m of b.messages) {
      if (!['system', 'user', 'assistant'].includes(m.role) || typeof m.content !== 'string') throw new ShapeError('bad message');
    }
    if (b.response_format?.type !== 'json_object') throw new ShapeError("response_format must be {type:'json_object'}");
    // json_object mode requires the word JSON in the conversation.
    if (!b.messages.some((m) => /json/i.test(m.content))) throw new ShapeError("messages must mention 'JSON' in json_object mode");
    const call = this.calls.chat++;
    const content = this.opts.chat ? this.opts.chat(b, call) : defaultChat(b);
    return {
      json: {
        id: `chatcmpl-fake${call}`,
        object: 'chat.completion',
        created: 1_700_000_000 + call,
        model: b.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 50, total_tokens: 150 },
      },
    };
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
