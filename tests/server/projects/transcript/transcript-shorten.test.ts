// POST /api/project/{id}/transcript/{segmentId}/shorten (issue 29, "Length that fits"): a line over its budget is
// shortened and saved, by the LLM engine when one is configured (the fake OpenAI-compatible server) else by the
// offline rewrites; 409 when it fits, 422 when nothing can be shortened; members of the space only, plan-gated like
// the AI rewrite. The translation stage sends every engine the segments' budgets and records the dictionary rules.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { SegmentShortenResponse } from '../../../../contract/schemas/tools';
import { findProject } from '../../../../server/domains/projects/repository';
import { translation } from '../../../../server/domains/projects/stages/translation';
import { FakeOpenAi, type ChatRequest } from '../../../fakes/openai';
import { makeSilentVideo } from '../../../fixtures/media';
import { createHarness, type Harness } from '../../harness';
import { issuesOf, typedClient } from '../../typed-client';
import { newUser, seedProject, uploadOk, type TestUser } from '../projects-fixtures';
import { grantPlan } from '../../spaces/spaces-fixtures';

const KEY = 'sk-shorten-test-key-ABCDEFGHIJKLMNOP0123456789';
let fake: FakeOpenAi;
let llm: Harness;
let off: Harness;

/** The fake model: rewrites keep the first max_chars characters; translations are "ES:" + the text. */
function model(body: ChatRequest): string {
  const user = JSON.parse(body.messages.find((m) => m.role === 'user')!.content) as Record<string, unknown>;
  if (user.task === 'rewrite') {
    const text = String(user.text);
    const max = Number(user.max_chars ?? text.length);
    return JSON.stringify({ text: text.slice(0, max).trim() });
  }
  const segs = (user.segments ?? []) as Array<{ id: number; text?: string; previous_translation?: string; max_chars?: number }>;
  return JSON.stringify({
    translations: segs.map((s) => ({ id: s.id, text: s.previous_translation ? s.previous_translation.slice(0, s.max_chars) : `La NASA dijo: ${s.text}` })),
  });
}

const LONG = 'Bueno, vamos a hablar de el doblaje (de código abierto) hoy, o sea, ahora mismo, eh.';

async function projectFor(h: Harness, u: TestUser, segments: Array<{ start: number; end: number; src?: string; dst?: string }>): Promise<{ id: string; segs: string[] }> {
  const mediaId = await uploadOk(h, u, await makeSilentVideo({ seconds: 1 }));
  const id = await seedProject(h, u, { mediaId, segments: segments.map((s) => ({ speaker: 'SPEAKER_0', src: 'Some words.', ...s })) });
  const rows = await h.deps.db.query<{ id: string }>('SELECT id FROM segments WHERE project_id = $1 ORDER BY start_sec', [id]);
  return { id, segs: rows.map((r) => r.id) };
}

const shorten = (h: Harness, u: TestUser | null, pid: string, seg: string) =>
  typedClient(h, u?.token).POST('/api/project/{id}/transcript/{segmentId}/shorten', { params: { path: { id: pid, segmentId: seg } } });
const transcript = (h: Harness, u: TestUser, pid: string) => typedClient(h, u.token).GET('/api/project/{id}/transcript', { params: { path: { id: pid } } });

beforeAll(async () => {
  fake = await new FakeOpenAi({ apiKey: KEY, chatModel: 'chat', chat: model }).start();
  llm = await createHarness({ LLM_ENGINE: 'openai', OPENAI_CHAT_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: KEY, OPENAI_CHAT_MODEL: 'chat', ENGINE_HTTP_MAX_ATTEMPTS: '1', MT_ENGINE: 'openai' });
  off = await createHarness();
}, 240_000);
afterAll(async () => {
  await llm?.close();
  await off?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

describe('shorten without an LLM engine: the offline rewrites', () => {
  let pro: TestUser;
  beforeAll(async () => {
    pro = await newUser(off, 'offpro');
    await grantPlan(off, pro.id, 'creator_pro');
  }, 120_000);

  it('shortens an over-budget line, saves it and answers the segment as the transcript read does', async () => {
    // 2 s, then 1 s of silence: budget (2 + 0.5) x 15.5 = 38 characters
    const p = await projectFor(off, pro, [{ start: 1, end: 3, dst: LONG }, { start: 4, end: 5, dst: 'Bien.' }]);
    const r = await shorten(off, pro, p.id, p.segs[0]!);
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const body = v.parse(SegmentShortenResponse, r.data);
    expect(body).toMatchObject({ method: 'offline', budget_chars: 38, before_chars: LONG.length });
    expect(body.segment.dst.text).toBe('Vamos a hablar del doblaje hoy, ahora mismo.');
    expect(body.after_chars).toBeLessThan(body.before_chars);
    expect(body.after_chars).toBe(body.segment.dst.text.length);
    expect(body.segment.status).toBe('updated');
    const t = await transcript(off, pro, p.id);
    expect(t.data!.segments[0]).toEqual(body.segment);
    // nothing more to drop: 422; a line that fits: 409, each with a clear message
    const again = await shorten(off, pro, p.id, p.segs[0]!);
    expect(again.response.status).toBe(422);
    expect(issuesOf(again.error)[0]!.msg).toMatch(/cannot be shortened/);
    const fits = await shorten(off, pro, p.id, p.segs[1]!);
    expect(fits.response.status).toBe(409);
    // the last segment: 1 s x 15.5
    expect(fits.error!.detail).toBe('The line already fits: 5 characters, 15 fit its 1.0 s');
  });

  it('422 when no offline rewrite applies; 422 for an empty translation; 404 for an unknown segment', async () => {
    const p = await projectFor(off, pro, [{ start: 1, end: 1.5, dst: 'El perro come carne todos los días del año.' }, { start: 2, end: 3, dst: '' }]);
    const r = await shorten(off, pro, p.id, p.segs[0]!);
    expect(r.response.status).toBe(422);
    expect(issuesOf(r.error)[0]!.msg).toMatch(/cannot be shortened: no offline rewrite applies/);
    const empty = await shorten(off, pro, p.id, p.segs[1]!);
    expect(empty.response.status).toBe(422);
    expect(issuesOf(empty.error)[0]!.msg).toBe('The translation is empty: there is nothing to shorten');
    expect((await shorten(off, pro, p.id, '00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
    expect((await shorten(off, pro, p.id, 'nope')).response.status).toBe(404);
  });

  it('409 while the project is being processed (nothing saved)', async () => {
    const p = await projectFor(off, pro, [{ start: 1, end: 3, dst: LONG }]);
    await off.deps.db.query(`UPDATE projects SET status = 'translation_started' WHERE id = $1`, [p.id]);
    const r = await shorten(off, pro, p.id, p.segs[0]!);
    expect(r.response.status).toBe(409);
    const row = await off.deps.db.one<{ dst_text: string }>('SELECT dst_text FROM segments WHERE id = $1', [p.segs[0]]);
    expect(row.dst_text).toBe(LONG);
  });

  it('refuses outsiders, anonymous callers and a plan without the AI rewrite; an editor of the space may', async () => {
    const p = await projectFor(off, pro, [{ start: 1, end: 3, dst: LONG }]);
    const outsider = await newUser(off, 'outsider');
    await grantPlan(off, outsider.id, 'creator_pro');
    expect((await shorten(off, outsider, p.id, p.segs[0]!)).response.status).toBe(403);
    expect((await shorten(off, null, p.id, p.segs[0]!)).response.status).toBe(401);
    const trial = await newUser(off, 'trial');
    const own = await projectFor(off, trial, [{ start: 1, end: 3, dst: LONG }]);
    const refused = await shorten(off, trial, own.id, own.segs[0]!);
    expect(refused.response.status).toBe(403);
    expect(refused.error).toMatchObject({ feature: 'ai_rewrite', code: 'feature_not_in_plan' });
    const untouched = await off.deps.db.one<{ dst_text: string }>('SELECT dst_text FROM segments WHERE id = $1', [p.segs[0]]);
    expect(untouched.dst_text).toBe(LONG);
    const editor = await newUser(off, 'editor');
    await off.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [pro.defaultSpaceId, editor.id]);
    expect((await shorten(off, editor, p.id, p.segs[0]!)).response.status).toBe(200);
  });
});

describe('shorten with an LLM engine', () => {
  let pro: TestUser;
  beforeAll(async () => {
    pro = await newUser(llm, 'llmpro');
    await grantPlan(llm, pro.id, 'business');
  }, 120_000);

  it('asks the model for the budget and saves its shorter line', async () => {
    const p = await projectFor(llm, pro, [{ start: 1, end: 3, dst: LONG }]);
    const r = await shorten(llm, pro, p.id, p.segs[0]!);
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const body = v.parse(SegmentShortenResponse, r.data);
    // the last segment: no pause after, 2 s x 15.5 = 31
    expect(body).toMatchObject({ method: 'llm', budget_chars: 31, before_chars: LONG.length });
    expect(body.segment.dst.text).toBe(LONG.slice(0, 31).trim());
    expect(body.after_chars).toBeLessThanOrEqual(31);
    const sent = fake.requestsTo('POST', '/v1/chat/completions').map((q) => JSON.parse((q.json as ChatRequest).messages[1]!.content));
    expect(sent[0]).toMatchObject({ task: 'rewrite', max_chars: 31, text: LONG });
  });

  it('the translation stage sends each segment its budget (slot + pause) and records the dictionary rules', async () => {
    const p = await projectFor(llm, pro, [
      { start: 1, end: 3, src: 'NASA said the engine room is hot.', dst: '' },
      { start: 3.3, end: 4, src: 'Yes.', dst: '' },
    ]);
    const g = await typedClient(llm, pro.token).POST('/api/glossary', {
      params: { query: { space_id: pro.defaultSpaceId } },
      body: { name: 'Terms', source_lang: 'en', target_lang: 'es', entries: [{ source: 'NASA', target: '', do_not_translate: true }, { source: 'engine room', target: 'sala de máquinas' }] },
    });
    expect(g.response.status, JSON.stringify(g.error)).toBe(201);
    const chosen = await typedClient(llm, pro.token).PATCH('/api/project/{id}/glossary', { params: { path: { id: p.id }, query: { glossary_id: g.data!.id } } });
    expect(chosen.response.status).toBe(200);
    const row = await findProject(llm.deps.db, p.id);
    await translation({
      deps: llm.deps, projectId: p.id, stage: 'translation', signal: new AbortController().signal, tmp: llm.dataDir, log: () => {}, project: row!,
    } as Parameters<typeof translation>[0]);
    const first = JSON.parse((fake.requestsTo('POST', '/v1/chat/completions')[0]!.json as ChatRequest).messages[1]!.content);
    // 2 s + 0.25 s of the pause -> 34; the last: 0.7 s -> 10
    expect(first.segments.map((s: { max_chars: number }) => s.max_chars)).toEqual([34, 10]);
    const segs = await llm.deps.db.query<{ dst_text: string; term_hits: Array<Record<string, unknown>> }>(
      'SELECT dst_text, term_hits FROM segments WHERE project_id = $1 ORDER BY start_sec', [p.id],
    );
    expect(segs[0]!.term_hits).toEqual([
      expect.objectContaining({ source: 'NASA', target: 'NASA', rule: 'do_not_translate', src_at: [[0, 4]], applied: true }),
      expect.objectContaining({ source: 'engine room', target: 'sala de máquinas', rule: 'translate', src_at: [[14, 25]], dst_at: [], applied: false }),
    ]);
    expect(segs[1]!.term_hits).toEqual([]);
    // the transcript read names the term the engine could not apply
    const t = await transcript(llm, pro, p.id);
    expect(t.data!.segments[0]!.terms!.unapplied).toEqual([{ source: 'engine room', target: 'sala de máquinas' }]);
    expect(t.data!.segments[1]!.terms).toEqual({ expected: [], missing: [] });
  });
});
