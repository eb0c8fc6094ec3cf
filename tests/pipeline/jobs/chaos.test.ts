// Chaos: what users do at random moments while jobs run (a fixed seed, so a failure can be replayed): create a
// project and cancel or delete it at a random point of its analysis, generate and then cancel, delete or
// re-generate at a random point of the dub. On the embedded default (`npm start`: PGlite, in-process worker) and in
// scale-out (PostgreSQL + Redis, the API and a separate `npm run worker`). Checked:
//   - the API process never exits, and /api/health answers throughout;
//   - every project ends in a final status, never `*_started`, and no job stays queued or running;
//   - no minutes are lost or charged twice: each generation is charged once, refunded at most once, and refunded
//     exactly when it was not delivered (cancelled, failed, or its project deleted while it ran);
//   - no file of a deleted project remains;
//   - SIGTERM then stops each process with exit code 0 (running native inference is stopped the safe way).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../../server/db/index';
import { makeSpeechVideo } from '../../fixtures/media';
import { PG_ADMIN_URL } from '../../server/harness';
import { startChild, type Child } from '../process-helpers';

const SEED = Number(process.env.CHAOS_SEED ?? 20261127);
/** Projects per run: enough to hit every stage many times, bounded for CI. */
const PROJECTS = Number(process.env.CHAOS_PROJECTS ?? 24);
/** Users acting at once. */
const AT_ONCE = 4;
const GRANT = 500;

const children: Child[] = [];
const dirs: string[] = [];
const databases: string[] = [];
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited(10_000).catch(() => null)));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  if (databases.length) {
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    for (const d of databases) await admin.query(`DROP DATABASE IF EXISTS ${d} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
});

/** A small deterministic generator (mulberry32). */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class Client {
  token = '';
  /** `server`: the API process, named in the error when a request finds it gone. */
  constructor(readonly base: string, readonly server: Child) {}
  async call(method: string, path: string, o: { body?: unknown; form?: FormData } = {}) {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    const r = await fetch(this.base + path, { method, headers, body: o.form ?? (o.body !== undefined ? JSON.stringify(o.body) : undefined) }).catch(
      async (e: unknown) => {
        const exit = await this.server.exited(2000).catch(() => null);
        throw new Error(`${method} ${path}: ${String(e)}; the API process ${exit ? `exited (${JSON.stringify(exit)})` : 'is still running'}:\n${this.server.output().slice(-1500)}`);
      },
    );
    const text = await r.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: r.status, json: json as any };
  }
}

/** Polls /api/health every 100 ms: how many asks, how many got no 200 within 2 s, and the slowest answer. */
function watchHealth(base: string) {
  const s = { asked: 0, failed: 0, slowestMs: 0, failures: [] as string[] };
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const t0 = Date.now();
      s.asked++;
      try {
        const r = await fetch(`${base}/api/health`, { signal: AbortSignal.timeout(2000) });
        await r.text();
        if (r.status !== 200) {
          s.failed++;
          s.failures.push(`status ${r.status}`);
        }
      } catch (e) {
        s.failed++;
        s.failures.push(String(e));
      }
      s.slowestMs = Math.max(s.slowestMs, Date.now() - t0);
      await sleep(100);
    }
  })();
  return { stats: s, stop: async () => ((stop = true), await loop) };
}

/**
 * What one user does to one project: cancel or delete it a moment after a chosen stage has started (of the analysis,
 * or of the dub once it is generated), let the dub finish, or edit and generate again and cancel that.
 */
interface Act {
  phase: 'analysis' | 'dub';
  what: 'cancel' | 'delete' | 'finish' | 'regenerate';
  /** The status whose start the act waits for. */
  at: string;
  /** Milliseconds after that start. */
  delay: number;
}
const ANALYSIS_AT = ['uploading', 'separate_background_started', 'separate_background_started', 'transcribe_segments_started', 'transcription_started', 'determine_speakers_started', 'translation_started'];
const DUB_AT = ['voiceover_started', 'merging_started'];

function planOf(rand: () => number, n: number): Act[] {
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  return Array.from({ length: n }, () => {
    const delay = Math.floor(rand() * 700);
    if (rand() < 0.5) return { phase: 'analysis', what: pick(['cancel', 'cancel', 'delete'] as const), at: pick(ANALYSIS_AT), delay };
    return { phase: 'dub', what: pick(['cancel', 'delete', 'finish', 'regenerate'] as const), at: pick(DUB_AT), delay };
  });
}

const GENERATABLE = /^(translation_done|transcript_edited|voice_edited|voice_update_done|voice_update_failed|voiceover_failed|merging_failed|merging_done)$/;

/** The project's status (a cancelled voice suggestion reads 'voice_suggest_failed:cancelled'); null when deleted. */
async function statusOf(c: Client, id: string): Promise<string | null> {
  const r = await c.call('GET', `/api/project/${id}`);
  if (r.status === 404) return null;
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  return r.json.status === 'voice_suggest_failed' && r.json.error_code === 'cancelled' ? 'voice_suggest_failed:cancelled' : (r.json.status as string);
}

/** Statuses of a project whose pipeline still runs (a stage, or the moment between two stages). */
const RUNNING = /_started$|^(created|uploading|uploaded|separate_background_done|transcribe_segments_done|transcription_done|determine_speakers_done|voice_suggest_done|voice_suggest_failed|voiceover_done)$/;

/** Waits until the project's pipeline has stopped: its final status, null when deleted. */
async function settle(c: Client, id: string, timeoutMs = 180_000): Promise<string | null> {
  const t0 = Date.now();
  for (;;) {
    const s = await statusOf(c, id);
    if (s === null || !RUNNING.test(s)) return s;
    if (Date.now() - t0 > timeoutMs) {
      const lines = c.server.output().split('\n').filter((l) => l.includes(id)).slice(-30).join('\n');
      throw new Error(`project ${id} still ${s} after ${timeoutMs} ms; the API process's log of it:\n${lines}`);
    }
    await sleep(150);
  }
}

interface RunResult {
  deleted: string[];
  kept: string[];
  uploads: Map<string, string>;
}

/** Waits until the project's status is `at` (then `delay` ms more), or until it has gone past it. */
async function reach(c: Client, id: string, at: string, delay: number): Promise<void> {
  const t0 = Date.now();
  for (;;) {
    const s = await statusOf(c, id);
    if (s === at) break;
    if (s === null || !RUNNING.test(s) || Date.now() - t0 > 120_000) return;
    await sleep(25);
  }
  await sleep(delay);
}

async function chaos(c: Client, spaceId: string, video: Buffer): Promise<RunResult> {
  const plan = planOf(rng(SEED), PROJECTS);
  const out: RunResult = { deleted: [], kept: [], uploads: new Map() };
  let next = 0;
  const one = async (i: number, act: Act) => {
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(video)], { type: 'video/mp4' }), `clip-${i}.mp4`);
    const up = await c.call('POST', `/api/library/media?space_id=${spaceId}`, { form });
    expect(up.status, JSON.stringify(up.json)).toBe(200);
    const created = await c.call('POST', `/api/project/create_transcript?space_id=${spaceId}`, {
      body: { name: `Chaos ${i} ${act.phase} ${act.what} ${act.at}`, src_lang: 'en', dst_lang: 'es', media_id: up.json.id },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(200);
    const id = created.json.id as string;
    out.uploads.set(id, up.json.id as string);
    let deleted = false;
    const stop = async () => {
      if (act.what === 'delete') {
        const r = await c.call('DELETE', `/api/project/${id}`);
        expect([200, 204]).toContain(r.status);
        deleted = true;
      } else {
        const r = await c.call('POST', `/api/project/${id}/cancel`);
        // 409: the stage had just ended and nothing ran any more.
        expect([200, 409], JSON.stringify(r.json)).toContain(r.status);
      }
    };
    const generate = async () => {
      const g = await c.call('POST', `/api/project/${id}/generate`);
      expect(g.status, JSON.stringify(g.json)).toBe(200);
    };
    if (act.phase === 'analysis') {
      await reach(c, id, act.at, act.delay);
      await stop();
    } else {
      const ready = await settle(c, id);
      if (ready && GENERATABLE.test(ready)) {
        await generate();
        if (act.what === 'regenerate') {
          const s = await settle(c, id);
          if (s && GENERATABLE.test(s)) {
            const t = await c.call('GET', `/api/project/${id}/transcript`);
            const seg = t.json.segments[0];
            if (seg) {
              const e = await c.call('PATCH', `/api/project/${id}/transcript`, {
                body: { segments: [{ id: seg.id, dst: { ...seg.dst, text: `${seg.dst.text} otra vez` } }] },
              });
              expect(e.status, JSON.stringify(e.json)).toBe(200);
            }
            await generate();
            await reach(c, id, act.at, act.delay);
            const r = await c.call('POST', `/api/project/${id}/cancel`);
            expect([200, 409], JSON.stringify(r.json)).toContain(r.status);
          }
        } else if (act.what !== 'finish') {
          await reach(c, id, act.at, act.delay);
          await stop();
        }
      }
    }
    (deleted ? out.deleted : out.kept).push(id);
  };
  const lanes = Array.from({ length: AT_ONCE }, async () => {
    while (next < plan.length) {
      const i = next++;
      await one(i, plan[i]!);
    }
  });
  await Promise.all(lanes);
  return out;
}

/** The checks made on the database once every process has stopped. */
async function checkDatabase(db: Db, r: RunResult, dataDir: string) {
  expect(await db.query(`SELECT id, status FROM projects WHERE status LIKE '%\\_started'`)).toEqual([]);
  expect(await db.query(`SELECT id, stage, state FROM pipeline_jobs WHERE state IN ('queued', 'running')`)).toEqual([]);
  expect((await db.query<{ id: string }>(`SELECT id FROM projects WHERE id::text IN (SELECT jsonb_array_elements_text($1::jsonb))`, [r.deleted])).length).toBe(0);

  // Each reference: at most one debit and one refund per bucket, a refund only of a debit, for the same minutes.
  const rows = await db.query<{ ref: string; bucket: string; kind: string; n: number; minutes: number }>(
    `SELECT ref, bucket, kind, count(*)::int AS n, sum(minutes)::float8 AS minutes FROM minutes_ledger
     WHERE ref LIKE 'project:%' GROUP BY ref, bucket, kind`,
  );
  const byRef = new Map<string, { debit?: number; refund?: number }>();
  for (const x of rows) {
    expect(x.n, `${x.ref} ${x.kind} written ${x.n} times`).toBe(1);
    const e = byRef.get(x.ref) ?? {};
    if (x.kind === 'debit') e.debit = -x.minutes;
    if (x.kind === 'refund') e.refund = x.minutes;
    byRef.set(x.ref, e);
  }
  for (const [ref, e] of byRef) {
    if (e.refund !== undefined) expect(e.refund, ref).toBe(e.debit);
  }
  // Projects still there: the delivered generation is charged, every later one (cancelled or failed) refunded.
  const projects = await db.query<{ id: string; generation: number; dubbed_generation: number | null; status: string }>(
    `SELECT id, generation, dubbed_generation, status FROM projects WHERE id::text IN (SELECT jsonb_array_elements_text($1::jsonb))`,
    [r.kept],
  );
  expect(projects.length).toBe(r.kept.length);
  let charged = 0;
  for (const p of projects) {
    for (let g = 1; g <= p.generation; g++) {
      const e = byRef.get(`project:${p.id}:gen:${g}`);
      if (!e?.debit) continue;
      if (p.dubbed_generation !== null && g === p.dubbed_generation) {
        expect(e.refund, `generation ${g} of ${p.id} (${p.status}) was delivered: charged`).toBeUndefined();
        charged++;
      } else if (p.dubbed_generation === null || g > p.dubbed_generation) {
        expect(e.refund, `generation ${g} of ${p.id} (${p.status}) was not delivered: refunded`).toBe(e.debit);
      }
    }
  }
  // The balance is the grant less what was charged and not given back.
  const net = await db.one<{ m: number }>(`SELECT coalesce(sum(minutes), 0)::float8 AS m FROM minutes_ledger WHERE ref LIKE 'project:%'`);
  const spent = [...byRef.values()].reduce((s, e) => s + (e.debit ?? 0) - (e.refund ?? 0), 0);
  expect(-net.m).toBeCloseTo(spent, 6);
  expect(charged).toBeGreaterThan(0);
  expect(byRef.size).toBeGreaterThan(charged); // some generations were refunded

  // No file of a deleted project (nor its upload) remains.
  for (const id of r.deleted) {
    expect(existsSync(join(dataDir, 'media', 'projects', id)), `files of deleted project ${id}`).toBe(false);
    expect(existsSync(join(dataDir, 'media', 'uploads', r.uploads.get(id)!)), `upload of deleted project ${id}`).toBe(false);
  }
}

async function signUp(c: Client) {
  const email = `chaos-${randomBytes(3).toString('hex')}@example.com`;
  const s = await c.call('POST', '/api/auth/sign-up', { body: { email, password: 'correct-horse-1' } });
  expect(s.status, JSON.stringify(s.json)).toBe(201);
  c.token = s.json.access_token;
  const u = await c.call('POST', '/api/users', { body: { email, referral_id: null, token: null } });
  expect(u.status, JSON.stringify(u.json)).toBe(201);
  // The first account of an install is its superuser: it grants itself the minutes of the run.
  const g = await c.call('POST', `/api/admin/users/${u.json.id}/minutes`, { body: { minutes: GRANT, request_id: 'chaos-grant' } });
  expect(g.status, JSON.stringify(g.json)).toBe(200);
  const spaces = await c.call('GET', '/api/space/list');
  return (spaces.json as Array<{ id: string; is_default: boolean }>).find((x) => x.is_default)!.id;
}

function noCrash(c: Child) {
  expect(c.output()).not.toMatch(/terminate called|Aborted|Segmentation fault|FATAL ERROR/);
}

describe('chaos: cancel, delete and re-generate at random moments', () => {
  it(`embedded (PGlite, in-process worker): ${PROJECTS} projects, seed ${SEED}`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chaos-embedded-'));
    dirs.push(dataDir);
    const server = startChild('server/main.ts', {
      DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', WORKER_CONCURRENCY: '2', JOB_STALE_SECONDS: '5', SHUTDOWN_GRACE_SECONDS: '2', LOG_LEVEL: 'info',
    });
    children.push(server);
    const base = `http://127.0.0.1:${(await server.waitFor(/listening on http:\/\/localhost:(\d+)/, 180_000))[1]}`;
    const health = watchHealth(base);
    const c = new Client(base, server);
    const spaceId = await signUp(c);
    const video = readFileSync(await makeSpeechVideo({ seconds: 4 }));
    const r = await chaos(c, spaceId, video);
    for (const id of r.kept) await settle(c, id);
    await health.stop();
    expect(health.stats.failed, health.stats.failures.slice(0, 5).join('; ')).toBe(0);
    expect(health.stats.asked).toBeGreaterThan(50);
    server.kill('SIGTERM');
    const exit = await server.exited(60_000);
    noCrash(server);
    expect(exit, server.output().slice(-2000)).toEqual({ code: 0, signal: null });

    const db = await openDb({ dataDir: join(dataDir, 'db') });
    try {
      await checkDatabase(db, r, dataDir);
    } finally {
      await db.close();
    }
  }, 900_000);

  it(`scale-out (PostgreSQL + Redis, separate worker kept up by a supervisor): ${PROJECTS} projects, seed ${SEED}`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chaos-scaleout-'));
    dirs.push(dataDir);
    const dbName = `chaos_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    databases.push(dbName);
    const url = new URL(PG_ADMIN_URL);
    url.pathname = `/${dbName}`;
    const env = {
      DATABASE_URL: url.toString(), REDIS_URL: 'redis://127.0.0.1:6379', QUEUE_PREFIX: dbName, DATA_DIR: dataDir,
      JWT_SECRET: randomBytes(32).toString('hex'), JOB_STALE_SECONDS: '5', SHUTDOWN_GRACE_SECONDS: '2', LOG_LEVEL: 'info',
    };
    const server = startChild('server/main.ts', { ...env, PORT: '0', HOST: '127.0.0.1', EMBEDDED_WORKER: '0' });
    children.push(server);
    const base = `http://127.0.0.1:${(await server.waitFor(/listening on http:\/\/localhost:(\d+)/, 180_000))[1]}`;
    // The supervisor: a worker that exits is started again (systemd Restart=always does this in production).
    let worker = startChild('server/worker.ts', { ...env, WORKER_CONCURRENCY: '2' });
    children.push(worker);
    let restarts = 0;
    let supervising = true;
    const supervise = (async () => {
      while (supervising) {
        const ended = await Promise.race([worker.exited(3_600_000).then(() => true), sleep(200).then(() => false)]);
        if (ended && supervising) {
          restarts++;
          worker = startChild('server/worker.ts', { ...env, WORKER_CONCURRENCY: '2' });
          children.push(worker);
        }
      }
    })();
    await worker.waitFor(/Pipeline worker \S+ processing/, 180_000);
    const health = watchHealth(base);
    const c = new Client(base, server);
    const spaceId = await signUp(c);
    const video = readFileSync(await makeSpeechVideo({ seconds: 4 }));
    const r = await chaos(c, spaceId, video);
    for (const id of r.kept) await settle(c, id);
    await health.stop();
    supervising = false;
    await supervise;
    expect(health.stats.failed, health.stats.failures.slice(0, 5).join('; ')).toBe(0);
    expect(restarts, worker.output().slice(-2000)).toBe(0);
    worker.kill('SIGTERM');
    server.kill('SIGTERM');
    const [we, se] = await Promise.all([worker.exited(60_000), server.exited(60_000)]);
    noCrash(worker);
    noCrash(server);
    expect(we, worker.output().slice(-2000)).toEqual({ code: 0, signal: null });
    expect(se, server.output().slice(-2000)).toEqual({ code: 0, signal: null });

    const db = await openDb({ databaseUrl: url.toString() });
    try {
      await checkDatabase(db, r, dataDir);
    } finally {
      await db.close();
    }
  }, 900_000);
});
