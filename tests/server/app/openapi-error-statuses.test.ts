// The OpenAPI document declares the error statuses the routes really answer (server/app/openapi.ts: the common
// ones, and each route's own `errors` facts). Real requests provoke them here (a generate without the minutes, an
// unsupported language pair, a deactivated account, a body over the limit, an upload that is not multipart, an
// expired file link, the AI tool without a model) and the operation that answered must list the status; then two
// walks over every documented operation (no credentials; a body over the limit) check that whatever they answer
// is declared for that operation.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signFileToken } from '../../../server/storage/signed';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { api } from '../helpers';
import { newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan, makeUser } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

interface Operation {
  responses: Record<string, { description: string }>;
  security?: unknown[];
}
type Doc = { paths: Record<string, Record<string, Operation>> };

let h: Harness;
let doc: Doc;
let alice: TestUser;
let mediaId: string;

beforeAll(async () => {
  h = await createHarness();
  // The document itself, as served (read untyped: it is the thing under test).
  const r = await api(h, 'GET', '/api/openapi.json');
  expect(r.status).toBe(200);
  doc = r.json as Doc;
  alice = await newUser(h, 'errors');
  mediaId = await uploadOk(h, alice, await makeSpeechVideo({ seconds: 4 }));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const as = (u: TestUser | null) => typedClient(h, u?.token);

/** The statuses the document lists for an operation (success and errors). */
function declared(method: string, path: string): string[] {
  const op = doc.paths[path]?.[method.toLowerCase()];
  expect(op, `${method} ${path} is documented`).toBeDefined();
  return Object.keys(op!.responses);
}

/** The answer has the expected status, and the document declares that status for the operation. */
function expectDeclared(r: { response: Response }, status: number, method: string, path: string): void {
  expect(r.response.status, `${method} ${path}`).toBe(status);
  expect(declared(method, path), `${method} ${path} declares ${status}`).toContain(String(status));
}

describe('provoked errors are declared by the operation that answered them', () => {
  it('402: generate without the minutes; and a route that charges nothing does not declare 402', async () => {
    const u = await newUser(h, 'poor');
    const media = await uploadOk(h, u, await makeSpeechVideo({ seconds: 4 }));
    const id = await seedProject(h, u, { mediaId: media, duration: 181 }); // 4 minutes, 3 available
    const r = await as(u).POST('/api/project/{id}/generate', { params: { path: { id } } });
    expectDeclared(r, 402, 'POST', '/api/project/{id}/generate');
    expect(r.error!.detail).toMatch(/^Not enough minutes/);
    expect(declared('GET', '/api/project/{id}')).not.toContain('402');
  });

  it('400: an unsupported language pair at create; the default Teamspace cannot be deleted or left', async () => {
    const create = await as(alice).POST('/api/project/create_transcript', {
      params: { query: { space_id: alice.defaultSpaceId } },
      body: { name: 'x', src_lang: 'en', dst_lang: 'xx', media_id: mediaId },
    });
    expectDeclared(create, 400, 'POST', '/api/project/create_transcript');
    const path = { params: { path: { id: alice.defaultSpaceId } } };
    expectDeclared(await as(alice).DELETE('/api/space/{id}', path), 400, 'DELETE', '/api/space/{id}');
    expectDeclared(await as(alice).GET('/api/space/{id}/leave', path), 400, 'GET', '/api/space/{id}/leave');
  });

  it('400: a deactivated account on any route; a superuser cannot deactivate themself', async () => {
    const admin = await makeUser(h, `admin-${Date.now()}@example.com`, { superuser: true });
    const u = await newUser(h, 'deactivated');
    const off = await as(admin).PATCH('/api/admin/users/{id}', { params: { path: { id: u.id } }, body: { is_active: false } });
    expect(off.response.status, JSON.stringify(off.error)).toBe(200);
    expectDeclared(await as(u).GET('/api/users/current'), 400, 'GET', '/api/users/current');
    expectDeclared(await as(u).GET('/api/project/paginated', { params: { query: { space_id: u.defaultSpaceId } } }), 400, 'GET', '/api/project/paginated');
    const self = await as(admin).PATCH('/api/admin/users/{id}', { params: { path: { id: admin.id } }, body: { is_active: false } });
    expectDeclared(self, 400, 'PATCH', '/api/admin/users/{id}');
  });

  it('413: a JSON body over the 2 MB limit', async () => {
    const id = await seedProject(h, alice, { mediaId });
    const r = await as(alice).POST('/api/project/{id}/feedback', { params: { path: { id } }, body: { comment: 'x'.repeat(3 * 1024 * 1024), options: [] } });
    expectDeclared(r, 413, 'POST', '/api/project/{id}/feedback');
  });

  it('415: an upload that is not multipart', async () => {
    const r = await as(alice).POST('/api/library/media', { params: { query: { space_id: alice.defaultSpaceId } } });
    expectDeclared(r, 415, 'POST', '/api/library/media');
  });

  it('410 and 403: an expired and a forged file link', async () => {
    const expired = signFileToken(h.config.jwtSecret, { key: 'uploads/x/y.mp4', exp: Math.floor(Date.now() / 1000) - 60 });
    expectDeclared(await as(null).GET('/api/files/{token}', { params: { path: { token: expired } } }), 410, 'GET', '/api/files/{token}');
    expectDeclared(await as(null).GET('/api/files/{token}', { params: { path: { token: 'forged.signature' } } }), 403, 'GET', '/api/files/{token}');
  });

  it('503: the AI rewrite tool on a server without a language model', async () => {
    const u = await newUser(h, 'writer');
    await grantPlan(h, u.id, 'business');
    const r = await as(u).POST('/api/tools/summarize', { body: { text: 'hello there' } });
    expectDeclared(r, 503, 'POST', '/api/tools/summarize');
  });
});

/** Every documented operation with its path parameters filled (fresh ids: nothing is found or changed). */
function operations(): Array<{ method: string; template: string; url: string; op: Operation }> {
  return Object.entries(doc.paths).flatMap(([template, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), template, url: template.replace(/\{\w+\}/g, () => randomUUID()), op })));
}

/** The answer's status is one the operation declares (a 304/206 aside, success statuses are declared too). */
function undeclared(answers: Array<{ method: string; template: string; op: Operation; status: number }>): string[] {
  return answers.filter((a) => !(String(a.status) in a.op.responses)).map((a) => `${a.method} ${a.template}: ${a.status}`);
}

describe('walks over every documented operation', () => {
  // Untyped requests: a walk over all routes, paths built at run time.
  it('without credentials, each answers a status it declares', async () => {
    const answers = [];
    for (const o of operations()) {
      if (o.template === '/api/health/ready') continue; // its 503 is the readiness report itself, not an error body
      const r = await h.request(o.method, o.url);
      await r.arrayBuffer();
      answers.push({ ...o, status: r.status });
    }
    expect(answers.length).toBeGreaterThan(150);
    expect(undeclared(answers)).toEqual([]);
  });

  it('with a body over the limit, each call that takes a body answers a status it declares (mostly 413)', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(3 * 1024 * 1024) });
    const answers = [];
    for (const o of operations().filter((x) => !['GET', 'HEAD', 'OPTIONS'].includes(x.method))) {
      const r = await h.request(o.method, o.url, { raw: big, headers: { 'content-type': 'application/json' } });
      await r.arrayBuffer();
      answers.push({ ...o, status: r.status });
    }
    expect(answers.filter((a) => a.status === 413).length).toBeGreaterThan(60);
    expect(undeclared(answers)).toEqual([]);
  });
});
