// AI rewrite of a segment in the editor (issue 15) against the fake OpenAI-compatible server: Shorten to fit asks
// for a text that fits the segment's slot at the voice's speech rate (max_chars from the slot and the language's
// rate), Rephrase and a free instruction; nothing is saved; plan, access and configuration refusals over HTTP.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { SegmentRewriteResponse } from '../../../contract/schemas/tools';
import { AI_REWRITE_NOT_CONFIGURED } from '../../../server/domains/tools/service';
import { FakeOpenAi, type ChatRequest } from '../../fakes/openai';
import { makeSilentVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import type { components } from '../../../src/lib/api/schema';
import { issuesOf, typedClient } from '../typed-client';
import { api, newUser, seedProject, uploadOk, type TestUser } from './projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';

const KEY = 'sk-rewrite-test-key-ABCDEFGHIJKLMNOP0123456789';
let fake: FakeOpenAi;
let h: Harness;
let off: Harness;
let pro: TestUser;
let projectId: string;
let segId: string;

/** The fake model: answers with a text of at most max_chars (or a rephrasing marker). */
function model(body: ChatRequest): string {
  const user = JSON.parse(body.messages.find((m) => m.role === 'user')!.content) as { text: string; max_chars?: number; instructions?: string };
  const text = user.max_chars ? user.text.slice(0, user.max_chars) : `Otra forma: ${user.text}`;
  return JSON.stringify({ text });
}

beforeAll(async () => {
  fake = await new FakeOpenAi({ apiKey: KEY, chatModel: 'chat', chat: model }).start();
  h = await createHarness({ LLM_ENGINE: 'openai', OPENAI_CHAT_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: KEY, OPENAI_CHAT_MODEL: 'chat', ENGINE_HTTP_MAX_ATTEMPTS: '1' });
  off = await createHarness();
  pro = await newUser(h, 'pro');
  await grantPlan(h, pro.id, 'creator_pro');
  const mediaId = await uploadOk(h, pro, await makeSilentVideo({ seconds: 1 }));
  projectId = await seedProject(h, pro, {
    mediaId,
    segments: [{ start: 1, end: 3, speaker: 'SPEAKER_0', src: 'We are going to talk about open source dubbing today.', dst: 'Hoy vamos a hablar sobre el doblaje de código abierto y mucho más todavía.' }],
  });
  segId = (await h.deps.db.one<{ id: string }>('SELECT id FROM segments WHERE project_id = $1', [projectId])).id;
}, 240_000);
afterAll(async () => {
  await h?.close();
  await off?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

const rewrite = (body: components['schemas']['SegmentRewriteRequest'], u: TestUser = pro, seg = segId, hh = h, pid = projectId) =>
  typedClient(hh, u.token).POST('/api/project/{id}/transcript/{segmentId}/rewrite', { params: { path: { id: pid, segmentId: seg } }, body });
function lastUserMessage() {
  const reqs = fake.requestsTo('POST', '/v1/chat/completions');
  const body = reqs[reqs.length - 1]!.json as ChatRequest;
  return JSON.parse(body.messages.find((m) => m.role === 'user')!.content) as Record<string, unknown>;
}

describe('POST /api/project/{id}/transcript/{segmentId}/rewrite', () => {
  it('Shorten to fit: asks for what is spoken in the slot at the voice speech rate, and proposes without saving', async () => {
    const r = await rewrite({ mode: 'shorten' });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const p = v.parse(SegmentRewriteResponse, r.data);
    // 2 s slot x 15.5 characters per second (Spanish) = 31 characters.
    expect(p).toMatchObject({ mode: 'shorten', slot_sec: 2, chars_per_sec: 15.5, max_chars: 31 });
    expect(p.text.length).toBeLessThanOrEqual(31);
    const sent = lastUserMessage();
    expect(sent).toMatchObject({ max_chars: 31, text: 'Hoy vamos a hablar sobre el doblaje de código abierto y mucho más todavía.' });
    expect(String(sent.instructions)).toMatch(/2\.0 s slot by the voice ".+": at that voice's speech rate, at most 31 characters fit \(it has 74\)/);
    const t = await typedClient(h, pro.token).GET('/api/project/{id}/transcript', { params: { path: { id: projectId } } });
    expect(t.data!.segments[0]!.dst.text).toBe('Hoy vamos a hablar sobre el doblaje de código abierto y mucho más todavía.');
  });

  it('Rephrase and a free instruction work on the text being edited', async () => {
    const r = await rewrite({ mode: 'rephrase', text: 'Texto sin guardar.' });
    expect(r.data!.text).toBe('Otra forma: Texto sin guardar.');
    expect(lastUserMessage()).not.toHaveProperty('max_chars');
    const i = await rewrite({ mode: 'instruction', instructions: 'Make it formal' });
    expect(i.response.status).toBe(200);
    expect(String(lastUserMessage().instructions)).toContain('Make it formal');
  });

  it('refuses bad input clearly', async () => {
    expect(issuesOf((await rewrite({ mode: 'instruction' })).error)[0]).toMatchObject({ loc: ['body', 'instructions'], msg: 'Write what to do with the line' });
    // Malformed on purpose: a mode the types refuse.
    expect((await api(h, 'POST', `/api/project/${projectId}/transcript/${segId}/rewrite`, { token: pro.token, body: { mode: 'louder' } })).status).toBe(422);
    expect(issuesOf((await rewrite({ mode: 'shorten', text: '   ' })).error)[0]!.msg).toBe('The translation is empty: write it first');
    const missing = await rewrite({ mode: 'shorten' }, pro, '00000000-0000-4000-8000-000000000000');
    expect(missing.response.status).toBe(404);
    expect(fake.requestsTo('POST', '/v1/chat/completions')).toHaveLength(0);
  });

  it('a plan without AI rewrite is refused (403 feature refusal); a stranger gets no access', async () => {
    const trial = await newUser(h, 'trial');
    const mediaId = await uploadOk(h, trial, await makeSilentVideo({ seconds: 1 }));
    const own = await seedProject(h, trial, { mediaId });
    const s = (await h.deps.db.one<{ id: string }>('SELECT id FROM segments WHERE project_id = $1 LIMIT 1', [own])).id;
    const r = await rewrite({ mode: 'shorten' }, trial, s, h, own);
    expect(r.response.status).toBe(403);
    expect(r.error).toMatchObject({ feature: 'ai_rewrite', code: 'feature_not_in_plan' });
    expect((await rewrite({ mode: 'shorten' }, trial)).response.status).toBe(403);
    expect(fake.requestsTo('POST', '/v1/chat/completions')).toHaveLength(0);
  });

  it('without an LLM engine: 503 saying what to configure, and the settings say the plan has it but it is not configured', async () => {
    const u = await newUser(off, 'offpro');
    await grantPlan(off, u.id, 'creator_pro');
    const mediaId = await uploadOk(off, u, await makeSilentVideo({ seconds: 1 }));
    const pid = await seedProject(off, u, { mediaId });
    const s = (await off.deps.db.one<{ id: string }>('SELECT id FROM segments WHERE project_id = $1 LIMIT 1', [pid])).id;
    const r = await rewrite({ mode: 'shorten' }, u, s, off, pid);
    expect(r.response.status).toBe(503);
    expect(r.error).toEqual({ detail: AI_REWRITE_NOT_CONFIGURED });
    const st = await typedClient(off, u.token).GET('/api/settings');
    expect(st.data!.scope_settings.available_features.ai_rewrite).toEqual({ enabled: false, visible: true, metadata: { not_configured: true } });
    const trial = await newUser(off, 'offtrial');
    const st2 = await typedClient(off, trial.token).GET('/api/settings');
    expect(st2.data!.scope_settings.available_features.ai_rewrite!.metadata).toEqual({});
  });
});
