// OpenAI-compatible adapter against the fake server: documented request shapes, parsing of the
// answers into the engine interfaces, chunking, length budgets, and failure without partial files.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EngineAuthError, EngineResponseError } from '../../../../server/engines/adapters/errors';
import { chunkRegions, createOpenAiAsr, verboseToSegments } from '../../../../server/engines/adapters/openai-asr';
import { createOpenAiMt, createOpenAiRewriter } from '../../../../server/engines/adapters/openai-chat';
import { createOpenAiTts } from '../../../../server/engines/adapters/openai-tts';
import { EngineError } from '../../../../server/engines/types';
import { readWavInfo } from '../../../../server/media/wav';
import { toneWav } from '../../../fakes/base';
import { FakeOpenAi, defaultTranscript, type ChatRequest, type VerboseJson } from '../../../fakes/openai';
import { caught, recordingSleep, tempDir, writeTestWav } from '../../../fakes/util';

const KEY = 'sk-test-fake-openai-key-0123456789';
let fake: FakeOpenAi;
let dir: string;
const http = () => ({ sleep: recordingSleep().sleep, log: () => {}, retry: { maxAttempts: 3 }, timeoutMs: 5000 });
const ep = (model: string) => ({ baseUrl: `${fake.url}/v1`, apiKey: KEY, model });

beforeAll(async () => {
  fake = await new FakeOpenAi({ apiKey: KEY, asrModel: 'whisper-1', ttsModel: 'tts-1', chatModel: 'gpt-4o-mini' }).start();
  dir = tempDir('openai-');
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.opts.transcript = undefined;
  fake.opts.chat = undefined;
  fake.opts.streamingWav = false;
});

describe('ASR: POST /v1/audio/transcriptions', () => {
  it('sends the documented multipart request and returns segments with word timings', async () => {
    const wav = writeTestWav(dir, 12);
    const asr = createOpenAiAsr({ ...ep('whisper-1'), http: http() });
    expect(asr.languages()).toContain('ja');
    const segs = await asr.transcribe(wav, [{ start: 0.5, end: 4 }, { start: 6, end: 11 }], 'en');

    expect(fake.violations()).toEqual([]);
    const [req] = fake.requestsTo('POST', '/v1/audio/transcriptions');
    expect(fake.requests).toHaveLength(1);
    expect(req!.headers.authorization).toBe(`Bearer ${KEY}`);
    const mp = req!.multipart!;
    expect(mp.fields.model).toEqual(['whisper-1']);
    expect(mp.fields.response_format).toEqual(['verbose_json']);
    expect(mp.fields['timestamp_granularities[]']!.sort()).toEqual(['segment', 'word']);
    expect(mp.fields.language).toEqual(['en']);
    expect(mp.files).toHaveLength(1);
    expect(mp.files[0]!.field).toBe('file');
    expect(mp.files[0]!.contentType).toBe('audio/wav');
    // The uploaded span is the regions' span with 0.2 s of padding: 0.3 .. 11.2 s.
    const up = mp.files[0]!.data;
    expect(up.readUInt32LE(24)).toBe(16000);
    expect((up.length - 44) / 2 / 16000).toBeCloseTo(10.9, 2);

    expect(segs.length).toBeGreaterThan(1);
    for (const s of segs) {
      expect(s.text.length).toBeGreaterThan(0);
      expect(s.words.length).toBeGreaterThan(0);
      expect(s.start).toBeLessThanOrEqual(s.end);
      for (const w of s.words) {
        expect(w.start).toBeGreaterThanOrEqual(s.start);
        expect(w.end).toBeLessThanOrEqual(s.end);
      }
    }
    // Times are on the file's timeline: the fake's first word starts 0.2 s into the upload (0.3 s).
    expect(segs[0]!.words[0]).toEqual({ text: 'welcome', start: 0.5, end: 0.9 });
    expect(segs[0]!.text).toBe('welcome back to the channel today');
  });

  it('cuts long audio into chunks at region boundaries and offsets each chunk', async () => {
    const wav = writeTestWav(dir, 30, 'long.wav');
    fake.opts.transcript = ({ durationSec }) => ({
      task: 'transcribe',
      language: 'english',
      duration: durationSec,
      text: 'Chunk line.',
      segments: [{ id: 0, seek: 0, start: 0.2, end: 1.2, text: ' Chunk line.', tokens: [1], temperature: 0, avg_logprob: -0.1, compression_ratio: 1, no_speech_prob: 0 }],
      words: [
        { word: 'Chunk', start: 0.2, end: 0.6 },
        { word: 'line', start: 0.7, end: 1.2 },
      ],
    });
    const asr = createOpenAiAsr({ ...ep('whisper-1'), maxChunkSec: 8, http: http() });
    const regions = [
      { start: 1, end: 4 },
      { start: 5, end: 8 },
      { start: 12, end: 15 },
      { start: 20, end: 27 },
    ];
    const segs = await asr.transcribe(wav, regions, 'en');
    const uploads = fake.requestsTo('POST', '/v1/audio/transcriptions');
    expect(uploads).toHaveLength(3); // [1-8], [12-15], [20-27]
    expect(segs.map((s) => s.start)).toEqual([1, 12, 20]);
    expect(segs[2]!.words).toEqual([
      { text: 'Chunk', start: 20, end: 20.4 },
      { text: 'line', start: 20.5, end: 21 },
    ]);
    expect(chunkRegions(regions, 8).map((c) => c.length)).toEqual([2, 1, 1]);
  });

  it('drops segments over silence (outside every speech region) and reads words nested in segments', () => {
    const res: VerboseJson = {
      task: 'transcribe',
      language: 'english',
      duration: 20,
      text: 'Hello. Thanks for watching!',
      segments: [
        { id: 0, seek: 0, start: 1, end: 2, text: ' Hello.', tokens: [], temperature: 0, avg_logprob: 0, compression_ratio: 1, no_speech_prob: 0 },
        { id: 1, seek: 0, start: 15, end: 17, text: ' Thanks for watching!', tokens: [], temperature: 0, avg_logprob: 0, compression_ratio: 1, no_speech_prob: 0.9 },
      ],
    };
    (res.segments![0] as { words?: unknown }).words = [{ word: ' Hello.', start: 1.1, end: 1.9 }];
    const segs = verboseToSegments(res as never, 10, [{ start: 10.5, end: 12.5 }], 'en');
    // the segment's score: exp(avg_logprob) x (1 - no_speech_prob) (issue 33)
    expect(segs).toEqual([{ start: 11, end: 12, text: 'Hello.', words: [{ text: 'Hello.', start: 11.1, end: 11.9 }], confidence: 1 }]);
  });

  it('joins nothing for Japanese and transcribes it (OpenAI lists Japanese)', async () => {
    const wav = writeTestWav(dir, 5, 'ja.wav');
    const asr = createOpenAiAsr({ ...ep('whisper-1'), http: http() });
    const segs = await asr.transcribe(wav, [{ start: 0, end: 5 }], 'ja');
    expect(fake.requests[0]!.multipart!.fields.language).toEqual(['ja']);
    expect(segs[0]!.text).toContain('こんにちは');
  });

  it('no regions: no request and no segments', async () => {
    const wav = writeTestWav(dir, 2, 'empty.wav');
    const asr = createOpenAiAsr({ ...ep('whisper-1'), http: http() });
    expect(await asr.transcribe(wav, [], 'en')).toEqual([]);
    expect(fake.requests).toHaveLength(0);
  });

  it('an unsupported language is refused before any request', async () => {
    const wav = writeTestWav(dir, 2, 'x.wav');
    const asr = createOpenAiAsr({ ...ep('whisper-1'), languages: ['en'], http: http() });
    const err = await asr.transcribe(wav, [{ start: 0, end: 2 }], 'ja').catch(caught);
    expect(err).toBeInstanceOf(EngineError);
    expect(err.code).toBe('unsupported_language');
    expect(fake.requests).toHaveLength(0);
  });

  it('a malformed answer fails the call (no half transcript)', async () => {
    fake.fail({ kind: 'malformed' });
    const wav = writeTestWav(dir, 3, 'm.wav');
    const asr = createOpenAiAsr({ ...ep('whisper-1'), http: http() });
    await expect(asr.transcribe(wav, [{ start: 0, end: 3 }], 'en')).rejects.toBeInstanceOf(EngineResponseError);
  });

  it('a JSON answer of the wrong shape fails the call', async () => {
    fake.opts.transcript = () => ({ nope: true }) as unknown as VerboseJson;
    const wav = writeTestWav(dir, 3, 'w.wav');
    const asr = createOpenAiAsr({ ...ep('whisper-1'), http: http() });
    const err = await asr.transcribe(wav, [{ start: 0, end: 3 }], 'en').catch(caught);
    expect(err).toBeInstanceOf(EngineResponseError);
    expect(err.message).toContain('verbose_json');
  });

  it('a failure in a later chunk fails the whole call', async () => {
    const wav = writeTestWav(dir, 20, 'c.wav');
    fake.opts.transcript = ({ durationSec, call }) => (call === 0 ? defaultTranscript(durationSec) : ({ text: 42 } as never));
    const asr = createOpenAiAsr({ ...ep('whisper-1'), maxChunkSec: 5, http: http() });
    await expect(asr.transcribe(wav, [{ start: 0, end: 4 }, { start: 10, end: 14 }], 'en')).rejects.toBeInstanceOf(EngineResponseError);
  });

  it('a self-hosted server without a key gets no Authorization header', async () => {
    const open = await new FakeOpenAi({ apiKey: null }).start();
    try {
      const wav = writeTestWav(dir, 3, 'open.wav');
      const asr = createOpenAiAsr({ baseUrl: `${open.url}/v1`, apiKey: null, model: 'Systran/faster-whisper-small', http: http() });
      const segs = await asr.transcribe(wav, [{ start: 0, end: 3 }], 'en');
      expect(segs.length).toBeGreaterThan(0);
      expect(open.requests[0]!.headers.authorization).toBeUndefined();
      expect(open.requests[0]!.multipart!.fields.model).toEqual(['Systran/faster-whisper-small']);
    } finally {
      await open.close();
    }
  });
});

describe('TTS: POST /v1/audio/speech', () => {
  it('sends {model, input, voice, speed, response_format:wav} and writes the WAV', async () => {
    const tts = createOpenAiTts({ ...ep('tts-1'), http: http() });
    expect(tts.voices('fr').map((v) => v.id)).toEqual(['alloy', 'echo', 'fable', 'onyx', 'nova', 'shimmer']);
    expect(tts.voices('fr')[0]).toMatchObject({ lang: 'fr', engine: 'openai', gender: 'female' });
    const out = join(dir, 'speech.wav');
    const text = 'Bonjour à tous, bienvenue.';
    const { durationSec } = await tts.synthesize({ text, lang: 'fr', voiceId: 'nova', rate: 1.25, outPath: out });
    expect(fake.violations()).toEqual([]);
    expect(fake.requests[0]!.json).toEqual({ model: 'tts-1', input: text, voice: 'nova', speed: 1.25, response_format: 'wav' });
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(durationSec).toBeCloseTo((text.length * 0.06) / 1.25, 2);
    expect(readWavInfo(out).durationSec).toBeCloseTo(durationSec, 3);
  });

  it('a streaming-size WAV header is rewritten with exact sizes', async () => {
    fake.opts.streamingWav = true;
    const tts = createOpenAiTts({ ...ep('tts-1'), http: http() });
    const out = join(dir, 'stream.wav');
    const { durationSec } = await tts.synthesize({ text: 'Hello there', lang: 'en', voiceId: 'alloy', rate: 1, outPath: out });
    const buf = readFileSync(out);
    expect(buf.readUInt32LE(40)).toBe(buf.length - 44);
    expect(buf.readUInt32LE(4)).toBe(buf.length - 8);
    expect(durationSec).toBeCloseTo(0.66, 2);
  });

  it('a WAV cut short leaves no file, and an existing file untouched', async () => {
    const full = toneWav(2, 24000);
    fake.fail({ kind: 'raw', headers: { 'Content-Type': 'audio/wav' }, body: full.subarray(0, 20_000) });
    const tts = createOpenAiTts({ ...ep('tts-1'), http: http() });
    const out = join(dir, 'cut.wav');
    writeFileSync(out, 'previous');
    const err = await tts.synthesize({ text: 'Hello', lang: 'en', voiceId: 'alloy', rate: 1, outPath: out }).catch(caught);
    expect(err).toBeInstanceOf(EngineResponseError);
    expect(err.message).toContain('truncated');
    expect(readFileSync(out, 'utf8')).toBe('previous');
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('a connection cut mid-body fails after bounded retries and writes nothing', async () => {
    fake.fail({ kind: 'truncate' }, 3);
    const tts = createOpenAiTts({ ...ep('tts-1'), http: http() });
    const out = join(dir, 'cut2.wav');
    const err = await tts.synthesize({ text: 'Hello', lang: 'en', voiceId: 'alloy', rate: 1, outPath: out }).catch(caught);
    expect(err).toBeInstanceOf(EngineResponseError);
    expect(existsSync(out)).toBe(false);
    expect(fake.requests).toHaveLength(3);
  });

  it('an answer that is not a WAV (server ignored response_format) fails', async () => {
    fake.fail({ kind: 'raw', headers: { 'Content-Type': 'audio/mpeg' }, body: Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00 mp3 frames') });
    const tts = createOpenAiTts({ ...ep('tts-1'), http: http() });
    const out = join(dir, 'mp3.wav');
    const err = await tts.synthesize({ text: 'Hello', lang: 'en', voiceId: 'alloy', rate: 1, outPath: out }).catch(caught);
    expect(err).toBeInstanceOf(EngineResponseError);
    expect(err.message).toContain('expected a WAV');
    expect(existsSync(out)).toBe(false);
  });

  it('rejected credentials name the engine', async () => {
    const tts = createOpenAiTts({ ...ep('tts-1'), apiKey: 'sk-bad-key-9999999', http: http() });
    const err = await tts.synthesize({ text: 'Hi', lang: 'en', voiceId: 'alloy', rate: 1, outPath: join(dir, 'a.wav') }).catch(caught);
    expect(err).toBeInstanceOf(EngineAuthError);
    expect(err.message).toContain('engine openai rejected the credentials');
    expect(err.message).not.toContain('sk-bad-key-9999999');
  });

  it('unknown voices and empty text are refused before any request', async () => {
    const tts = createOpenAiTts({ ...ep('tts-1'), http: http() });
    await expect(tts.synthesize({ text: 'Hi', lang: 'en', voiceId: 'zzz', rate: 1, outPath: join(dir, 'b.wav') })).rejects.toMatchObject({
      code: 'unknown_voice',
    });
    await expect(tts.synthesize({ text: '  ', lang: 'en', voiceId: 'alloy', rate: 1, outPath: join(dir, 'b.wav') })).rejects.toMatchObject({
      code: 'bad_input',
    });
    expect(fake.requests).toHaveLength(0);
  });

  it('Kokoro-style voice lists give per-language voices', async () => {
    const tts = createOpenAiTts({
      ...ep('kokoro'),
      voices: [
        { id: 'af_heart', lang: 'en', gender: 'female', dialect: 'en-us' },
        { id: 'jm_kumo', lang: 'ja', gender: 'male' },
      ],
      http: http(),
    });
    expect(tts.languages().sort()).toEqual(['en', 'ja']);
    expect(tts.voices('ja')).toEqual([{ id: 'jm_kumo', name: 'Kumo', lang: 'ja', gender: 'male', pitch: 120, engine: 'openai' }]);
    expect(tts.voices('fr')).toEqual([]);
  });
});

describe('MT: POST /v1/chat/completions', () => {
  it('sends JSON mode with the glossary and budgets, and returns translations in order', async () => {
    const mt = createOpenAiMt({ ...ep('gpt-4o-mini'), http: http() });
    expect(mt.supportsGlossary).toBe(true);
    expect(mt.pairs()).toContainEqual(['en', 'ja']);
    const out = await mt.translate(['Open Source is great', '', 'See you soon'], 'en', 'es', {
      glossary: [{ source: 'Open Source', target: 'código abierto' }],
      maxChars: [60, 10, 60],
    });
    expect(out).toEqual(['[es] código abierto is great', '', '[es] See you soon']);
    expect(fake.violations()).toEqual([]);
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]!.json as ChatRequest;
    expect(body.model).toBe('gpt-4o-mini');
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages[0]!.role).toBe('system');
    expect(body.messages[0]!.content).toContain('Spanish');
    const user = JSON.parse(body.messages[1]!.content);
    expect(user).toEqual({
      source_language: 'en',
      target_language: 'es',
      glossary: [{ source: 'Open Source', target: 'código abierto' }],
      context_before: [],
      segments: [
        { id: 0, text: 'Open Source is great', max_chars: 60 },
        { id: 2, text: 'See you soon', max_chars: 60 },
      ],
      context_after: [],
    });
  });

  it('gives each batch its neighbouring lines as context and asks for one translation per line, none moved', async () => {
    const mt = createOpenAiMt({ ...ep('gpt-4o-mini'), batchSize: 3, http: http() });
    const lines = ['we walked past the white', 'house on our way', 'to the old market', 'and the guards', 'looked at us'];
    const out = await mt.translate(lines, 'en', 'es');
    expect(out).toEqual(lines.map((l) => `[es] ${l}`));
    expect(fake.requests).toHaveLength(2);
    const [a, b] = fake.requests.map((r) => r.json as ChatRequest);
    const ua = JSON.parse(a!.messages[1]!.content);
    const ub = JSON.parse(b!.messages[1]!.content);
    expect(ua.context_before).toEqual([]);
    expect(ua.context_after).toEqual(['and the guards', 'looked at us']);
    expect(ub.context_before).toEqual(['house on our way', 'to the old market']);
    expect(ub.segments.map((x: { id: number }) => x.id)).toEqual([3, 4]);
    expect(a!.messages[0]!.content).toMatch(/context only/);
    expect(a!.messages[0]!.content).toMatch(/never a word of the previous or next segment/);
  });

  it('asks for a shorter rendering when a translation exceeds its budget', async () => {
    const mt = createOpenAiMt({ ...ep('gpt-4o-mini'), http: http() });
    const out = await mt.translate(['one two three four five six', 'short'], 'en', 'de', { maxChars: [16, 40] });
    expect(fake.requests).toHaveLength(2);
    const second = JSON.parse((fake.requests[1]!.json as ChatRequest).messages[1]!.content);
    expect(second.segments).toEqual([
      { id: 0, source: 'one two three four five six', previous_translation: '[de] one two three four five six', max_chars: 16 },
    ]);
    expect(out[0]!.length).toBeLessThanOrEqual(16);
    expect(out[0]).toBe('[de] one two');
    expect(out[1]).toBe('[de] short');
  });

  it('keeps the shortest rendering when the model cannot meet the budget', async () => {
    let n = 0;
    fake.opts.chat = (b) => {
      const p = JSON.parse(b.messages[1]!.content);
      n++;
      const text = n === 1 ? 'a much too long translation' : n === 2 ? 'still rather long' : 'even longer translation than before';
      return JSON.stringify({ translations: p.segments.map((s: { id: number }) => ({ id: s.id, text })) });
    };
    const mt = createOpenAiMt({ ...ep('gpt-4o-mini'), http: http() });
    const out = await mt.translate(['x'], 'en', 'fr', { maxChars: [5] });
    expect(fake.requests).toHaveLength(3); // 1 translation + 2 shortening rounds
    expect(out).toEqual(['still rather long']);
  });

  it('asks again for segments the model left out', async () => {
    fake.opts.chat = (b, call) => {
      const p = JSON.parse(b.messages[1]!.content);
      const segs = call === 0 ? p.segments.slice(0, 1) : p.segments;
      return JSON.stringify({ translations: segs.map((s: { id: number; text: string }) => ({ id: s.id, text: `T${s.text}` })) });
    };
    const mt = createOpenAiMt({ ...ep('gpt-4o-mini'), http: http() });
    expect(await mt.translate(['a', 'b', 'c'], 'en', 'it')).toEqual(['Ta', 'Tb', 'Tc']);
    expect(JSON.parse((fake.requests[1]!.json as ChatRequest).messages[1]!.content).segments.map((s: { id: number }) => s.id)).toEqual([1, 2]);
  });

  it('tolerates code fences around the JSON answer', async () => {
    fake.opts.chat = () => '```json\n{"translations":[{"id":0,"text":"Hallo"}]}\n```';
    const mt = createOpenAiMt({ ...ep('gpt-4o-mini'), http: http() });
    expect(await mt.translate(['Hello'], 'en', 'de')).toEqual(['Hallo']);
  });

  it('a non-JSON answer fails the call', async () => {
    fake.opts.chat = () => 'Sure! Here is your translation: Hallo';
    const mt = createOpenAiMt({ ...ep('gpt-4o-mini'), http: http() });
    const err = await mt.translate(['Hello'], 'en', 'de').catch(caught);
    expect(err).toBeInstanceOf(EngineResponseError);
    expect(err.message).toContain('JSON');
  });

  it('batches long lists', async () => {
    const mt = createOpenAiMt({ ...ep('gpt-4o-mini'), batchSize: 40, http: http() });
    const texts = Array.from({ length: 100 }, (_, i) => `line ${i}`);
    const out = await mt.translate(texts, 'en', 'pl');
    expect(out[99]).toBe('[pl] line 99');
    expect(fake.requests).toHaveLength(3);
  });

  it('rejects a maxChars list of the wrong length', async () => {
    const mt = createOpenAiMt({ ...ep('gpt-4o-mini'), http: http() });
    await expect(mt.translate(['a', 'b'], 'en', 'de', { maxChars: [5] })).rejects.toMatchObject({ code: 'bad_input' });
  });
});

describe('AI rewrite via chat completions', () => {
  it('returns the rewritten text and sends the budget', async () => {
    const rw = createOpenAiRewriter({ ...ep('gpt-4o-mini'), http: http() });
    const text = 'This is a rather long sentence that we would like to make a lot shorter please';
    const out = await rw.rewrite({ text, lang: 'en', maxChars: 40 });
    expect(out.length).toBeLessThanOrEqual(40);
    const user = JSON.parse((fake.requests[0]!.json as ChatRequest).messages[1]!.content);
    expect(user).toMatchObject({ task: 'rewrite', language: 'en', text, max_chars: 40 });
    expect(fake.violations()).toEqual([]);
  });
});
