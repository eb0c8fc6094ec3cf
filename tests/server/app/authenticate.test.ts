// One authentication middleware on /api (server/app/authenticate.ts): every route needs a valid token of an active
// account except those whose routeFacts say `public` (or `identity`: a token whose identity has no account yet).
// The public list is read from the routes; a path no route answers is 401 without credentials, 404 with them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicRoutes } from '../../../server/app/authenticate';
import { createHarness, type Harness } from '../harness';
import { api, newUser, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let user: TestUser;
let apiKey: string;

beforeAll(async () => {
  h = await createHarness();
  user = await newUser(h, 'authn');
  await grantPlan(h, user.id, 'business');
  const key = await typedClient(h, user.token).POST('/api/users/settings/api/credentials', { body: { name: 'CI' } });
  expect(key.response.status, JSON.stringify(key.error)).toBe(201);
  apiKey = key.data!.key;
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('the public routes', () => {
  it('are the routes whose facts say so, in one list read from the registered routes', () => {
    const list = publicRoutes(h.app.routes).map((r) => `${r.method} ${r.path}`).sort();
    expect(list).toEqual([
      'GET /api/auth/oidc/callback',
      'GET /api/auth/oidc/config',
      'GET /api/auth/oidc/start',
      'GET /api/deliverables/hls/:token/:file',
      'GET /api/docs',
      'GET /api/docs/:file',
      'GET /api/files/:token',
      'GET /api/files/:token/:name',
      'GET /api/health',
      'GET /api/health/ready',
      'GET /api/openapi.json',
      'GET /api/settings',
      'GET /api/shop/billing/return',
      'POST /api/auth/refresh',
      'POST /api/auth/sign-in',
      'POST /api/auth/sign-out',
      'POST /api/auth/sign-up',
      'POST /api/payments/webhook',
      'POST /api/shop/webhooks',
    ]);
  });

  it('answer without a token', async () => {
    expect((await h.request('GET', '/api/health')).status).toBe(200);
    expect((await h.request('GET', '/api/openapi.json')).status).toBe(200);
    expect((await h.request('GET', '/api/settings')).status).toBe(200);
    expect((await h.request('POST', '/api/auth/sign-in', { body: {} })).status).toBe(422);
    expect((await h.request('GET', '/api/files/not-a-token')).status).toBe(403);
  });

  it('the API document marks them (and only them) as needing no credentials', async () => {
    const doc = await (await h.request('GET', '/api/openapi.json')).json() as { paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>> };
    const open = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).filter(([, op]) => op.security?.length === 0).map(([m]) => `${m.toUpperCase()} ${path}`)).sort();
    const expected = publicRoutes(h.app.routes).map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`).sort();
    expect(open).toEqual(expected);
    expect(doc.paths['/api/health']!.get!.responses['401']).toBeUndefined();
    expect(doc.paths['/api/users/current']!.get!.responses['401']).toBeDefined();
  });
});

describe('every other route', () => {
  it('is 401 without a token or with a bad one, and answers an access token or an API key', async () => {
    expect((await h.request('GET', '/api/users/current')).status).toBe(401);
    const bad = await h.request('GET', '/api/users/current', { token: 'not-a-token' });
    expect(bad.status).toBe(401);
    expect((await h.request('GET', '/api/users/current', { token: user.token })).status).toBe(200);
    const viaKey = await h.request('GET', '/api/users/current', { token: apiKey });
    expect(viaKey.status).toBe(200);
    expect((await viaKey.json()).id).toBe(user.id);
  });

  it('creating the product account needs a token, not an account', async () => {
    expect((await h.request('POST', '/api/users', { body: {} })).status).toBe(401);
    const signUp = await typedClient(h).POST('/api/auth/sign-up', { body: { email: `fresh${Date.now()}@example.com`, password: 'Password-123-xyz' } });
    expect(signUp.response.status).toBe(201);
    const token = signUp.data!.access_token;
    // The identity has no account yet: account routes say so, creating one validates the body.
    const current = await typedClient(h, token).GET('/api/users/current');
    expect(current.response.status).toBe(404);
    // Untyped: an empty body, malformed on purpose (the types require the e-mail).
    expect((await api(h, 'POST', '/api/users', { token, body: {} })).status).toBe(422);
  });
});

describe('a path no route answers', () => {
  for (const [method, path] of [['GET', '/api/no-such-thing'], ['POST', '/api/project/nope/nope/nope'], ['GET', '/api/health/nope'], ['GET', '/api/auth/sign-in']] as const) {
    it(`${method} ${path}: 401 without credentials, 404 with valid ones`, async () => {
      const anon = await h.request(method, path, { body: method === 'POST' ? {} : undefined });
      expect(anon.status).toBe(401);
      expect(await anon.json()).toEqual({ detail: 'Not authenticated' });
      expect((await h.request(method, path, { token: 'garbage', body: method === 'POST' ? {} : undefined })).status).toBe(401);
      const signedIn = await h.request(method, path, { token: user.token, body: method === 'POST' ? {} : undefined });
      expect(signedIn.status).toBe(404);
      expect(await signedIn.json()).toEqual({ detail: 'Not found' });
      expect((await h.request(method, path, { token: apiKey, body: method === 'POST' ? {} : undefined })).status).toBe(404);
    });
  }
});
