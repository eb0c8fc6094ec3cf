// The OpenAPI document: every route the app registers under /api appears in it (walked from the real Hono app),
// it passes an OpenAPI 3.1 validator from npm, its schemas come from the contract, and /api/docs serves the
// reference page with its assets from this server (no CDN).
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath, operationsOf } from '../../../server/app/openapi';
import { createHarness, type Harness } from '../harness';
import { api } from '../helpers';

let h: Harness;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let doc: any;

beforeAll(async () => {
  h = await createHarness();
  const r = await api(h, 'GET', '/api/openapi.json');
  expect(r.status).toBe(200);
  doc = r.json;
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const res = await validator.validate(doc);
    expect(res.errors ?? [], String(JSON.stringify(res.errors ?? [])).slice(0, 2000)).toEqual([]);
    expect(res.valid).toBe(true);
  });

  it('lists every route the app registers under /api', () => {
    const registered = operationsOf(h.app.routes.filter((r) => r.path.startsWith('/api/')));
    expect(registered.length).toBeGreaterThan(60);
    const missing = registered.filter((r) => !doc.paths[r.path]?.[r.method]).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    // The new public API routes are there.
    for (const p of ['/api/users/settings/api/credentials', '/api/space/{id}/webhooks', '/api/project/{id}/cancel', '/api/project/create_transcript']) {
      expect(doc.paths[p], p).toBeDefined();
    }
    expect(openApiPath('/api/project/:id/transcript/:segmentId')).toBe('/api/project/{id}/transcript/{segmentId}');
  });

  it('describes every operation in words, and the ones that answer bytes by their media type', () => {
    // A route without routeFacts is listed as "<METHOD> <path>": each one says what it does.
    const unnamed = Object.entries(doc.paths as Record<string, Record<string, { summary: string }>>)
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, summary: op.summary })))
      .filter((o) => o.summary === `${o.method.toUpperCase()} ${o.path}`)
      .map((o) => `${o.method} ${o.path}`);
    expect(unnamed).toEqual([]);
    // A route registered for all methods (tus) gives its facts to each of its operations.
    expect(doc.paths['/api/library/tus'].post.summary).toMatch(/^Resumable upload \(tus 1\.0\.0\)/);
    expect(doc.paths['/api/library/tus/{id}'].patch.summary).toMatch(/PATCH sends the next bytes/);
    expect(Object.keys(doc.paths['/api/docs'].get.responses['200'].content)).toEqual(['text/html']);
    expect(Object.keys(doc.paths['/api/voice_preset/{id}/sample'].get.responses['200'].content)).toEqual(['audio/wav']);
    expect(doc.paths['/api/library/media/extract-audio'].post.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Media' });
  });

  it('has the bearer scheme, the error shapes, Idempotency-Key and examples, with schemas from the contract', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.Error.properties.detail).toBeDefined();
    const create = doc.paths['/api/project/create_transcript'].post;
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateTranscriptRequest' });
    expect(create.requestBody.content['application/json'].example).toMatchObject({ src_lang: 'en', dst_lang: 'es' });
    expect(create.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['space_id', 'Idempotency-Key']));
    expect(create.responses['422'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(create.responses['429']).toBeDefined();
    // One target language (dst_lang) or several (dst_langs): either may be sent, so neither is required.
    expect(doc.components.schemas.CreateTranscriptRequest.required).toEqual(expect.arrayContaining(['name', 'src_lang']));
    expect(Object.keys(doc.components.schemas.CreateTranscriptRequest.properties)).toEqual(expect.arrayContaining(['dst_lang', 'dst_langs']));
    expect(doc.components.schemas.Project.properties.status).toBeDefined();
    expect(doc.paths['/api/auth/sign-in'].post.security).toEqual([]);
  });
});

describe('GET /api/docs', () => {
  it('serves the reference page and its assets locally', async () => {
    const page = await h.request('GET', '/api/docs');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('/api/docs/swagger-ui-bundle.js');
    expect(html).not.toMatch(/https?:\/\//);
    for (const f of ['swagger-ui-bundle.js', 'swagger-ui.css', 'init.js']) {
      const r = await h.request('GET', `/api/docs/${f}`);
      expect(r.status, f).toBe(200);
      expect((await r.arrayBuffer()).byteLength).toBeGreaterThan(10);
    }
    // Normalised to /api/package.json, a path no route answers: 401 without credentials (server/app/authenticate.ts).
    expect((await h.request('GET', '/api/docs/../package.json')).status).toBe(401);
  });
});
