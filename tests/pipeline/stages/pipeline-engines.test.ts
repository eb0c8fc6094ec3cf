// The whole pipeline with every model stage on the fake model servers of tests/fakes, configured the way
// an operator does it (environment variables through loadConfig -> config.engines -> the registry):
//   1. ASR_ENGINE=openai, MT_ENGINE=deepl (the project's dictionary as a DeepL glossary), TTS_ENGINE=elevenlabs;
//   2. ASR, MT and TTS all on one OpenAI-compatible server.
// Checked: the settings' languages follow the configuration, the fakes received the documented requests,
// the project reaches translation_done and merging_done with its outputs, a 401 ends the stage in its
// failure status naming the engine without the key showing anywhere, and deleting a project aborts its
// in-flight engine call.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Language } from '../../../contract/schemas/settings';
import { probe } from '../../../server/media/probe';
import type { StageName } from '../../../server/domains/projects/pipeline/stages';
import { FakeDeepL } from '../../fakes/deepl';
import { FakeElevenLabs } from '../../fakes/elevenlabs';
import { FakeOpenAi, type ChatRequest } from '../../fakes/openai';
import { header } from '../../fakes/base';
import { makeSpeechVideo, tempDir } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { createProject, newUser, replacePipeline, uploadOk, waitForStatus, type TestUser } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';
import type { components } from '../../../src/lib/api/schema';
import { grantPlan } from '../../server/spaces/spaces-fixtures';

const SECONDS = 8;
const OPENAI_KEY = 'sk-e2e-openai-KEY-9f8e7d6c5b4a39281706';
const DEEPL_KEY = 'e2e-deepl-KEY-0a1b2c3d4e5f:fx';
const XI_KEY = 'e2e-xi-KEY-77aa88bb99cc';
const KEYS = [OPENAI_KEY, DEEPL_KEY, XI_KEY];
const dir = tempDir('engines-e2e-');

let openai: FakeOpenAi;
let deepl: FakeDeepL;
let eleven: FakeElevenLabs;
// Everything the process prints while these tests run (adapter and pipeline logs), to check for keys.
const printed: string[] = [];

beforeAll(async () => {
  openai = await new FakeOpenAi({ apiKey: OPENAI_KEY, asrModel: 'whisper-1', ttsModel: 'tts-1', chatModel: 'gpt-4o-mini' }).start();
  deepl = await new FakeDeepL({ apiKey: DEEPL_KEY }).start();
  eleven = await new FakeElevenLabs({ apiKey: XI_KEY }).start();
  for (const m of ['log', 'error', 'warn', 'info'] as const) {
    vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
      printed.push(args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === 'string' ? a : JSON.stringify(a))).join(' '));
    });
  }
});
afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.all([openai?.close(), deepl?.close(), eleven?.close()]);
});

const common = { ENGINE_HTTP_MAX_ATTEMPTS: '2', ENGINE_HTTP_TIMEOUT_MS: '60000' };

interface JobEnd { projectId: string; stage: StageName; outcome: string; error?: string }

/** A harness configured by `env`, its pipeline processing with a log and job-end recorder. */
async function start(env: Record<string, string>) {
  const h = await createHarness({ ...common, ...env });
  const u = await newUser(h, 'engines');
  // Subtitles, SRT and the dictionary are plan features (server/app/gates.ts): a Business plan.
  await grantPlan(h, u.id, 'business');
  const ends: JobEnd[] = [];
  const logs: string[] = [];
  const p = await replacePipeline(h, {
    heartbeatMs: 500,
    staleSec: 30,
    log: (m, meta) => logs.push(`${m} ${JSON.stringify(meta ?? {})}`),
    onJobEnd: (e) => ends.push(e),
  });
  await p.startWorker(1);
  return { h, u, ends, logs };
}

function expectNoKey(where: string, text: string) {
  for (const k of KEYS) {
    expect(text, where).not.toContain(k);
    expect(text, where).not.toContain(k.slice(0, 14));
  }
}

/** Every API view of a project (detail, list, transcript) must be free of keys. */
async function expectNoKeyInApi(h: Harness, u: TestUser, id: string) {
  const c = typedClient(h, u.token);
  const views = {
    detail: await c.GET('/api/project/{id}', { params: { path: { id } } }),
    list: await c.GET('/api/project/paginated', { params: { query: { space_id: u.defaultSpaceId } } }),
    transcript: await c.GET('/api/project/{id}/transcript', { params: { path: { id } } }),
    settings: await c.GET('/api/settings'),
  };
  for (const [view, r] of Object.entries(views)) {
    expect(r.response.status, view).toBe(200);
    expectNoKey(view, JSON.stringify(r.data));
  }
}

async function segmentsOf(h: Harness, u: TestUser, id: string) {
  const t = await typedClient(h, u.token).GET('/api/project/{id}/transcript', { params: { path: { id } } });
  expect(t.response.status, JSON.stringify(t.error)).toBe(200);
  return t.data!.segments;
}

async function uploadAndCreate(h: Harness, u: TestUser, body: Record<string, unknown> = {}) {
  const video = await makeSpeechVideo({ seconds: SECONDS });
  const mediaId = await uploadOk(h, u, video);
  const r = await createProject(h, u, { name: 'Engines', src_lang: 'en', dst_lang: 'es', media_id: mediaId, ...body });
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  return r.data!.id;
}

type MediaType = components['schemas']['MediaDownloadRequest']['media_type'];

/** The signed URL of one output. */
async function mediaUrl(h: Harness, u: TestUser, id: string, type: MediaType): Promise<string> {
  const r = await typedClient(h, u.token).POST('/api/project/{id}/media_download', { params: { path: { id } }, body: { media_type: type } });
  expect(r.response.status, `${type}: ${JSON.stringify(r.error)}`).toBe(200);
  return r.data!.url;
}

async function download(h: Harness, u: TestUser, id: string, type: MediaType): Promise<string> {
  const res = await h.app.request(await mediaUrl(h, u, id, type));
  expect(res.status).toBe(200);
  const out = join(dir, `${id}-${type}`);
  writeFileSync(out, Buffer.from(await res.arrayBuffer()));
  return out;
}

async function expectFinished(h: Harness, u: TestUser, id: string) {
  const p = await waitForStatus(h, u, id, (s) => s === 'merging_done' || /failed/.test(s), 170_000);
  expect(p).toMatchObject({ status: 'merging_done', progress: 100, error_message: null });
  for (const f of ['cover', 'translated_audio', 'translated_video', 'voiceover', 'translation_srt_path', 'translation_vtt_path'] as const) {
    expect(p[f], f).toMatch(/^\/api\/files\//);
  }
  const video = await probe(await download(h, u, id, 'video'));
  expect(video.hasAudio).toBe(true);
  expect(video.audioCodec).toBe('aac');
  expect(Math.abs(video.durationSec - SECONDS)).toBeLessThan(0.2);
  const srt = await (await h.app.request(await mediaUrl(h, u, id, 'srt'))).text();
  return { project: p, srt };
}

const values = (l: Language[]) => l.map((x) => x.value);

describe('ASR_ENGINE=openai, MT_ENGINE=deepl, TTS_ENGINE=elevenlabs', () => {
  let h: Harness;
  let u: TestUser;
  let ends: JobEnd[];
  let logs: string[];
  let id: string;

  beforeAll(async () => {
    openai.reset();
    deepl.reset();
    eleven.reset();
    ({ h, u, ends, logs } = await start({
      ASR_ENGINE: 'openai',
      OPENAI_BASE_URL: openai.url, // a bare host: the adapter adds /v1
      OPENAI_API_KEY: OPENAI_KEY,
      MT_ENGINE: 'deepl',
      DEEPL_API_KEY: DEEPL_KEY,
      DEEPL_BASE_URL: deepl.url,
      TTS_ENGINE: 'elevenlabs',
      ELEVENLABS_API_KEY: XI_KEY,
      ELEVENLABS_BASE_URL: eleven.url,
    }));
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  it('the settings languages come from the configured engines', async () => {
    const r = await typedClient(h, u.token).GET('/api/settings');
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const { languages } = r.data!;
    // Whisper brings Japanese (pocketsphinx is English only); DeepL brings glossaries; ElevenLabs cloning.
    expect(values(languages.transcription)).toEqual(expect.arrayContaining(['en', 'ja']));
    const es = languages.translation.find((l) => l.value === 'es');
    expect(es).toMatchObject({ is_glossary_available: true, voice_clone: true, is_voice_preset_available: true });
    const en = languages.transcription.find((l) => l.value === 'en');
    expect(en?.is_glossary_available).toBe(true);
  });

  it('analysis: Whisper-style transcription and DeepL translation with the dictionary as a glossary', async () => {
    const g = await h.deps.db.one<{ id: string }>(
      `INSERT INTO glossaries (space_id, name, src_lang, dst_lang, terms) VALUES ($1, 'Show terms', 'en', 'es', $2::jsonb) RETURNING id`,
      [u.defaultSpaceId, JSON.stringify([{ source: 'channel', target: 'canal' }, { source: 'open source', target: 'código abierto' }])],
    );
    id = await uploadAndCreate(h, u, { glossary_id: g.id });
    const p = await waitForStatus(h, u, id, (s) => s === 'translation_done' || /failed|^no_/.test(s), 170_000);
    expect(p).toMatchObject({ status: 'translation_done', progress: 100, error_message: null, tts_provider: 'elevenlabs' });
    expect(p.speakers.length).toBeGreaterThanOrEqual(1);
    const voiceIds = eleven.voices.map((x) => x.voice_id);
    for (const s of p.speakers) expect(voiceIds).toContain(s.voice_id);

    // OpenAI transcription requests: multipart WAV, model, verbose_json, word+segment timestamps, language.
    const asr = openai.requestsTo('POST', '/v1/audio/transcriptions');
    expect(asr.length).toBeGreaterThanOrEqual(1);
    for (const r of asr) {
      expect(header(r, 'authorization')).toBe(`Bearer ${OPENAI_KEY}`);
      expect(r.multipart!.fields.model).toEqual(['whisper-1']);
      expect(r.multipart!.fields.response_format).toEqual(['verbose_json']);
      expect(r.multipart!.fields['timestamp_granularities[]']).toEqual(['word', 'segment']);
      expect(r.multipart!.fields.language).toEqual(['en']);
      expect(r.multipart!.files[0]!.data.subarray(0, 4).toString('ascii')).toBe('RIFF');
    }
    // DeepL: the dictionary became a glossary, and every translate call used it.
    const created = deepl.requestsTo('POST', '/v2/glossaries');
    expect(created).toHaveLength(1);
    expect(header(created[0]!, 'authorization')).toBe(`DeepL-Auth-Key ${DEEPL_KEY}`);
    expect(created[0]!.json).toMatchObject({ source_lang: 'en', target_lang: 'es' });
    const entries = String((created[0]!.json as { entries: string }).entries);
    expect(entries).toContain('channel');
    expect(entries).toContain('canal');
    const translate = deepl.requestsTo('POST', '/v2/translate');
    expect(translate.length).toBeGreaterThanOrEqual(1);
    const glossaryId = [...deepl.glossaries.keys()][0];
    for (const r of translate) {
      expect(header(r, 'authorization')).toBe(`DeepL-Auth-Key ${DEEPL_KEY}`);
      expect(r.json).toMatchObject({ source_lang: 'EN', target_lang: 'ES', glossary_id: glossaryId });
    }

    const segs = await segmentsOf(h, u, id);
    expect(segs.length).toBeGreaterThanOrEqual(1);
    const spoken = segs.map((s) => s.src.text).join(' ');
    // The fake's transcript phrase, placed back on the project's timeline.
    expect(spoken).toMatch(/welcome back to the channel/);
    for (const s of segs) {
      expect(s.end).toBeGreaterThan(s.start);
      expect(s.end).toBeLessThanOrEqual(SECONDS + 0.01);
      expect(s.dst.text.startsWith('ES:'), s.dst.text).toBe(true);
      expect(s.dst.text).not.toMatch(/\bchannel\b/);
    }
    expect(segs.map((s) => s.dst.text).join(' ')).toContain('canal');
    expect(openai.violations()).toEqual([]);
    expect(deepl.violations()).toEqual([]);
  });

  it('a 401 from ElevenLabs ends the voiceover in voiceover_failed naming the engine; the key shows nowhere', async () => {
    eleven.fail({ kind: 'status', status: 401, body: { detail: { status: 'invalid_api_key', message: `Invalid API key: ${XI_KEY}` } } }, 20);
    const g = await typedClient(h, u.token).POST('/api/project/{id}/generate', { params: { path: { id } } });
    expect(g.response.status, JSON.stringify(g.error)).toBe(200);
    const p = await waitForStatus(h, u, id, (s) => s === 'voiceover_failed' || s === 'merging_done' || s === 'merging_failed', 120_000);
    eleven.clearFaults();
    expect(p.status).toBe('voiceover_failed');
    expect(p.error_message).toMatch(/engine elevenlabs rejected the credentials/);
    expectNoKey('error_message', p.error_message ?? '');
    await expectNoKeyInApi(h, u, id);
    const jobs = await h.deps.db.query<{ error: string | null }>(`SELECT error FROM pipeline_jobs WHERE project_id = $1`, [id]);
    expectNoKey('pipeline_jobs.error', JSON.stringify(jobs));
    // Reported just after the status is written: wait for the report.
    await vi.waitFor(() => expect(ends.find((e) => e.projectId === id && e.stage === 'voiceover')).toMatchObject({ outcome: 'failed' }));
    // The failure was logged (with its stack), without the key.
    expect(logs.join('\n')).toMatch(/stage failed.*engine elevenlabs rejected the credentials/);
    expectNoKey('pipeline log', logs.join('\n'));
  });

  it('generate: ElevenLabs speech with voice_settings, merged into the dubbed video', async () => {
    eleven.requests.length = 0;
    const g = await typedClient(h, u.token).POST('/api/project/{id}/generate', { params: { path: { id } } });
    expect(g.response.status, JSON.stringify(g.error)).toBe(200);
    const { project, srt } = await expectFinished(h, u, id);
    const segs = await segmentsOf(h, u, id);
    const tts = eleven.requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/text-to-speech/'));
    expect(tts.length).toBeGreaterThanOrEqual(1);
    const voices = new Set(project.speakers.map((s) => s.voice_id));
    for (const r of tts) {
      expect(header(r, 'xi-api-key')).toBe(XI_KEY);
      expect(r.query.get('output_format')).toBe('pcm_24000');
      expect(voices.has(decodeURIComponent(r.path.split('/').pop()!))).toBe(true);
      const b = r.json as { text: string; model_id: string; voice_settings: { stability: number; similarity_boost: number } };
      expect(b.model_id).toBe('eleven_multilingual_v2');
      // No voice preset is stored for projects yet: the adapter's defaults (stability 0.5, similarity_boost 0.75).
      expect(b.voice_settings).toMatchObject({ stability: 0.5, similarity_boost: 0.75 });
    }
    // The failed run kept no clip (every call was refused): each segment's line was spoken by ElevenLabs now.
    const texts = new Set(tts.map((r) => (r.json as { text: string }).text));
    for (const s of segs) expect(texts.has(s.dst.text), s.dst.text).toBe(true);
    expect(tts.length).toBeGreaterThanOrEqual(segs.length);
    for (const s of segs) expect(srt).toContain(s.dst.text);
    expect(eleven.violations()).toEqual([]);
    await expectNoKeyInApi(h, u, id);
  });
});

describe('ASR, MT and TTS on one OpenAI-compatible server', () => {
  let h: Harness;
  let u: TestUser;
  let ends: JobEnd[];
  let logs: string[];

  beforeAll(async () => {
    openai.reset();
    ({ h, u, ends, logs } = await start({
      ASR_ENGINE: 'openai',
      MT_ENGINE: 'openai',
      TTS_ENGINE: 'openai',
      LLM_ENGINE: 'openai',
      OPENAI_BASE_URL: `${openai.url}/v1`,
      OPENAI_API_KEY: OPENAI_KEY,
    }));
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  it('runs the whole pipeline: transcription, chat translation with the glossary and length budgets, speech', async () => {
    const g = await h.deps.db.one<{ id: string }>(
      `INSERT INTO glossaries (space_id, name, src_lang, dst_lang, terms) VALUES ($1, 'Terms', 'en', 'es', $2::jsonb) RETURNING id`,
      [u.defaultSpaceId, JSON.stringify([{ source: 'channel', target: 'canal' }])],
    );
    const id = await uploadAndCreate(h, u, { glossary_id: g.id });
    const p = await waitForStatus(h, u, id, (s) => s === 'translation_done' || /failed|^no_/.test(s), 170_000);
    expect(p).toMatchObject({ status: 'translation_done', error_message: null, tts_provider: 'openai' });

    const chats = openai.requestsTo('POST', '/v1/chat/completions');
    expect(chats.length).toBeGreaterThanOrEqual(1);
    const first = JSON.parse((chats[0]!.json as ChatRequest).messages.find((m) => m.role === 'user')!.content);
    expect(first).toMatchObject({ source_language: 'en', target_language: 'es', glossary: [{ source: 'channel', target: 'canal' }] });
    for (const s of first.segments as Array<{ max_chars: number }>) expect(s.max_chars).toBeGreaterThan(0);
    for (const r of chats) {
      expect(header(r, 'authorization')).toBe(`Bearer ${OPENAI_KEY}`);
      expect((r.json as ChatRequest).model).toBe('gpt-4o-mini');
    }
    const segs = await segmentsOf(h, u, id);
    for (const s of segs) expect(s.dst.text).toMatch(/^\[es\]/);

    const gen = await typedClient(h, u.token).POST('/api/project/{id}/generate', { params: { path: { id } } });
    expect(gen.response.status, JSON.stringify(gen.error)).toBe(200);
    const { project } = await expectFinished(h, u, id);
    const speech = openai.requestsTo('POST', '/v1/audio/speech');
    expect(speech).toHaveLength(segs.length);
    const voices = new Set(project.speakers.map((s) => s.voice_id));
    for (const r of speech) {
      const b = r.json as { model: string; input: string; voice: string; response_format: string; speed?: number };
      expect(b).toMatchObject({ model: 'tts-1', response_format: 'wav' });
      expect(voices.has(b.voice)).toBe(true);
    }
    expect(speech.map((r) => (r.json as { input: string }).input).sort()).toEqual(segs.map((s) => s.dst.text).sort());
    expect(openai.violations()).toEqual([]);
  });

  it('a 401 on transcription ends in transcription_failed naming the engine; the echoed key is not shown', async () => {
    // OpenAI echoes the presented key in its 401 message.
    openai.fail(
      { kind: 'status', status: 401, body: { error: { message: `Incorrect API key provided: ${OPENAI_KEY}.`, type: 'invalid_request_error', code: 'invalid_api_key' } } },
      1,
      '/v1/audio/transcriptions',
    );
    const id = await uploadAndCreate(h, u);
    const p = await waitForStatus(h, u, id, (s) => /failed|^no_|transcription_done/.test(s), 170_000);
    expect(p.status).toBe('transcription_failed');
    expect(p.error_message).toBe('engine openai rejected the credentials (HTTP 401)');
    await expectNoKeyInApi(h, u, id);
    // Reported just after the status is written: wait for the report.
    await vi.waitFor(() => expect(ends.find((e) => e.projectId === id && e.stage === 'transcription')).toMatchObject({ outcome: 'failed' }));
    expect(logs.join('\n')).toMatch(/stage failed.*engine openai rejected the credentials/);
    expectNoKey('pipeline log', logs.join('\n'));
  });

  it('deleting a project aborts its in-flight engine call', async () => {
    openai.fail({ kind: 'hang' }, 1, '/v1/audio/transcriptions');
    const before = openai.requestsTo('POST', '/v1/audio/transcriptions').length;
    const id = await uploadAndCreate(h, u);
    const t0 = Date.now();
    while (openai.requestsTo('POST', '/v1/audio/transcriptions').length === before) {
      if (Date.now() - t0 > 120_000) throw new Error('the transcription request never arrived');
      await new Promise((r) => setTimeout(r, 100));
    }
    const del = await typedClient(h, u.token).DELETE('/api/project/{id}', { params: { path: { id } } });
    expect(del.response.status, JSON.stringify(del.error)).toBe(200);
    const t1 = Date.now();
    // The engine timeout is 60 s: ending well before it means the call itself was aborted (30 s leaves a loaded
    // machine plenty of room; the abort normally takes well under a second).
    while (!ends.some((e) => e.projectId === id && e.stage === 'transcription')) {
      if (Date.now() - t1 > 30_000) throw new Error('the transcription stage did not stop after the delete');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(ends.find((e) => e.projectId === id && e.stage === 'transcription')).toMatchObject({ outcome: 'cancelled' });
    expect(Date.now() - t1).toBeLessThan(30_000);
    expect((await typedClient(h, u.token).GET('/api/project/{id}', { params: { path: { id } } })).response.status).toBe(404);
    // No retry was sent after the abort.
    expect(openai.requestsTo('POST', '/v1/audio/transcriptions').length).toBe(before + 1);
  });
});

describe('built-in engines (nothing configured)', () => {
  it('do not offer Japanese; the AI rewrite feature is off', async () => {
    const h = await createHarness();
    try {
      const r = await typedClient(h).GET('/api/settings');
      expect(r.response.status, JSON.stringify(r.error)).toBe(200);
      expect(values(r.data!.languages.transcription)).toContain('en');
      expect(values(r.data!.languages.transcription)).not.toContain('ja');
      expect(r.data!.scope_settings.available_features.ai_rewrite.enabled).toBe(false);
    } finally {
      await h.close();
    }
  });
});

afterAll(() => {
  // Nothing printed by the adapters or the pipeline while these ran contains a key.
  expectNoKey('console output', printed.join('\n'));
});
