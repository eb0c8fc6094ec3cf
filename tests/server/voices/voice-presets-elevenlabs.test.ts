// Voice presets with ElevenLabs instant voice cloning (TTS_ENGINE=elevenlabs), against the local stand-in that
// speaks the documented API (tests/fakes/elevenlabs.ts): POST /v1/voices/add (multipart name + files), speech with
// the cloned voice and the preset's voice_settings, DELETE /v1/voices/{id}; a clone the service refuses ends in
// status error with its reason; cloned voices are offered only as the space's presets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { librivoxWav } from '../../fixtures/media';
import { FakeElevenLabs } from '../../fakes/elevenlabs';
import { settleVoiceTasks } from '../../../server/domains/voices/service';
import { createHarness, type Harness } from '../harness';
import { eventually } from '../helpers';
import { newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let fake: FakeElevenLabs;
let pro: TestUser;

beforeAll(async () => {
  fake = await new FakeElevenLabs().start();
  h = await createHarness({ TTS_ENGINE: 'elevenlabs', ELEVENLABS_API_KEY: fake.opts.apiKey, ELEVENLABS_BASE_URL: fake.url, ENGINE_HTTP_MAX_ATTEMPTS: '1' });
  pro = await newUser(h, 'eleven');
  await grantPlan(h, pro.id, 'creator_pro');
}, 240_000);
afterAll(async () => {
  if (h) await settleVoiceTasks(h.deps);
  await h?.close();
  await fake?.close();
});

const as = () => typedClient(h, pro.token);
const statusOf = (id: string) =>
  eventually(() => as().GET('/api/voice_preset/statuses', { params: { query: { ids: id } } }), (r) => r.data![0]?.status !== 'processing', 30_000);
const create = (body: { label: string; media_id: string; similarity_boost?: number; stability?: number }) =>
  as().POST('/api/voice_preset/create', { params: { query: { space_id: pro.defaultSpaceId } }, body });

describe('ElevenLabs instant voice cloning', () => {
  it('clones the sample, speaks with the clone and its settings, and deletes it', async () => {
    const media = await uploadOk(h, pro, librivoxWav('0870'), { kind: 'audio' });
    const r = await create({ label: 'Reader', media_id: media, similarity_boost: 0.9, stability: 0.3 });
    expect(r.response.status, JSON.stringify(r.error)).toBe(201);
    expect(r.data).toMatchObject({ engine: 'elevenlabs', gender: 'male' });
    const id = r.data!.id;
    expect((await statusOf(id)).data![0]).toEqual({ id, status: 'done', error: null });

    const add = fake.requestsTo('POST', '/v1/voices/add');
    expect(add).toHaveLength(1);
    expect(add[0]!.multipart!.fields.name).toEqual(['Reader']);
    expect(add[0]!.multipart!.fields.labels).toEqual(['{"gender":"male"}']);
    expect(add[0]!.multipart!.files.map((f) => [f.field, f.filename, f.contentType])).toEqual([['files', 'sample.wav', 'audio/wav']]);
    const cloned = fake.voices.find((v) => v.category === 'cloned')!;
    expect(cloned.name).toBe('Reader');
    expect(fake.violations()).toEqual([]);
    expect((await as().GET('/api/voice_preset', { params: { query: { space_id: pro.defaultSpaceId } } })).data!.engine).toBe('elevenlabs');

    // a sample at chosen settings is spoken by the clone with those voice_settings
    const s = await h.request('GET', `/api/voice_preset/${id}/sample?language=es&similarity_boost=0.2&stability=0.7`, { token: pro.token });
    expect(s.status).toBe(200);
    expect(Buffer.from(await s.arrayBuffer()).subarray(0, 4).toString()).toBe('RIFF');
    const tts = fake.requestsTo('POST', `/v1/text-to-speech/${cloned.voice_id}`);
    expect(tts).toHaveLength(1);
    expect((tts[0]!.json as { voice_settings: unknown }).voice_settings).toEqual({ stability: 0.7, similarity_boost: 0.2 });

    // the project's voice pool offers the clone as the space's preset, not as a stock voice
    const video = await uploadOk(h, pro, librivoxWav('0870'), { kind: 'video' });
    const project = await seedProject(h, pro, { mediaId: video });
    const pool = (await as().GET('/api/project/{id}/voice_pool', { params: { path: { id: project } } })).data!.voices;
    expect(pool.map((v) => v.id)).toContain(`preset:${id}`);
    expect(pool.map((v) => v.id)).not.toContain(cloned.voice_id);

    const d = await as().DELETE('/api/voice_preset/{id}', { params: { path: { id } } });
    expect(d.response.status).toBe(200);
    expect(fake.requestsTo('DELETE', `/v1/voices/${cloned.voice_id}`)).toHaveLength(1);
    expect(fake.voices.some((v) => v.voice_id === cloned.voice_id)).toBe(false);
  }, 120_000);

  it('a clone the service refuses: status error with the reason', async () => {
    fake.fail({ kind: 'status', status: 400, body: { detail: { status: 'voice_limit_reached', message: 'You have reached your maximum amount of custom voices' } } }, 1, '/v1/voices/add');
    const media = await uploadOk(h, pro, librivoxWav('0880'), { kind: 'audio' });
    const r = await create({ label: 'Second', media_id: media });
    expect(r.response.status, JSON.stringify(r.error)).toBe(201);
    const st = (await statusOf(r.data!.id)).data![0]!;
    expect(st.status).toBe('error');
    expect(st.error).toMatch(/^The voice could not be made: /);
    expect(st.error).toMatch(/maximum amount of custom voices|400/);
  }, 120_000);
});
