// Routes state their facts where they are registered (server/http/route-facts.ts); the plan gates, the creating
// calls and the OpenAPI operations are derived from the mounted routers. A fact no mounted route carries is refused
// (its gates would not apply), and facts survive Hono's wrapping of a router with its own error handler.
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATING_CALLS } from '../../../server/app/api-guards';
import type { AppEnv } from '../../../server/http/env';
import { GATES } from '../../../server/app/gates';
import { assertAllDeclared, declaredRoutes, routeFacts } from '../../../server/http/route-facts';
import { DECLARED_ROUTES } from '../../../server/app/routes';
import { createHarness, type Harness } from '../harness';
import { newUser, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';

describe('route facts', () => {
  it('derives the gates and the creating calls from the routes, with full paths under /api', () => {
    expect(GATES.filter((g) => g.path === '/project/create_transcript').map((g) => g.feature)).toEqual(['srt_upload', 'glossary', 'multilanguage']);
    expect(GATES).toContainEqual(expect.objectContaining({ method: 'POST', path: '/project/:id/transcript/:segmentId/rewrite', feature: 'ai_rewrite' }));
    expect(CREATING_CALLS.map((c) => `${c.path} ${c.startsJob}`).sort()).toEqual([
      '/batch true', '/project/:id/copy true', '/project/:id/generate true', '/project/:id/restart true', '/project/create_transcript true',
      '/space/:id/webhooks false', '/users/settings/api/credentials false',
    ]);
    expect(() => assertAllDeclared(DECLARED_ROUTES)).not.toThrow();
  });

  it('finds facts through a nested router and one with its own error handler', () => {
    const inner = new Hono<AppEnv>().get('/x', routeFacts({ summary: 'inner' }), (c) => c.text('x'));
    const own = new Hono<AppEnv>().post('/y', routeFacts({ summary: 'own' }), (c) => c.text('y'));
    own.onError((_e, c) => c.text('err', 500));
    const outer = new Hono<AppEnv>().route('/in', inner);
    const app = new Hono<AppEnv>().route('/out', outer).route('/own', own);
    expect(declaredRoutes(app.routes).map((r) => `${r.method} ${r.path} ${r.facts.summary}`)).toEqual(['GET /out/in/x inner', 'POST /own/y own']);
  });

  it('refuses facts on a route no mounted router carries', () => {
    new Hono<AppEnv>().post('/orphan', routeFacts({ summary: 'An orphan', gates: [{ feature: 'api', scope: 'user', note: 'orphan' }] }), (c) => c.text('x'));
    expect(() => assertAllDeclared(DECLARED_ROUTES)).toThrow(/An orphan/);
  });
});

// The order of a request (ARCHITECTURE.md): authentication (server/app/authenticate.ts), then plan refusal (the
// gates run before the route's body parser), then validation.
describe('a locked feature with a malformed body', () => {
  let h: Harness;
  let trial: TestUser;
  let business: TestUser;
  beforeAll(async () => {
    h = await createHarness();
    trial = await newUser(h, 'trial');
    business = await newUser(h, 'business');
    await grantPlan(h, business.id, 'business');
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });
  const send = (path: string, raw: string) =>
    h.request('POST', path, { token: trial.token, raw, headers: { 'content-type': 'application/json' } });

  it('authentication comes first: 401 without a token or with a bad one, before the plan and the body', async () => {
    for (const token of [null, 'not-a-token']) {
      const r = await h.request('POST', `/api/glossary?space_id=${trial.defaultSpaceId}`, { token, raw: '{not json', headers: { 'content-type': 'application/json' } });
      expect(r.status).toBe(401);
    }
  });

  it('with the feature in the plan, the same malformed body is a validation error (422)', async () => {
    const r = await h.request('POST', `/api/glossary?space_id=${business.defaultSpaceId}`, { token: business.token, raw: '{not json', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(422);
  });

  it('an unconditional gate refuses (403) whatever the body', async () => {
    const r = await send(`/api/glossary?space_id=${trial.defaultSpaceId}`, '{not json');
    expect(r.status).toBe(403);
    expect((await r.json()).code).toBe('feature_not_in_plan');
  });

  it('a conditional gate reads a malformed body as {}: the route answers 422', async () => {
    const r = await send(`/api/project/create_transcript?space_id=${trial.defaultSpaceId}`, '{"src_srt_media_id": ');
    expect(r.status).toBe(422);
  });

  it('a well-formed body asking for the locked part is refused (403) even when other fields are invalid', async () => {
    const r = await send(`/api/project/create_transcript?space_id=${trial.defaultSpaceId}`, JSON.stringify({ src_srt_media_id: 'x' }));
    expect(r.status).toBe(403);
    expect((await r.json()).feature).toBe('srt_upload');
  });
});
