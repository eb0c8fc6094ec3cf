// Faults in scale-out mode, with real processes: PostgreSQL, a private Redis and two `npm run worker`
// processes sharing one queue. A worker SIGKILLed mid-stage: the other finishes the job. A worker sent SIGTERM
// mid-stage: it exits within its grace period and the stage is finished or handed over. Redis restarted
// (every key lost) mid-job: the job still finishes. The database connection cut under a request in flight:
// that request gets a clear 503 and the next one succeeds. Nothing stays *_started and nothing is lost.
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PG_ADMIN_URL, createHarness, type Harness } from '../../server/harness';
import { createProject, newUser, uploadOk, waitForStatus, type TestUser } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';
import { makeSpeechVideo } from '../../fixtures/media';
import { freePort, startChild, startProxy, startRedis, stopProcess, type Child, type Proxy } from '../process-helpers';

const STALE = 3;
let redisPort: number;
let redis: ChildProcess;
let proxy: Proxy;
let h: Harness;
let u: TestUser;
let mediaId: string;
const workers: Child[] = [];
const prefix = `faults-${randomBytes(4).toString('hex')}`;

function workerEnv(): Record<string, string> {
  return {
    DATABASE_URL: h.config.databaseUrl!,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    QUEUE_PREFIX: prefix,
    DATA_DIR: h.dataDir,
    JWT_SECRET: h.config.jwtSecret,
    JOB_STALE_SECONDS: String(STALE),
    SHUTDOWN_GRACE_SECONDS: '2',
    LOG_LEVEL: 'info',
  };
}

async function startWorker(): Promise<Child> {
  const w = startChild('server/worker.ts', workerEnv());
  workers.push(w);
  await w.waitFor(/Pipeline worker \S+ processing/, 120_000);
  return w;
}

/** The worker process holding a running job of one of `stages` (waits until there is one). */
async function runningJob(projectId: string, stages: string[], timeoutMs = 150_000) {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    const rows = await h.deps.db.query<{ id: string; stage: string; owner: string }>(
      `SELECT id, stage, owner FROM pipeline_jobs WHERE project_id = $1 AND state = 'running'`,
      [projectId],
    );
    const r = rows.find((x) => stages.includes(x.stage));
    if (r) {
      const pid = Number(r.owner.split(':')[1]);
      const w = workers.find((x) => x.pid === pid);
      if (w) return { ...r, worker: w };
    }
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`no running ${stages.join('/')} job for ${projectId}`);
}

async function jobs(projectId: string) {
  return h.deps.db.query<{ stage: string; state: string; attempts: number; owner: string }>(
    `SELECT stage, state, attempts, owner FROM pipeline_jobs WHERE project_id = $1 ORDER BY created_at`,
    [projectId],
  );
}

async function nothingStarted() {
  return h.deps.db.query(`SELECT id, status FROM projects WHERE status LIKE '%\\_started'`);
}

beforeAll(async () => {
  redisPort = await freePort();
  redis = await startRedis(redisPort);
  proxy = await startProxy('127.0.0.1', Number(new URL(PG_ADMIN_URL).port || 5432));
  // The app (the web server's role) reaches PostgreSQL through the proxy; the workers connect directly.
  h = await createHarness(
    { REDIS_URL: `redis://127.0.0.1:${redisPort}`, QUEUE_PREFIX: prefix, JOB_STALE_SECONDS: String(STALE), EMBEDDED_WORKER: '0' },
    { db: 'pg', viaUrl: (url) => url.replace(/@[^/]+\//, `@127.0.0.1:${proxy.port}/`) },
  );
  u = await newUser(h, 'faults');
  mediaId = await uploadOk(h, u, await makeSpeechVideo({ seconds: 4 }), { name: 'talk.mp4' });
  await Promise.all([startWorker(), startWorker()]);
}, 240_000);

afterAll(async () => {
  for (const w of workers) w.kill('SIGKILL');
  await Promise.all(workers.map((w) => w.exited(10_000).catch(() => null)));
  await h?.close();
  await proxy?.close();
  if (redis) await stopProcess(redis);
});

describe('scale-out faults', () => {
  let projectId: string;

  it('a worker SIGKILLed mid-stage: the other worker finishes the job', async () => {
    const r = await createProject(h, u, { name: 'Killed', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    projectId = r.data!.id;
    const job = await runningJob(projectId, ['separate_background', 'transcribe_segments', 'transcription']);
    job.worker.kill('SIGKILL');
    expect((await job.worker.exited()).signal).toBe('SIGKILL');
    const done = await waitForStatus(h, u, projectId, (s) => s === 'translation_done' || /failed/.test(s), 180_000);
    expect(done.status).toBe('translation_done');
    const rows = await jobs(projectId);
    expect(rows.every((j) => j.state === 'done')).toBe(true);
    const resumed = rows.find((j) => j.stage === job.stage)!;
    expect(resumed.attempts).toBeGreaterThanOrEqual(2);
    expect(resumed.owner).not.toContain(`:${job.worker.pid}:`);
    expect(await nothingStarted()).toEqual([]);
    await startWorker(); // two workers again
  });

  it('a worker sent SIGTERM mid-stage exits within its grace period; the stage is finished or handed over', async () => {
    const g = await typedClient(h, u.token).POST('/api/project/{id}/generate', { params: { path: { id: projectId } } });
    expect(g.response.status, JSON.stringify(g.error)).toBe(200);
    const job = await runningJob(projectId, ['voiceover', 'merging']);
    const t0 = Date.now();
    job.worker.kill('SIGTERM');
    const exit = await job.worker.exited(30_000);
    expect(exit.code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(15_000); // grace 2 s + shutdown
    const done = await waitForStatus(h, u, projectId, (s) => s === 'merging_done' || /failed/.test(s), 180_000);
    expect(done.status).toBe('merging_done');
    expect((await jobs(projectId)).every((j) => j.state === 'done')).toBe(true);
    expect(await nothingStarted()).toEqual([]);
    await startWorker();
  });

  it('Redis restarted mid-job (every key lost): the job still finishes', async () => {
    const r = await createProject(h, u, { name: 'Redis restart', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    expect(r.response.status).toBe(200);
    await runningJob(r.data!.id, ['ingest', 'separate_background', 'transcribe_segments']);
    await stopProcess(redis, 'SIGKILL');
    redis = await startRedis(redisPort);
    const done = await waitForStatus(h, u, r.data!.id, (s) => s === 'translation_done' || /failed/.test(s), 180_000);
    expect(done.status).toBe('translation_done');
    expect((await jobs(r.data!.id)).every((j) => j.state === 'done')).toBe(true);
    expect(await nothingStarted()).toEqual([]);
  });

  it('the database connection cut under a request in flight: a clear 503, then the next request succeeds', async () => {
    const client = typedClient(h, u.token);
    const page = () => client.GET('/api/project/paginated', { params: { query: { space_id: u.defaultSpaceId } } });
    expect((await client.GET('/api/project/{id}', { params: { path: { id: projectId } } })).response.status).toBe(200);
    proxy.hold();
    const inFlight = page();
    // Wait until the request's query is stuck in the proxy, then cut every connection.
    while (proxy.held() === 0) await new Promise((res) => setTimeout(res, 10));
    proxy.cut();
    const r = await inFlight;
    expect(r.response.status).toBe(503);
    expect(r.error?.detail).toBe('The database is not reachable right now: try again in a moment');
    expect(r.response.headers.get('retry-after')).toBe('2');
    // The client does what the answer says: it tries again after Retry-After seconds.
    await new Promise((res) => setTimeout(res, 2_000));
    const next = await page();
    expect(next.response.status).toBe(200);
    expect(next.data!.total).toBeGreaterThanOrEqual(2);
  });
});
