// Fair queues, scale-out mode: PostgreSQL, a private Redis (BullMQ) and two worker processes with two slots each
// (tests/pipeline/jobs/fair-queue-worker-child.ts: the real pipeline runtime and queue, stage stubs of FAIR_STAGE_MS).
// Space A queues 20 short jobs, then space B one: B's job goes ahead of A's batch (its BullMQ priority is its space's
// live jobs), and A never runs more jobs at once than its plan allows across both processes (the claim counts them
// in the database and defers the job back to Redis).
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../server/harness';
import { allEnded, figures, spaceWithProjects, STAGE, type Mark } from './fair-queue-fixtures';
import { freePort, startChild, startRedis, stopProcess, type Child } from '../process-helpers';

const STAGE_MS = 200;
const SLOTS = 4; // two workers, two slots each
let redisPort: number;
let redis: ChildProcess;
let h: Harness;
const workers: Child[] = [];
const prefix = `fairq-${randomBytes(4).toString('hex')}`;

function marks(): Mark[] {
  const out: Mark[] = [];
  for (const w of workers) {
    for (const m of w.output().matchAll(/^(START|END) (\S+) (\d+)$/gm)) {
      out.push({ projectId: m[2]!, kind: m[1] === 'START' ? 'start' : 'end', at: Number(m[3]) });
    }
  }
  return out;
}

beforeAll(async () => {
  redisPort = await freePort();
  redis = await startRedis(redisPort);
  h = await createHarness(
    { REDIS_URL: `redis://127.0.0.1:${redisPort}`, QUEUE_PREFIX: prefix, JOB_STALE_SECONDS: '10', EMBEDDED_WORKER: '0' },
    { db: 'pg' },
  );
  const env = {
    DATABASE_URL: h.config.databaseUrl!,
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    QUEUE_PREFIX: prefix,
    DATA_DIR: h.dataDir,
    JWT_SECRET: h.config.jwtSecret,
    JOB_STALE_SECONDS: '10',
    WORKER_CONCURRENCY: String(SLOTS / 2),
    FAIR_STAGE_MS: String(STAGE_MS),
    LOG_LEVEL: 'info',
  };
  for (let i = 0; i < 2; i++) workers.push(startChild('tests/pipeline/jobs/fair-queue-worker-child.ts', env));
  await Promise.all(workers.map((w) => w.waitFor(/fair worker ready/, 120_000)));
}, 240_000);

afterAll(async () => {
  for (const w of workers) w.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited(15_000).catch(() => w.kill('SIGKILL'))));
  await h?.close();
  if (redis) await stopProcess(redis);
});

async function scenario(aTier: string) {
  const a = await spaceWithProjects(h, aTier, 20);
  const b = await spaceWithProjects(h, null, 1);
  for (const id of a.projects) await h.deps.pipeline.enqueue(id, STAGE);
  // B counts as queued once its push to Redis is done; its wait from the enqueue call (row, ticket, push) is reported too.
  const called = Date.now();
  await h.deps.pipeline.enqueue(b.projects[0]!, STAGE);
  const queued: Mark = { projectId: b.projects[0]!, kind: 'queued', at: Date.now() };
  const ids = new Set([...a.projects, ...b.projects]);
  const all = (await allEnded(marks, [...ids], 90_000)).filter((m) => ids.has(m.projectId));
  const f = figures([queued, ...all], a, b, STAGE_MS);
  const bStart = all.find((m) => m.projectId === b.projects[0] && m.kind === 'start')!.at;
  return { ...f, bWaitFromEnqueueCallMs: bStart - called, enqueueMs: queued.at - called };
}

describe('fair queues (scale-out, two worker processes)', () => {
  it("B's single job goes ahead of A's 20-job batch that fills every slot of both workers", async () => {
    const f = await scenario('business'); // A may run 4 at once: alone it would hold all 4 slots for its whole batch
    console.log('[fair-queue scale-out, 2x2 slots, A business]', JSON.stringify(f));
    // A's jobs that started while B waited were already taken when B was queued: at most one per slot.
    expect(f.aWentAheadOfB).toBeLessThanOrEqual(SLOTS);
    expect(f.aNotStartedAtB).toBeGreaterThanOrEqual(10);
    expect(f.aMaxConcurrent).toBeLessThanOrEqual(4);
    expect(f.maxConcurrent).toBeLessThanOrEqual(SLOTS);
  });

  it("A never runs more jobs at once than its plan's limit across both processes; B starts beside them", async () => {
    const f = await scenario('creator'); // 2 at once
    console.log('[fair-queue scale-out, 2x2 slots, A creator]', JSON.stringify(f));
    expect(f.aMaxConcurrent).toBe(2);
    expect(f.aWentAheadOfB).toBeLessThanOrEqual(SLOTS);
    expect(f.aNotStartedAtB).toBeGreaterThanOrEqual(10);
    // Every job row ends done (the stub's END is printed just before its row is finished: bounded wait).
    let left: unknown[] = [];
    for (let i = 0; i < 200; i++) {
      left = await h.deps.db.query(`SELECT id, state FROM pipeline_jobs WHERE state <> 'done'`);
      if (left.length === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(left).toEqual([]);
  });
});
