// POST /api/tools/summarize (the AI rewrite tool) against the fake OpenAI-compatible server of tests/fakes:
// the documented chat request, the answer returned, plan and space checks, bad input, the tool switched off
// (503 and the settings' ai_rewrite feature) when no LLM is configured, and engine faults mapped to 502/503
// without the key ever reaching the caller.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEXT } from '../../../contract/errors';
import { SUMMARIZE_MAX_TEXT } from '../../../contract/schemas/tools';
import { createAdapters } from '../../../server/engines/adapters/index';
import { AI_REWRITE_NOT_CONFIGURED } from '../../../server/domains/tools/service';
import { featureRefusalText } from '../../../contract/features';

const AI_REWRITE_NOT_IN_PLAN = featureRefusalText('ai_rewrite');
import { FakeOpenAi, type ChatRequest } from '../../fakes/openai';
import { header } from '../../fakes/base';
import { recordingSleep } from '../../fakes/util';
import { createHarness, type Harness } from '../harness';
import { api } from '../helpers';
import { issuesOf, typedClient } from '../typed-client';
import type { components } from '../../../src/lib/api/schema';
import { grantPlan, makeUser, type TestUser } from '../spaces/spaces-fixtures';

const KEY = 'sk-tools-test-key-ABCDEFGHIJKLMNOP0123456789';
const MODEL = 'test-chat-model';
const PATH = '/api/tools/summarize';

/** The fake model: "summarises" by keeping the first words, within max_chars. */
function summariser(body: ChatRequest): string {
  const user = JSON.parse(body.messages.find((m) => m.role === 'user')!.content) as { text: string; max_chars?: number };
  const words = user.text.split(/\s+/).slice(0, 5).join(' ');
  return JSON.stringify({ text: `Summary: ${user.max_chars ? words.slice(0, Math.max(1, user.max_chars - 9)) : words}` });
}

let fake: FakeOpenAi;
let h: Harness; // LLM_ENGINE=openai on the fake
let off: Harness; // no LLM configured
let pro: TestUser;
let trial: TestUser;
let offPro: TestUser;
let seq = 0;

const email = (p: string) => `${p}${++seq}-${Date.now()}@example.com`;

beforeAll(async () => {
  fake = await new FakeOpenAi({ apiKey: KEY, chatModel: MODEL, chat: summariser }).start();
  h = await createHarness({
    LLM_ENGINE: 'openai',
    OPENAI_CHAT_BASE_URL: `${fake.url}/v1`,
    OPENAI_API_KEY: KEY,
    OPENAI_CHAT_MODEL: MODEL,
    ENGINE_HTTP_MAX_ATTEMPTS: '2',
    ENGINE_HTTP_TIMEOUT_MS: '5000',
  });
  off = await createHarness();
  pro = await makeUser(h, email('pro'));
  await grantPlan(h, pro.id, 'creator_pro');
  trial = await makeUser(h, email('trial'));
  offPro = await makeUser(off, email('offpro'));
  await grantPlan(off, offPro.id, 'creator_pro');
}, 120_000);
afterAll(async () => {
  await h?.close();
  await off?.close();
  await fake?.close();
});
beforeEach(() => fake.reset());

/** POST /api/tools/summarize as `u` (none: no credentials), in the Teamspace `spaceId` when given. */
const post = (body: components['schemas']['SummarizeRequest'], u: TestUser | null = pro, spaceId?: string, hh = h) =>
  typedClient(hh, u?.token).POST(PATH, { body, params: spaceId ? { query: { space_id: spaceId } } : {} });

function lastChat() {
  const reqs = fake.requestsTo('POST', '/v1/chat/completions');
  expect(reqs.length).toBeGreaterThan(0);
  const r = reqs[reqs.length - 1]!;
  const body = r.json as ChatRequest & { temperature: number };
  const user = JSON.parse(body.messages.find((m) => m.role === 'user')!.content) as Record<string, unknown>;
  return { r, body, user };
}

describe('POST /api/tools/summarize with LLM_ENGINE=openai', () => {
  it('summarises through POST /v1/chat/completions with the documented request and returns {text}', async () => {
    const text = 'Welcome back to the channel, today we are going to talk about open source dubbing and how it works.';
    const res = await post({ text, lang: 'en', max_chars: 40, instructions: 'Keep it friendly.' });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toEqual({ text: 'Summary: Welcome back to the channel,' });
    expect(fake.violations()).toEqual([]);
    const { r, body, user } = lastChat();
    expect(header(r, 'authorization')).toBe(`Bearer ${KEY}`);
    expect(header(r, 'content-type')).toMatch(/^application\/json/);
    expect(body.model).toBe(MODEL);
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[0]!.content).toMatch(/English \(en\)/);
    expect(user).toMatchObject({ task: 'rewrite', language: 'en', text, max_chars: 40 });
    expect(user.instructions).toMatch(/^Summarise the text/);
    expect(user.instructions).toMatch(/Keep it friendly\.$/);
  });

  it("rewrite mode sends the caller's instructions only; without lang the model keeps the text's language", async () => {
    const res = await post({ text: '  Hola a todos, bienvenidos de nuevo al canal.  ', mode: 'rewrite' });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data!.text).toBe('Summary: Hola a todos, bienvenidos de');
    const { user } = lastChat();
    expect(user.text).toBe('Hola a todos, bienvenidos de nuevo al canal.');
    expect(user.language).toBe('und');
    expect(user.instructions).toBe('Write in the language the text is written in.');
    expect(user).not.toHaveProperty('max_chars');
    expect(fake.violations()).toEqual([]);
  });

  it('asks again for a shorter answer while it is over max_chars', async () => {
    fake.opts.chat = (body, call) => {
      const u = JSON.parse(body.messages.find((m) => m.role === 'user')!.content) as { text: string };
      return JSON.stringify({ text: call === 0 ? `${u.text} and a lot more words than wanted` : 'Short.' });
    };
    try {
      const res = await post({ text: 'A sentence that is quite long for the time the speaker has.', lang: 'en', max_chars: 10, mode: 'rewrite' });
      expect(res.response.status).toBe(200);
      expect(res.data).toEqual({ text: 'Short.' });
      expect(fake.requestsTo('POST', '/v1/chat/completions')).toHaveLength(2);
    } finally {
      fake.opts.chat = summariser;
    }
  });

  it('needs a signed-in account', async () => {
    expect((await post({ text: 'hello' }, null)).response.status).toBe(401);
    expect(fake.requests).toHaveLength(0);
  });

  it('rejects bad input with 422 before calling the engine', async () => {
    // A body the types allow goes through the typed client; one they refuse (a missing or wrongly typed field, a
    // mode that does not exist) is malformed on purpose and sent untyped.
    const cases: Array<[{ typed: components['schemas']['SummarizeRequest'] } | { malformed: unknown }, string, RegExp]> = [
      [{ malformed: {} }, 'text', /.+/],
      [{ typed: { text: '   ' } }, 'text', /Field is required/],
      [{ malformed: { text: 42 } }, 'text', /must be a string/],
      [{ typed: { text: 'x'.repeat(SUMMARIZE_MAX_TEXT + 1) } }, 'text', new RegExp(`too long: at most ${SUMMARIZE_MAX_TEXT} characters`)],
      [{ typed: { text: 'hello', lang: 'English!' } }, 'lang', /ISO 639-1/],
      [{ typed: { text: 'hello', max_chars: 0 } }, 'max_chars', /at least 1/],
      [{ typed: { text: 'hello', max_chars: 2.5 } }, 'max_chars', /whole number/],
      [{ malformed: { text: 'hello', max_chars: '20' } }, 'max_chars', /must be a number/],
      [{ malformed: { text: 'hello', mode: 'poem' } }, 'mode', /"summarize" or "rewrite"/],
      [{ typed: { text: 'hello', instructions: 'x'.repeat(1001) } }, 'instructions', /too long/],
    ];
    for (const [sent, field, msg] of cases) {
      const res = 'typed' in sent
        ? await post(sent.typed).then((r) => ({ status: r.response.status, error: r.error }))
        : await api(h, 'POST', PATH, { token: pro.token, body: sent.malformed }).then((r) => ({ status: r.status, error: r.json }));
      expect(res.status, JSON.stringify(sent).slice(0, 80)).toBe(422);
      const issue = issuesOf(res.error).find((d) => d.loc[1] === field);
      expect(issue, JSON.stringify(res.error)).toBeTruthy();
      expect(issue!.loc[0]).toBe('body');
      expect(issue!.msg).toMatch(msg);
    }
    // Malformed on purpose: a raw body that is not JSON.
    const malformed = await api(h, 'POST', PATH, { token: pro.token, raw: '{"text": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(422);
    expect(malformed.json.detail[0].msg).toBe('Malformed JSON body');
    // The longest text allowed goes through.
    expect((await post({ text: 'y'.repeat(SUMMARIZE_MAX_TEXT), lang: 'en' })).response.status).toBe(200);
    expect(fake.requestsTo('POST', '/v1/chat/completions')).toHaveLength(1);
  });

  it('is a Creator Pro feature; with space_id the space owner’s plan applies and membership is checked', async () => {
    const denied = await post({ text: 'hello there' }, trial);
    expect(denied.response.status).toBe(403);
    expect(denied.error!.detail).toBe(AI_REWRITE_NOT_IN_PLAN);
    // A trial member of the Creator Pro owner's space may use it there.
    await h.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [pro.defaultSpaceId, trial.id]);
    const inSpace = await post({ text: 'hello there', lang: 'en' }, trial, pro.defaultSpaceId);
    expect(inSpace.response.status, JSON.stringify(inSpace.error)).toBe(200);
    // ...but not in their own trial space.
    expect((await post({ text: 'hello there' }, trial, trial.defaultSpaceId)).error!.detail).toBe(AI_REWRITE_NOT_IN_PLAN);
    const stranger = await makeUser(h, email('stranger'));
    for (const spaceId of [pro.defaultSpaceId, 'not-a-uuid']) {
      const r = await post({ text: 'hello there' }, stranger, spaceId);
      expect(r.response.status).toBe(403);
      expect(r.error!.detail).toMatch(new RegExp(`^${TEXT.noAccess}`));
    }
    expect(fake.requestsTo('POST', '/v1/chat/completions')).toHaveLength(1);
  });

  it('the settings offer ai_rewrite to Creator Pro when an LLM is configured', async () => {
    const r = await typedClient(h, pro.token).GET('/api/settings');
    expect(r.data!.scope_settings.available_features.ai_rewrite).toMatchObject({ enabled: true, visible: true });
    const t = await typedClient(h, trial.token).GET('/api/settings');
    expect(t.data!.scope_settings.available_features.ai_rewrite.enabled).toBe(false);
  });
});

describe('engine faults', () => {
  let sleep: ReturnType<typeof recordingSleep>;
  let saved: Harness['deps']['engineAdapters'];
  beforeEach(() => {
    // Same configuration, with back-off delays recorded instead of waited.
    sleep = recordingSleep();
    saved = h.deps.engineAdapters;
    h.deps.engineAdapters = createAdapters(h.config.engines, { sleep: sleep.sleep });
    return () => {
      h.deps.engineAdapters = saved;
    };
  });

  const noKey = (res: { error?: unknown; response: Response }) => {
    expect(JSON.stringify(res.error)).not.toContain(KEY);
    expect(JSON.stringify(res.error)).not.toContain(KEY.slice(0, 12));
    for (const [, v] of res.response.headers) expect(v).not.toContain(KEY);
  };

  it('401 from the engine: 502 naming the engine, the key (echoed by the service) never shown', async () => {
    fake.fail({ kind: 'status', status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}.`, code: 'invalid_api_key' } } });
    const res = await post({ text: 'hello there', lang: 'en' });
    expect(res.response.status).toBe(502);
    expect(res.error!.detail).toBe('engine openai rejected the credentials (HTTP 401)');
    noKey(res);
    expect(fake.requests).toHaveLength(1); // never retried
  });

  it('429 after the retries: 503 with Retry-After; a 429 that clears is retried after Retry-After', async () => {
    fake.fail({ kind: 'status', status: 429, headers: { 'Retry-After': '3' } }, 5);
    const res = await post({ text: 'hello there', lang: 'en' });
    expect(res.response.status).toBe(503);
    expect(res.error!.detail).toMatch(/^engine openai is still rate limiting requests after 2 attempts/);
    expect(res.response.headers.get('retry-after')).toBe('30');
    expect(sleep.delays).toEqual([3000]);
    noKey(res);

    fake.reset();
    fake.fail({ kind: 'status', status: 429, headers: { 'Retry-After': '600' } });
    const long = await post({ text: 'hello there', lang: 'en' });
    expect(long.response.status).toBe(503);
    expect(long.response.headers.get('retry-after')).toBe('600');

    fake.reset();
    sleep.delays.length = 0;
    fake.fail({ kind: 'status', status: 429, headers: { 'Retry-After': '2' } });
    const ok = await post({ text: 'hello there', lang: 'en' });
    expect(ok.response.status).toBe(200);
    expect(ok.data!.text).toBe('Summary: hello there');
    expect(sleep.delays).toEqual([2000]);
  });

  it('5xx after the bounded retries, malformed and truncated answers: 502 with the adapter message', async () => {
    fake.fail({ kind: 'status', status: 500, body: { error: { message: 'upstream exploded' } } }, 2);
    const r500 = await post({ text: 'hello there', lang: 'en' });
    expect(r500.response.status).toBe(502);
    expect(r500.error!.detail).toMatch(/^engine openai failed the rewrite request: HTTP 500 .*after 2 attempts/);
    expect(fake.requests).toHaveLength(2);

    fake.reset();
    fake.fail({ kind: 'malformed' }, 2);
    const bad = await post({ text: 'hello there', lang: 'en' });
    expect(bad.response.status).toBe(502);
    expect(bad.error!.detail).toMatch(/^engine openai returned an unusable response/);

    fake.reset();
    fake.fail({ kind: 'truncate' }, 2);
    const cut = await post({ text: 'hello there', lang: 'en' });
    expect(cut.response.status).toBe(502);
    expect(cut.error!.detail).toMatch(/^engine openai returned an unusable response: .*truncated/);
    expect(fake.requests).toHaveLength(2);

    fake.reset();
    fake.opts.chat = () => 'this is not JSON at all';
    try {
      const prose = await post({ text: 'hello there', lang: 'en' });
      expect(prose.response.status).toBe(502);
      expect(prose.error!.detail).toMatch(/^engine openai returned an unusable response/);
    } finally {
      fake.opts.chat = summariser;
    }
    noKey(bad);
  });
});

describe('no LLM configured (LLM_ENGINE unset)', () => {
  it('answers 503 with how to configure it, and the settings turn ai_rewrite off whatever the plan', async () => {
    const res = await post({ text: 'hello there' }, offPro, undefined, off);
    expect(res.response.status).toBe(503);
    expect(res.error).toEqual({ detail: AI_REWRITE_NOT_CONFIGURED });
    expect(res.error!.detail).toMatch(/^AI rewrite is not configured on this server \(set LLM_ENGINE=openai/);
    const s = await typedClient(off, offPro.token).GET('/api/settings');
    expect(s.data!.scope_settings.available_features.ai_rewrite).toMatchObject({ enabled: false, visible: true });
    // The other Creator Pro features are untouched.
    expect(s.data!.scope_settings.available_features.lipsync.enabled).toBe(true);
    expect(fake.requests).toHaveLength(0);
  });
});
