// What an integrator does, over HTTP only, with a client typed from the OpenAPI document (openapi-typescript ->
// src/lib/api/schema.d.ts, checked current here) and openapi-fetch: create an API key, upload a video
// with tus, create the project, receive the signed transcript webhook, patch one segment, generate, receive the
// dub-ready webhook, download the MP4 and check it with ffprobe. Real pipeline with the built-in engines.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import { Webhook } from 'standardwebhooks';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookWorker, type WebhookWorker } from '../../../server/domains/webhooks/service';
import { makeSpeechVideo, tempDir } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { eventually } from '../../server/helpers';
import { replacePipeline } from '../../server/projects/projects-fixtures';
import { grantPlan } from '../../server/spaces/spaces-fixtures';
import type { paths } from '../../../src/lib/api/schema';

const GENERATED = join(import.meta.dirname, '..', '..', '..', 'src', 'lib', 'api', 'schema.d.ts');
let h: Harness;
let http: ServerType;
let base: string;
let receiver: Server;
let hookUrl: string;
let worker: WebhookWorker;
const hooks: Array<{ body: string; headers: Record<string, string> }> = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      hooks.push({ body, headers: req.headers as Record<string, string> });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  h = await createHarness({ WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_POLL_MS: '200' });
  const p = await replacePipeline(h, { heartbeatMs: 1000, staleSec: 30 });
  await p.startWorker(1);
  worker = await startWebhookWorker(h.deps);
  http = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((r) => http.once('listening', r));
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}, 120_000);
afterAll(async () => {
  await worker?.stop();
  await new Promise((r) => http?.close(r));
  await h?.close();
  receiver?.closeAllConnections();
  await new Promise((r) => receiver?.close(r));
});

describe('an integrator dubs a video through the public API', () => {
  it('the committed client types are generated from the current document (npm run api:types)', async () => {
    const doc = await (await fetch(`${base}/api/openapi.json`)).json();
    // The CLI adds a header comment; the rest must be identical.
    const body = (s: string) => s.replace(/^\/\*\*[\s\S]*?\*\/\s*/, '');
    const fresh = astToString(await openapiTS(doc, { defaultNonNullable: false }));
    expect(body(fresh) === body(readFileSync(GENERATED, 'utf8')), 'src/lib/api/schema.d.ts is stale: run npm run api:types').toBe(true);
  });

  it('key, tus upload, project, transcript webhook, segment edit, generate, dub-ready webhook, MP4 checked by ffprobe', async () => {
    // An account (sign-up over HTTP) whose operator granted the Business plan.
    const anon = createClient<paths>({ baseUrl: base });
    const email = `integrator-${Date.now()}@example.com`;
    const signUp = await anon.POST('/api/auth/sign-up', { body: { email, password: 'correct-horse-1' } });
    expect(signUp.response.status).toBe(201);
    const session = createClient<paths>({ baseUrl: base, headers: { authorization: `Bearer ${signUp.data!.access_token}` } });
    const account = await session.POST('/api/users', { body: { email } });
    expect(account.response.status).toBe(201);
    await grantPlan(h, account.data!.id, 'business');

    // 1. The API key.
    const created = await session.POST('/api/users/settings/api/credentials', { body: { name: 'Integrator' } });
    expect(created.response.status).toBe(201);
    const key = created.data!.key;
    const client = createClient<paths>({ baseUrl: base, headers: { authorization: `Bearer ${key}` } });
    const spaces = await client.GET('/api/space/list');
    const spaceId = (spaces.data as unknown as Array<{ id: string; is_default: boolean }>).find((s) => s.is_default)!.id;

    // 2. A webhook endpoint for the space.
    const endpoint = await client.POST('/api/space/{id}/webhooks', {
      params: { path: { id: spaceId } }, body: { url: hookUrl, events: ['transcript.ready', 'dub.ready', 'job.failed'] },
    });
    expect(endpoint.response.status).toBe(201);
    const wh = new Webhook(endpoint.data!.secret);
    const eventOf = (type: string, projectId: string) => async () =>
      hooks.map((x) => wh.verify(x.body, x.headers) as { type: string; data: { project_id: string; status: string } }).find((e) => e.type === type && e.data.project_id === projectId);

    // 3. tus upload of a 12 s video with the key.
    const video = await makeSpeechVideo({ seconds: 12 });
    const data = readFileSync(video);
    const uploadUrl = await new Promise<string>((resolve, reject) => {
      const up = new tus.Upload(data, {
        endpoint: `${base}/api/library/tus?space_id=${spaceId}`,
        chunkSize: 256 * 1024,
        retryDelays: [0],
        headers: { authorization: `Bearer ${key}` },
        metadata: { filename: 'talk.mp4', filetype: 'video/mp4', kind: 'video' },
        onError: reject,
        onSuccess: () => resolve(up.url!),
      });
      up.start();
    });
    const mediaId = uploadUrl.split('/').pop()!;

    // 4. The project (idempotent create).
    const body = { name: 'Integrator talk', src_lang: 'en', dst_lang: 'es', media_id: mediaId };
    const project = await client.POST('/api/project/create_transcript', {
      params: { query: { space_id: spaceId }, header: { 'Idempotency-Key': 'talk-1' } }, body,
    });
    expect(project.response.status, JSON.stringify(project.error)).toBe(200);
    const projectId = project.data!.id;

    // 5. The transcript webhook.
    const ready = await eventually(eventOf('transcript.ready', projectId), (e) => !!e, 240_000, 'the transcript.ready webhook');
    expect(ready!.data.status).toBe('translation_done');

    // 6. Patch one segment's translation.
    const transcript = await client.GET('/api/project/{id}/transcript', { params: { path: { id: projectId } } });
    const first = transcript.data!.segments[0]!;
    const patched = await client.PATCH('/api/project/{id}/transcript', {
      params: { path: { id: projectId } }, body: { segments: [{ id: first.id, dst: { text: 'Hola a todos, bienvenidos.' } }] },
    });
    expect(patched.response.status, JSON.stringify(patched.error)).toBe(200);
    expect(patched.data!.segments.find((s) => s.id === first.id)!.dst.text).toBe('Hola a todos, bienvenidos.');

    // 7. Generate, and the dub-ready webhook.
    const gen = await client.POST('/api/project/{id}/generate', { params: { path: { id: projectId }, header: { 'Idempotency-Key': 'talk-1-gen' } } });
    expect(gen.response.status, JSON.stringify(gen.error)).toBe(200);
    const dub = await eventually(eventOf('dub.ready', projectId), (e) => !!e, 240_000, 'the dub.ready webhook');
    expect(dub!.data.status).toBe('merging_done');

    // 8. Download the MP4 over HTTP and check it with ffprobe.
    const link = await client.POST('/api/project/{id}/media_download', { params: { path: { id: projectId } }, body: { media_type: 'video' } });
    expect(link.response.status).toBe(200);
    const url = (link.data as { url: string }).url;
    const file = await fetch(new URL(url, base));
    expect(file.status).toBe(200);
    const out = join(tempDir('integrator-'), 'dubbed.mp4');
    writeFileSync(out, Buffer.from(await file.arrayBuffer()));
    const { stdout } = await promisify(execFile)('ffprobe', ['-v', 'error', '-show_entries', 'stream=codec_type:format=duration,format_name', '-of', 'json', out]);
    const info = JSON.parse(stdout) as { streams: Array<{ codec_type: string }>; format: { duration: string; format_name: string } };
    expect(info.format.format_name).toContain('mp4');
    expect(info.streams.map((s) => s.codec_type).sort()).toEqual(['audio', 'video']);
    expect(Number(info.format.duration)).toBeGreaterThan(11);
    expect(Number(info.format.duration)).toBeLessThan(13.5);
  }, 600_000);
});
