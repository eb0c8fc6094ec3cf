// Faults in the embedded default (PGlite, in-process worker, local storage): `npm start` SIGKILLed mid-stage and
// started again resumes the project, and the session made before the kill still works (no JWT_SECRET: the
// secret generated once is kept in DATA_DIR). A disk that fills up while merging: a clear failure status, and
// the previous dub stays downloadable.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { persistedJwtSecret } from '../../../server/jwt-secret';
import { PROJECT_STAGES } from '../../../server/domains/projects/stages/index';

const HANDLERS = PROJECT_STAGES.handlers;
import { placeClips } from '../../../server/media/ffmpeg';
import { projectKey } from '../../../server/storage/index';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { newUser, replacePipeline, seedProject, uploadOk, waitForStatus } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';
import { startChild, type Child } from '../process-helpers';

const dirs: string[] = [];
const children: Child[] = [];
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited(10_000).catch(() => null)));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function http(base: string, method: string, path: string, o: { token?: string; body?: unknown; form?: FormData } = {}) {
  const headers: Record<string, string> = {};
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(base + path, { method, headers, body: o.form ?? (o.body !== undefined ? JSON.stringify(o.body) : undefined) });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
}

describe('JWT secret without JWT_SECRET', () => {
  it('is generated once, kept in DATA_DIR (0600), and agreed on by processes starting together', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'jwt-'));
    dirs.push(dir);
    const all = await Promise.all(Array.from({ length: 8 }, () => persistedJwtSecret(dir)));
    expect(new Set(all).size).toBe(1);
    expect(all[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, 'jwt-secret')).mode & 0o777).toBe(0o600);
    expect(await persistedJwtSecret(dir)).toBe(all[0]);
    writeFileSync(join(dir, 'jwt-secret'), 'short\n');
    await expect(persistedJwtSecret(dir)).rejects.toThrow(/no usable secret/);
  });
});

describe('embedded: SIGKILL mid-stage and restart', () => {
  it('resumes the project, and the session made before the kill still works', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'embedded-'));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', JOB_STALE_SECONDS: '3' };
    let server = startChild('server/main.ts', env);
    children.push(server);
    let base = `http://127.0.0.1:${(await server.waitFor(/listening on http:\/\/localhost:(\d+)/, 120_000))[1]}`;

    const up = await http(base, 'POST', '/api/auth/sign-up', { body: { email: 'crash@example.com', password: 'correct-horse-1' } });
    expect(up.status).toBe(201);
    const token = up.json.access_token as string;
    expect((await http(base, 'POST', '/api/users', { token, body: { email: 'crash@example.com', referral_id: null, token: null } })).status).toBe(201);
    const spaceId = (await http(base, 'GET', '/api/space/list', { token })).json[0].id as string;
    const form = new FormData();
    form.set('file', new Blob([readFileSync(await makeSpeechVideo({ seconds: 4 }))]), 'talk.mp4');
    const media = await http(base, 'POST', `/api/library/media?space_id=${spaceId}`, { token, form });
    expect(media.json?.status, JSON.stringify(media.json)).toBe('uploaded');
    const p = await http(base, 'POST', `/api/project/create_transcript?space_id=${spaceId}`, {
      token, body: { name: 'Crash', src_lang: 'en', dst_lang: 'es', media_id: media.json.id },
    });
    expect(p.status, JSON.stringify(p.json)).toBe(200);
    const id = p.json.id as string;

    // Killed while a stage runs.
    let status = '';
    const t0 = Date.now();
    while (!/^(separate_background|transcribe_segments|transcription)_started$/.test(status)) {
      if (Date.now() - t0 > 120_000) throw new Error(`no analysis stage started (last: ${status})`);
      status = (await http(base, 'GET', `/api/project/${id}`, { token })).json.status;
      await new Promise((r) => setTimeout(r, 20));
    }
    server.kill('SIGKILL');
    await server.exited();

    server = startChild('server/main.ts', env);
    children.push(server);
    base = `http://127.0.0.1:${(await server.waitFor(/listening on http:\/\/localhost:(\d+)/, 120_000))[1]}`;
    // Same token as before the kill: the secret came from DATA_DIR, not a new random one.
    let last: { status: number; json: { status: string } } | null = null;
    const t1 = Date.now();
    while (Date.now() - t1 < 180_000) {
      last = await http(base, 'GET', `/api/project/${id}`, { token });
      expect(last.status).toBe(200);
      if (last.json.status === 'translation_done' || /failed/.test(last.json.status)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(last?.json.status).toBe('translation_done');
    server.kill('SIGTERM');
    expect((await server.exited(40_000)).code).toBe(0);
  });
});

describe('embedded: SIGTERM while the VAD runs', () => {
  it('exits with code 0 (the native inference is stopped the safe way) and the restarted server finishes the project', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'embedded-term-'));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', JOB_STALE_SECONDS: '3', SHUTDOWN_GRACE_SECONDS: '0', LOG_LEVEL: 'info', LOG_PRETTY: '0' };
    let server = startChild('server/main.ts', env);
    children.push(server);
    let base = `http://127.0.0.1:${(await server.waitFor(/listening on http:\/\/localhost:(\d+)/, 120_000))[1]}`;
    const up = await http(base, 'POST', '/api/auth/sign-up', { body: { email: 'term@example.com', password: 'correct-horse-1' } });
    const token = up.json.access_token as string;
    expect((await http(base, 'POST', '/api/users', { token, body: { email: 'term@example.com', referral_id: null, token: null } })).status).toBe(201);
    const spaceId = (await http(base, 'GET', '/api/space/list', { token })).json[0].id as string;
    const form = new FormData();
    form.set('file', new Blob([readFileSync(await makeSpeechVideo({ seconds: 30 }))]), 'talk.mp4');
    const media = await http(base, 'POST', `/api/library/media?space_id=${spaceId}`, { token, form });
    const p = await http(base, 'POST', `/api/project/create_transcript?space_id=${spaceId}`, {
      token, body: { name: 'Term', src_lang: 'en', dst_lang: 'es', media_id: media.json.id },
    });
    expect(p.status, JSON.stringify(p.json)).toBe(200);
    const id = p.json.id as string;
    // The separation stage, which runs the VAD first, has started (the log says so at once); a moment later the
    // VAD's thread is loading the model or running it.
    await server.waitFor(/"stage":"separate_background"[^\n]*"msg":"stage started"/, 120_000);
    await new Promise((r) => setTimeout(r, 300));
    server.kill('SIGTERM');
    expect(await server.exited(60_000), server.output().slice(-2000)).toEqual({ code: 0, signal: null });
    expect(server.output()).not.toMatch(/terminate called|Napi::Error|Aborted/);

    server = startChild('server/main.ts', env);
    children.push(server);
    base = `http://127.0.0.1:${(await server.waitFor(/listening on http:\/\/localhost:(\d+)/, 120_000))[1]}`;
    let last = '';
    const t1 = Date.now();
    while (Date.now() - t1 < 180_000 && last !== 'translation_done' && !/failed/.test(last)) {
      last = (await http(base, 'GET', `/api/project/${id}`, { token })).json.status;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(last).toBe('translation_done');
    server.kill('SIGTERM');
    expect((await server.exited(60_000)).code).toBe(0);
  });
});

describe('disk full while merging', () => {
  let h: Harness;
  let mountedAt: string | null = null;
  afterAll(async () => {
    if (mountedAt) execFileSync('umount', ['-l', mountedAt]);
    await h?.close();
  });

  it('fails with a clear status and keeps the previous dub downloadable', async () => {
    h = await createHarness();
    const u = await newUser(h, 'diskfull');
    const video = await makeSpeechVideo({ seconds: 4 });
    const mediaId = await uploadOk(h, u, video, { name: 'talk.mp4' });
    const id = await seedProject(h, u, { mediaId, duration: 4, segments: [{ start: 0.3, end: 1.8, dst: 'Hola a todos.' }, { start: 2, end: 3.6, dst: 'Buenos días.' }] });
    // The analysis artifacts merging needs: the source video and a background track.
    await h.deps.storage!.copy(`uploads/${mediaId}/file.mp4`, projectKey(id, 'source.mp4'));
    const bg = join(h.dataDir, 'bg.wav');
    await placeClips([], 4, bg, { sampleRate: 48000, channels: 2 });
    await h.deps.storage!.putFile(projectKey(id, 'background.wav'), bg);
    await h.deps.db.query(`UPDATE projects SET original_video = $2 WHERE id = $1`, [id, projectKey(id, 'source.mp4')]);

    // Stage scratch space on a small tmpfs when this machine allows mounting (root); the merging stage
    // finds it nearly full. Elsewhere the same failure is injected where outputs are written to storage.
    const work = join(h.dataDir, 'work');
    mkdirSync(work, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', work], { stdio: 'ignore' });
      mountedAt = work;
    } catch {
      mountedAt = null;
    }
    let diskFull = false;
    const storage = h.deps.storage!;
    const realPut = storage.putFile.bind(storage);
    storage.putFile = async (key, path, o) => {
      if (diskFull && !mountedAt && key.includes('/out/')) throw Object.assign(new Error(`ENOSPC: no space left on device, write '${path}'`), { code: 'ENOSPC' });
      return realPut(key, path, o);
    };
    const p = await replacePipeline(h, {
      heartbeatMs: 1000,
      staleSec: 30,
      handlers: {
        ...HANDLERS,
        merging: async (ctx) => {
          const filler = join(work, 'filler');
          if (diskFull && mountedAt) {
            // Leave about 16 KB free.
            const free = Number(execFileSync('df', ['--output=avail', '-B1', work]).toString().split('\n')[1]!.trim());
            writeFileSync(filler, Buffer.alloc(Math.max(0, free - 16 * 1024)));
          }
          try {
            await HANDLERS.merging(ctx);
          } finally {
            rmSync(filler, { force: true });
          }
        },
      },
    });
    await p.startWorker(1);

    const client = typedClient(h, u.token);
    const at = { params: { path: { id } } };
    // First dub.
    expect((await client.POST('/api/project/{id}/generate', at)).response.status).toBe(200);
    const first = await waitForStatus(h, u, id, (s) => s === 'merging_done' || /failed/.test(s), 120_000);
    expect(first.status, String(first.error_message)).toBe('merging_done');
    const dl = await client.POST('/api/project/{id}/media_download', { ...at, body: { media_type: 'video' } });
    expect(dl.response.status, JSON.stringify(dl.error)).toBe(200);
    const before = Buffer.from(await (await h.app.request(dl.data!.url)).arrayBuffer());
    expect(before.length).toBeGreaterThan(1000);

    // Second dub with the disk full.
    diskFull = true;
    await h.deps.db.query(`UPDATE segments SET dst_text = 'Hola a todas.', status = 'updated' WHERE project_id = $1 AND start_sec < 1`, [id]);
    await h.deps.db.query(`UPDATE projects SET status = 'transcript_edited' WHERE id = $1`, [id]);
    expect((await client.POST('/api/project/{id}/generate', at)).response.status).toBe(200);
    const failed = await waitForStatus(h, u, id, (s) => s === 'merging_failed' || s === 'merging_done', 120_000);
    expect(failed.status).toBe('merging_failed');
    expect(failed.error_message).toMatch(/ran out of disk space.*previous result is still available/);
    // The previous dub is still what the download serves, byte for byte; nothing half-written was kept.
    const again = await client.POST('/api/project/{id}/media_download', { ...at, body: { media_type: 'video' } });
    expect(again.response.status, JSON.stringify(again.error)).toBe(200);
    const after = Buffer.from(await (await h.app.request(again.data!.url)).arrayBuffer());
    expect(after.equals(before)).toBe(true);
    const outs: string[] = [];
    for await (const o of storage.list(projectKey(id, 'out/'))) outs.push(o.key);
    expect(outs.every((k) => k.includes('/out/1/'))).toBe(true);
    storage.putFile = realPut;
  });
});
