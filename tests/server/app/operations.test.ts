// The operator's view and the security pass: JSON logs with a request id on every request line and a job id on
// every pipeline line, secrets redacted; liveness and readiness; Prometheus metrics; security headers with the
// standalone CSP; JSON body-size limits; the link ingest refusing other hosts and private addresses.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDeps, shutdownDeps } from '../../../server/bootstrap';
import { loadConfig } from '../../../server/config';
import type { AppDeps } from '../../../server/deps';
import { createApp } from '../../../server/app/app';
import { checkIngestLink } from '../../../server/media/link';
import { isPublicAddress } from '../../../server/net/addresses';
import { createLogger } from '../../../server/observability';
import { mediaUrl } from '../../../server/storage';
import { recordingHandlers, recorder, waitFor, projectState } from '../../pipeline/jobs/queue-helpers';
import { migratedPglite, type Harness } from '../harness';
import { createProject, newUser, type TestUser } from '../projects/projects-fixtures';

const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk, _enc, cb) {
    for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l));
    cb();
  },
});

let deps: AppDeps;
let app: ReturnType<typeof createApp>;
let h: Harness;
let u: TestUser;
const dist = mkdtempSync(join(tmpdir(), 'dist-'));

beforeAll(async () => {
  for (const b of ['standalone', 'embed']) {
    mkdirSync(join(dist, b), { recursive: true });
    writeFileSync(join(dist, b, 'index.html'), '<!doctype html><title>app</title>');
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'ops-'));
  const config = loadConfig({ JWT_SECRET: 'ops-secret-ops-secret-ops-secret-0001', DATA_DIR: dataDir, ENGINE_HTTP_TIMEOUT_MS: '3000' });
  const hRef = {} as Harness;
  deps = await buildDeps(config, {
    role: 'test',
    db: await migratedPglite(),
    logger: createLogger({ production: true, logLevel: 'info' }, sink),
    pipeline: {
      handlers: recordingHandlers(hRef, recorder(), { override: { ingest: async (ctx) => ctx.log('step', { step: 'download', seconds: 0.1 }) } }),
      heartbeatMs: 200, staleSec: 2, sweepEveryMs: 500,
    },
  });
  app = createApp(deps, { distDir: dist });
  h = {
    deps, config, app, dataDir,
    request: async (method, path, o = {}) => {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      if (o.body !== undefined) headers['content-type'] = 'application/json';
      return app.request(path, { method, headers, body: o.body !== undefined ? JSON.stringify(o.body) : o.raw });
    },
    close: async () => shutdownDeps(deps),
  };
  Object.assign(hRef, h);
  u = await newUser(h, 'ops');
});
afterAll(async () => {
  await h?.close();
});

describe('logs', () => {
  it('one JSON line per request with its id (given or made), route, status; secrets redacted', async () => {
    const r = await h.request('GET', '/api/settings', { token: u.token, headers: { 'x-request-id': 'req-abc-123' } });
    expect(r.headers.get('x-request-id')).toBe('req-abc-123');
    const line = lines.find((l) => l.requestId === 'req-abc-123' && l.msg === 'request');
    expect(line).toMatchObject({ level: 'info', method: 'GET', status: r.status, route: expect.stringMatching(/^\/api\/settings/) });
    expect(typeof line!.time).toBe('string');
    const r2 = await h.request('GET', '/api/health');
    expect(r2.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    // Redaction: whatever a call logs with a secret in it.
    const log = lines.length;
    deps.logger!.info({ authorization: 'Bearer abc', user: { password: 'hunter2', token: 'tok' }, config: { secretAccessKey: 'sk' } }, 'x');
    const out = JSON.stringify(lines.slice(log));
    expect(out).not.toMatch(/abc|hunter2|"tok"|"sk"/);
    expect(out).toContain('[redacted]');
  });

  it('a signed file URL is logged without its signature, token-like query parameters without their value', async () => {
    await deps.storage!.putBuffer('logs/clip.txt', 'hello');
    const url = mediaUrl(deps, 'logs/clip.txt', { displayName: 'clip.txt' });
    const path = new URL(url, 'http://x').pathname;
    const signature = /\/api\/files\/[^/.]+\.([^/]+)\//.exec(path)![1]!;
    expect(signature.length).toBeGreaterThan(16);
    const r = await h.request('GET', `${path}?token=tok-secret-1&X-Amz-Signature=amzsig123&X-Amz-Credential=AKIAEXAMPLE&download=1`, {
      headers: { 'x-request-id': 'req-signed-1' },
    });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('hello');
    const line = lines.find((l) => l.requestId === 'req-signed-1' && l.msg === 'request');
    expect(line).toBeDefined();
    const logged = JSON.stringify(lines.filter((l) => l.requestId === 'req-signed-1'));
    for (const secret of [signature, 'tok-secret-1', 'amzsig123', 'AKIAEXAMPLE']) expect(logged).not.toContain(secret);
    const grant = path.split('/')[3]!.split('.')[0]!;
    expect(line!.path).toBe(
      `/api/files/${grant}.[redacted]/clip.txt?token=[redacted]&X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&download=1`,
    );
  });

  it('every pipeline line of a job carries the job id', async () => {
    const p = deps.pipeline!;
    const r = await createProject(h, u, { name: 'Logged', src_lang: 'en', dst_lang: 'es', link: 'https://youtu.be/abcdefghijk' });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const id = r.data!.id;
    await p.startWorker(1);
    await waitFor(() => projectState(h, id), (s) => s?.status === 'translation_done', 30_000, 'translation_done');
    await p.stop();
    const mine = lines.filter((l) => l.projectId === id && l.stage);
    expect(mine.length).toBeGreaterThan(7);
    expect(mine.filter((l) => !(typeof l.jobId === 'string' && (l.jobId as string).startsWith(id)))).toEqual([]);
    expect(mine.find((l) => l.msg === 'step')).toMatchObject({ jobId: `${id}-ingest`, stage: 'ingest', step: 'download' });
  });
});

describe('health', () => {
  it('liveness answers without touching dependencies; readiness checks database, queue, storage and engines', async () => {
    expect(await (await h.request('GET', '/api/health')).json()).toEqual({ status: 'ok', database: 'pglite' });
    const ready = await h.request('GET', '/api/health/ready');
    expect(ready.status).toBe(200);
    const body = await ready.json();
    expect(body.status).toBe('ready');
    expect(Object.keys(body.checks).sort()).toEqual(['database', 'disk', 'queue', 'storage']);
    // A configured HTTP engine that does not answer makes the instance not ready.
    const saved = deps.config.engines.tts;
    const savedEl = deps.config.engines.elevenlabs;
    deps.config.engines.tts = 'elevenlabs';
    deps.config.engines.elevenlabs = { apiKey: 'k', baseUrl: 'http://127.0.0.1:9', modelId: 'm', outputFormat: 'pcm_24000' } as never;
    const storage = deps.storage!;
    const exists = storage.exists.bind(storage);
    storage.exists = async () => {
      throw new Error('bucket unreachable');
    };
    try {
      const bad = await h.request('GET', '/api/health/ready');
      expect(bad.status).toBe(503);
      const b = await bad.json();
      expect(b.status).toBe('unavailable');
      expect(b.checks.database.ok).toBe(true);
      expect(b.checks.storage).toMatchObject({ ok: false, error: 'bucket unreachable' });
      expect(b.checks.engine_tts.ok).toBe(false);
    } finally {
      storage.exists = exists;
      deps.config.engines.tts = saved;
      deps.config.engines.elevenlabs = savedEl;
    }
  });
});

describe('metrics', () => {
  it('exposes HTTP latency by route, jobs by stage and outcome, stage durations, queue depth, minutes debited', async () => {
    await h.request('GET', `/api/project/00000000-0000-4000-8000-000000000000`, { token: u.token });
    const r = await app.request('/metrics');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await r.text();
    expect(text).toMatch(/dubbing_http_request_duration_seconds_bucket\{[^}]*route="\/api\/project\/:id"[^}]*status="404"/);
    expect(text).toMatch(/dubbing_pipeline_jobs_total\{stage="ingest",outcome="done"\} 1/);
    expect(text).toMatch(/dubbing_pipeline_stage_duration_seconds_count\{stage="translation",outcome="done"\} 1/);
    expect(text).toMatch(/dubbing_pipeline_queue_depth\{state="waiting"\} \d+/);
    expect(text).toContain('# TYPE dubbing_minutes_debited_total counter');
    deps.config.metricsToken = 'm-token';
    try {
      expect((await app.request('/metrics')).status).toBe(401);
      expect((await app.request('/metrics', { headers: { authorization: 'Bearer m-token' } })).status).toBe(200);
    } finally {
      deps.config.metricsToken = null;
    }
  });

  it('counts the minutes the ledger debits', async () => {
    const { debit } = await import('../../../server/domains/billing/ledger');
    const before = await deps.metrics!.minutesDebited.get();
    const sum = (v: typeof before) => v.values.reduce((s, x) => s + x.value, 0);
    await deps.db.tx((t) => debit(t, { spaceId: u.defaultSpaceId, minutes: 1, ref: `metrics-test-${Date.now()}` }).catch(() => null));
    const after = await deps.metrics!.minutesDebited.get();
    expect(sum(after) - sum(before)).toBe(1);
  });
});

describe('security', () => {
  it('security headers; a CSP on the standalone pages; the embed path is left to its own policy', async () => {
    const page = await app.request('/translations');
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const apiRes = await h.request('GET', '/api/health');
    expect(apiRes.headers.get('x-content-type-options')).toBe('nosniff');
    const embed = await app.request('/embed/');
    expect(embed.headers.get('x-frame-options')).toBeNull();
  });

  it('the same headers over HTTP, on every kind of answer (JSON, kept answer, page, file, error)', async () => {
    mkdirSync(join(dist, 'standalone', 'assets'), { recursive: true });
    writeFileSync(join(dist, 'standalone', 'assets', 'app.js'), 'console.log(1)');
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((r) => server.once('listening', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const auth = { authorization: `Bearer ${u.token}`, 'accept-encoding': 'br' };
      const answers = {
        json: await fetch(`${base}/api/settings`, { headers: { 'x-request-id': 'over-http-1' } }),
        kept: await fetch(`${base}/api/project/paginated?space_id=${u.defaultSpaceId}&page=1&per_page=20`, { headers: auth }),
        page: await fetch(`${base}/translations`),
        file: await fetch(`${base}/assets/app.js`),
        error: await fetch(`${base}/api/project/00000000-0000-4000-8000-000000000000`, { headers: auth }),
      };
      expect(Object.values(answers).map((r) => r.status)).toEqual([200, 200, 200, 200, 404]);
      expect(answers.json.headers.get('x-request-id')).toBe('over-http-1');
      expect(await answers.json.json()).toHaveProperty('features');
      expect(await answers.kept.json()).toMatchObject({ data: expect.any(Array), offset: 0 });
      expect(answers.kept.headers.get('vary')).toBe('Accept-Encoding');
      expect(await answers.file.text()).toBe('console.log(1)');
      for (const [kind, r] of Object.entries(answers)) {
        expect(r.headers.get('x-content-type-options'), kind).toBe('nosniff');
        expect(r.headers.get('referrer-policy'), kind).toBe('strict-origin-when-cross-origin');
        expect(r.headers.get('x-frame-options'), kind).toBe('DENY');
        expect(r.headers.get('x-request-id'), kind).toMatch(/^[\w.:-]+$/);
        expect(r.headers.has('content-security-policy'), kind).toBe(kind === 'page');
      }
    } finally {
      server.close();
    }
  });

  it('JSON bodies are bounded (413 with a detail); uploads keep their own limit', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(3 * 1024 * 1024) });
    const r = await app.request('/api/project/create_transcript', {
      method: 'POST', headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' }, body: big,
    });
    expect(r.status).toBe(413);
    expect(await r.json()).toEqual({ detail: 'Request body too large (the limit is 2 MB)' });
  });

  it('every 413 over a real socket answers Connection: close and arrives whole (declared or chunked length, JSON or CSV)', async () => {
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((r) => server.once('listening', () => r()));
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    /** One POST of `size` bytes on a keep-alive connection: the answer, and whether the server closed the socket. */
    const post = (path: string, size: number, o: { chunked?: boolean; contentType: string }) =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: string; socketClosed: Promise<void> }>((resolve, reject) => {
        const headers: Record<string, string> = { authorization: `Bearer ${u.token}`, 'content-type': o.contentType };
        if (!o.chunked) headers['content-length'] = String(size);
        const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', agent, headers }, (res) => {
          const socketClosed = new Promise<void>((r) => (res.socket.destroyed ? r() : res.socket.once('close', () => r())));
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, socketClosed }));
          res.on('error', reject);
        });
        // The server answers before the body is sent: writing the rest may fail, the answer must not.
        req.on('error', () => {});
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        let sent = 0;
        const pump = () => {
          while (sent < size) {
            const n = Math.min(chunk.length, size - sent);
            sent += n;
            if (!req.write(chunk.subarray(0, n))) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      });
    try {
      const json = { contentType: 'application/json' };
      for (const [path, size, o, detail] of [
        ['/api/project/create_transcript', 3 * 1024 * 1024, json, 'Request body too large (the limit is 2 MB)'],
        ['/api/project/create_transcript', 3 * 1024 * 1024, { ...json, chunked: true }, 'Request body too large (the limit is 2 MB)'],
        // the dictionary import has its own, larger limit (8 MB), over it the same way
        ['/api/glossary/00000000-0000-4000-8000-000000000000/import', 9 * 1024 * 1024, { contentType: 'text/csv' }, 'The file is too large: at most 8 MB'],
      ] as const) {
        const r = await post(path, size, o);
        const what = `${path} ${JSON.stringify(o)}`;
        expect(r.status, what).toBe(413);
        expect(r.headers.connection, what).toBe('close');
        expect(Buffer.byteLength(r.body), what).toBe(Number(r.headers['content-length']));
        expect(JSON.parse(r.body), what).toEqual({ detail });
        await r.socketClosed;
      }
      // A request that fits still keeps its connection.
      const ok = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(ok.headers.get('connection')).toBe('keep-alive');
    } finally {
      agent.destroy();
      server.close();
    }
  });

  it('the link ingest takes only the spec hosts, resolving to public addresses', async () => {
    const bad = await createProject(h, u, { name: 'Bad', src_lang: 'en', dst_lang: 'es', link: 'http://127.0.0.1:8080/video.mp4' });
    expect(bad.response.status).toBe(400);
    expect(bad.error).toMatchObject({ detail: 'Please provide correct link' });
    await expect(checkIngestLink('http://169.254.169.254/latest/meta-data')).rejects.toMatchObject({ code: 'forbidden_link' });
    await expect(checkIngestLink('https://www.youtube.com/watch?v=abcdefghijk', { lookup: async () => ['10.0.0.5'] })).rejects.toThrow(
      /private network address/,
    );
    await expect(checkIngestLink('https://vimeo.com/123456', { lookup: async () => ['::1'] })).rejects.toThrow(/private network address/);
    await expect(checkIngestLink('https://vimeo.com/123456', { lookup: async () => ['::ffff:7f00:1'] })).rejects.toThrow(/private network address/);
    await expect(checkIngestLink('https://vimeo.com/123456', { lookup: async () => ['151.101.0.217'] })).resolves.toBeInstanceOf(URL);
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '0.0.0.0']) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
    for (const ip of ['8.8.8.8', '151.101.0.217', '2a00:1450:4001::200e']) expect(isPublicAddress(ip), ip).toBe(true);
  });
});
