// ElevenLabs adapter against the fake API: text-to-speech with voice settings, the voices list,
// instant voice cloning, and failures that must not leave audio files behind.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createElevenLabsTts } from '../../../../server/engines/adapters/elevenlabs';
import { EngineAdapterError, EngineAuthError, EngineResponseError } from '../../../../server/engines/adapters/errors';
import { isAbortError } from '../../../../server/media/errors';
import { readWavInfo } from '../../../../server/media/wav';
import { toneWav, tonePcm } from '../../../fakes/base';
import { FakeElevenLabs } from '../../../fakes/elevenlabs';
import { caught, collectLog, recordingSleep, tempDir } from '../../../fakes/util';

const KEY = 'fake-xi-key-51ab0e77c2';
let fake: FakeElevenLabs;
let dir: string;
const mk = (o: { key?: string; modelId?: string; log?: (l: string) => void } = {}) =>
  createElevenLabsTts({
    apiKey: o.key ?? KEY,
    baseUrl: fake.url,
    modelId: o.modelId,
    http: { sleep: recordingSleep().sleep, log: o.log ?? (() => {}), retry: { maxAttempts: 3 }, timeoutMs: 5000 },
  });

beforeAll(async () => {
  fake = await new FakeElevenLabs({ apiKey: KEY }).start();
  dir = tempDir('eleven-');
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

describe('POST /v1/text-to-speech/{voice_id}', () => {
  it('sends model_id and voice_settings (stability, similarity_boost) with xi-api-key and writes a WAV', async () => {
    const tts = mk();
    await tts.init!();
    const out = join(dir, 'a.wav');
    const text = 'Hola a todos, bienvenidos.';
    const { durationSec } = await tts.synthesize({
      text,
      lang: 'es',
      voiceId: '21m00Tcm4TlvDq8ikWAM',
      rate: 1,
      outPath: out,
      voiceSettings: { stability: 0.3, similarityBoost: 0.9 },
    });
    expect(fake.violations()).toEqual([]);
    const r = fake.requestsTo('POST', /^\/v1\/text-to-speech\//)[0]!;
    expect(r.path).toBe('/v1/text-to-speech/21m00Tcm4TlvDq8ikWAM');
    expect(r.query.get('output_format')).toBe('pcm_24000');
    expect(r.headers['xi-api-key']).toBe(KEY);
    expect(r.json).toEqual({ text, model_id: 'eleven_multilingual_v2', voice_settings: { stability: 0.3, similarity_boost: 0.9 } });
    expect(durationSec).toBeCloseTo(text.length * 0.06, 2);
    const info = readWavInfo(out);
    expect(info.sampleRate).toBe(24000);
    expect(info.channels).toBe(1);
    expect(info.durationSec).toBeCloseTo(durationSec, 4);
  });

  it('uses default settings, sends speed for a rate, and language_code for v2.5 models', async () => {
    const tts = mk({ modelId: 'eleven_turbo_v2_5' });
    await tts.synthesize({ text: 'Hej', lang: 'sv', voiceId: 'pNInz6obpgDQGcFmaJgB', rate: 1.5, outPath: join(dir, 'b.wav') });
    expect(fake.violations()).toEqual([]);
    expect(fake.requests.at(-1)!.json).toEqual({
      text: 'Hej',
      model_id: 'eleven_turbo_v2_5',
      voice_settings: { stability: 0.5, similarity_boost: 0.75, speed: 1.2 },
      language_code: 'sv',
    });
    expect(tts.languages()).toContain('vi');
    expect(mk().languages()).not.toContain('vi');
  });

  it('an odd-length (cut) PCM stream is refused and leaves no file', async () => {
    fake.fail({ kind: 'raw', headers: { 'Content-Type': 'audio/pcm' }, body: tonePcm(1000, 24000).subarray(0, 1999) });
    const out = join(dir, 'cut.wav');
    const err = await mk()
      .synthesize({ text: 'Hi', lang: 'en', voiceId: '21m00Tcm4TlvDq8ikWAM', rate: 1, outPath: out })
      .catch(caught);
    expect(err).toBeInstanceOf(EngineResponseError);
    expect(existsSync(out)).toBe(false);
  });

  it('a connection cut mid-stream fails after bounded retries; an existing file stays as it was', async () => {
    fake.fail({ kind: 'truncate' }, 3);
    const out = join(dir, 'keep.wav');
    writeFileSync(out, 'old');
    const err = await mk()
      .synthesize({ text: 'Hi', lang: 'en', voiceId: '21m00Tcm4TlvDq8ikWAM', rate: 1, outPath: out })
      .catch(caught);
    expect(err).toBeInstanceOf(EngineResponseError);
    expect(fake.requests).toHaveLength(3);
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
    expect(readFileSync(out, 'utf8')).toBe('old');
  });

  it('401 names the engine and hides the key; a 401 for quota is a quota failure', async () => {
    const bad = 'bad-xi-key-secret-00000';
    const { log, lines } = collectLog();
    const err = await mk({ key: bad, log })
      .synthesize({ text: 'Hi', lang: 'en', voiceId: '21m00Tcm4TlvDq8ikWAM', rate: 1, outPath: join(dir, 'x.wav') })
      .catch(caught);
    expect(err).toBeInstanceOf(EngineAuthError);
    expect(err.message).toContain('engine elevenlabs rejected the credentials');
    expect(err.message + lines.join('\n')).not.toContain(bad);

    fake.fail({ kind: 'status', status: 401, body: { detail: { status: 'quota_exceeded', message: 'This request exceeds your quota.' } } });
    const q = await mk()
      .synthesize({ text: 'Hi', lang: 'en', voiceId: '21m00Tcm4TlvDq8ikWAM', rate: 1, outPath: join(dir, 'x.wav') })
      .catch(caught);
    expect(q).toBeInstanceOf(EngineAdapterError);
    expect(q.reason).toBe('quota');
  });

  it('unknown voices are refused (after re-reading the list), unsupported languages before any request', async () => {
    const tts = mk();
    await tts.init!();
    fake.requests.length = 0;
    await expect(tts.synthesize({ text: 'Hi', lang: 'en', voiceId: 'nosuchvoice', rate: 1, outPath: join(dir, 'y.wav') })).rejects.toMatchObject({
      code: 'unknown_voice',
    });
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/voices']);
    await expect(tts.synthesize({ text: 'Hi', lang: 'xh', voiceId: '21m00Tcm4TlvDq8ikWAM', rate: 1, outPath: join(dir, 'y.wav') })).rejects.toMatchObject({
      code: 'unsupported_language',
    });
  });

  it('cancelling stops the call', async () => {
    fake.fail({ kind: 'hang' });
    const ctl = new AbortController();
    const out = join(dir, 'abort.wav');
    const before = fake.requests.length;
    const call = mk()
      .synthesize({ text: 'Hi', lang: 'en', voiceId: '21m00Tcm4TlvDq8ikWAM', rate: 1, outPath: out }, { signal: ctl.signal })
      .catch(caught);
    // Cancelled once the call hangs at the server (the next request gets the hang), not after a guessed delay.
    await fake.untilRequests(before + 1);
    ctl.abort();
    const err = await call;
    expect(isAbortError(err)).toBe(true);
    expect(existsSync(out)).toBe(false);
  });
});

describe('voices', () => {
  it('GET /v1/voices: every voice for every language of the model, with gender from the labels', async () => {
    const tts = mk();
    await tts.init!();
    expect(tts.lastInitError()).toBeNull();
    expect(fake.requests[0]!.headers['xi-api-key']).toBe(KEY);
    expect(tts.voices('ja')).toEqual([
      { id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', lang: 'ja', gender: 'female', pitch: 210, engine: 'elevenlabs' },
      { id: 'pNInz6obpgDQGcFmaJgB', name: 'Adam', lang: 'ja', gender: 'male', pitch: 120, engine: 'elevenlabs' },
    ]);
    expect(tts.voices('xh')).toEqual([]);
  });

  it('a failing voice list keeps the premade voices and a redacted reason', async () => {
    fake.fail({ kind: 'status', status: 500 }, 3);
    const tts = mk();
    await tts.init!();
    expect(tts.lastInitError()).toContain('HTTP 500');
    expect(tts.voices('en').map((v) => v.name)).toContain('Rachel');
  });
});

describe('instant voice cloning: POST /v1/voices/add', () => {
  it('uploads name + sample files as multipart and the new voice is usable', async () => {
    const s1 = join(dir, 'speaker1.wav');
    const s2 = join(dir, 'speaker1b.wav');
    writeFileSync(s1, toneWav(3, 16000));
    writeFileSync(s2, toneWav(2, 16000));
    const tts = mk();
    await tts.init!();
    const { voiceId, requiresVerification } = await tts.cloneVoice({
      name: 'Speaker 1 (project 42)',
      files: [s1, s2],
      labels: { gender: 'male' },
      removeBackgroundNoise: false,
    });
    expect(requiresVerification).toBe(false);
    expect(fake.violations()).toEqual([]);
    const r = fake.requestsTo('POST', '/v1/voices/add')[0]!;
    expect(r.headers['xi-api-key']).toBe(KEY);
    expect(r.multipart!.fields.name).toEqual(['Speaker 1 (project 42)']);
    expect(r.multipart!.fields.labels).toEqual(['{"gender":"male"}']);
    expect(r.multipart!.fields.remove_background_noise).toEqual(['false']);
    expect(r.multipart!.files.map((f) => [f.field, f.filename, f.contentType, f.data.length])).toEqual([
      ['files', 'speaker1.wav', 'audio/wav', 44 + 3 * 16000 * 2],
      ['files', 'speaker1b.wav', 'audio/wav', 44 + 2 * 16000 * 2],
    ]);
    expect(tts.voices('de').find((v) => v.id === voiceId)).toMatchObject({ name: 'Speaker 1 (project 42)', gender: 'male' });
    const { durationSec } = await tts.synthesize({ text: 'Guten Tag', lang: 'de', voiceId, rate: 1, outPath: join(dir, 'clone.wav') });
    expect(durationSec).toBeGreaterThan(0);

    await tts.deleteVoice(voiceId);
    expect(fake.voices.some((x) => x.voice_id === voiceId)).toBe(false);
    expect(tts.voices('de').some((v) => v.id === voiceId)).toBe(false);
  });

  it('a clone that timed out is not sent again (it may exist already)', async () => {
    const s1 = join(dir, 'speaker2.wav');
    writeFileSync(s1, toneWav(1, 16000));
    fake.fail({ kind: 'status', status: 500 }, 3, '/v1/voices/add');
    const err = await mk().cloneVoice({ name: 'Speaker 2', files: [s1] }).catch(caught);
    expect(err).toBeInstanceOf(EngineAdapterError);
    expect(fake.requestsTo('POST', '/v1/voices/add')).toHaveLength(1);
  });

  it('missing or empty samples are refused before any request', async () => {
    const empty = join(dir, 'empty.wav');
    writeFileSync(empty, '');
    const tts = mk();
    await expect(tts.cloneVoice({ name: 'x', files: [] })).rejects.toMatchObject({ code: 'bad_input' });
    await expect(tts.cloneVoice({ name: 'x', files: [join(dir, 'nope.wav')] })).rejects.toMatchObject({ code: 'bad_input' });
    await expect(tts.cloneVoice({ name: 'x', files: [empty] })).rejects.toMatchObject({ code: 'bad_input' });
    expect(fake.requests).toHaveLength(0);
  });
});
