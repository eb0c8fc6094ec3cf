// Load benchmark of the scale-out mode (`npm run bench load`, or `node --import tsx bench/load.ts`):
// PostgreSQL + Redis + one `server/worker.ts` process on this machine, the API server in this process.
// 100 concurrent clients (autocannon, sending Accept-Encoding as browsers and fetch do) on the read paths: settings, users/current, the paginated project list and
// the transcript of a 1,000-segment project (read whole, and revalidated with If-None-Match as the editor does); first with the workers idle, then while two pipeline jobs (60 s
// videos of real speech, English -> Spanish, built-in engines) run, the worker running both at once, a new one
// started whenever one ends so that two run throughout. Prints requests/s, p50/p99/max latency and
// errors for each path, both ways, the main thread's CPU per request (what the API itself spends), the other
// threads' (the clients, mostly), how busy the machine was, the stages running, plus the API's event-loop stalls
// during the jobs. The clients run in a worker
// thread (autocannon's workers), off the API's event loop; they share the 2 cores with everything else.
// Needs PostgreSQL (BENCH_PG_URL, default postgres://postgres@127.0.0.1:5432/test: a database of its own is
// created and dropped) and Redis (BENCH_REDIS_URL, default redis://127.0.0.1:6379; keys under a unique prefix).
// Options: --connections=N (100), --seconds=N per path (8), --video=N seconds (60).
import { serve } from '@hono/node-server';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openAsBlob, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { buildDeps, shutdownDeps } from '../server/bootstrap';
import { loadConfig } from '../server/config';
import { openPostgres } from '../server/db/index';
import { createApp } from '../server/app/app';
import { makeTestVideo, placeClips } from '../server/media/ffmpeg';
import { wavDurationSec } from '../server/media/wav';
import { replaceSpeakers, setSpeakerVoice, updateProjectFields } from '../server/domains/projects/repository';
import { insertSegments } from '../server/domains/projects/transcript/repository';
import { setStatus } from '../server/domains/projects/pipeline/stages';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; max: number };
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}
type Autocannon = (opts: { url: string; connections: number; duration: number; workers?: number; headers?: Record<string, string> }) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const ROOT = resolve(import.meta.dirname, '..');
const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';
const CLIPS = ['0870', '0880', '0890', '0920', '0930'].map((id) => join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${id}.wav`));

/** CPU time of this process's main thread (the API's event loop), user + system, in ms (from /proc: 10 ms ticks). */
function mainThreadCpuMs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime and stime (fields 14, 15), in clock ticks of 1/100 s
}

/** CPU time of this whole process (the API's main thread, the clients' worker thread, libuv's pool...), in ms. */
function processCpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

/** The machine's busy and total CPU time since boot, in clock ticks, all cores (from /proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  const idle = (f[3] ?? 0) + (f[4] ?? 0); // idle + iowait
  return { busy: total - idle, total };
}

export interface LoadRow {
  path: string;
  /** Main-thread CPU per answered request (the API's own cost; the clients, PostgreSQL and the kernel's share of
   * loopback are not in it, except the system time of the API's socket writes). */
  apiCpuUsPerRequest: number;
  /** CPU of the bench process's other threads per request: mostly the clients (autocannon's worker thread). */
  clientCpuUsPerRequest: number;
  /** How busy the whole machine was during the run (all cores, 100% = every core busy). */
  machineBusyPct: number;
  /** With jobs: the fewest and most pipeline stages running during the row (sampled every 250 ms). */
  stagesRunning?: { min: number; max: number };
  phase: 'idle' | 'jobs';
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
}

function argsOf(argv: string[]): Record<string, string> {
  return Object.fromEntries(argv.map((a) => /^--([\w-]+)=(.*)$/.exec(a)).filter((m): m is RegExpExecArray => !!m).map((m) => [m[1]!, m[2]!]));
}

async function speechVideo(dir: string, seconds: number): Promise<string> {
  const clips: Array<{ path: string; offsetSec: number }> = [];
  let t = 0.5;
  for (let i = 0; ; i++) {
    const path = CLIPS[i % CLIPS.length]!;
    const d = wavDurationSec(path);
    if (t + d > seconds - 0.3) break;
    clips.push({ path, offsetSec: t });
    t += d + 0.7;
  }
  const wav = join(dir, 'speech.wav');
  await placeClips(clips, seconds, wav, { sampleRate: 16000, channels: 1 });
  const out = join(dir, 'load.mp4');
  await makeTestVideo({ out, seconds, width: 640, height: 360, fps: 25, audio: wav });
  return out;
}

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'server/worker.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ONNXRUNTIME_NODE_INSTALL: 'skip', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error(`the worker did not start in 120 s:\n${out.slice(-2000)}`)), 120_000);
    const onData = (d: Buffer) => {
      out = (out + d.toString()).slice(-20_000);
      if (/Pipeline worker \S+ processing/.test(out)) {
        clearTimeout(t);
        res(proc);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => {
      clearTimeout(t);
      rej(new Error(`the worker exited (${code}):\n${out.slice(-2000)}`));
    });
  });
}

export async function runLoadBench(argv: string[] = process.argv.slice(2), log: (l: string) => void = (l) => console.log(l)): Promise<LoadRow[]> {
  const args = argsOf(argv);
  const connections = Number(args.connections ?? 100);
  const seconds = Number(args.seconds ?? 8);
  const videoSec = Number(args.video ?? 60);
  const pgAdmin = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const redisUrl = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const dbName = `bench_load_${randomBytes(4).toString('hex')}`;
  const dbUrl = pgAdmin.replace(/\/[^/]*$/, `/${dbName}`);
  const prefix = `bench-${randomBytes(4).toString('hex')}`;
  const dir = mkdtempSync(join(tmpdir(), 'bench-load-'));
  const admin = await openPostgres(pgAdmin, 1);
  await admin.exec(`CREATE DATABASE ${dbName}`);
  const env = {
    NODE_ENV: 'production',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0002',
    DATA_DIR: join(dir, 'data'),
    DATABASE_URL: dbUrl,
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    EMBEDDED_WORKER: '0',
    ACCESS_TOKEN_TTL: '86400',
    LOG_LEVEL: 'warn',
  };
  let worker: ChildProcess | null = null;
  let deps: Awaited<ReturnType<typeof buildDeps>> | null = null;
  const rows: LoadRow[] = [];
  try {
    log(`building a ${videoSec} s video of real speech for the jobs...`);
    const video = await speechVideo(dir, videoSec);
    deps = await buildDeps(loadConfig({ ...process.env, ...env }), { role: 'server' });
    const app = createApp(deps, { distDir: null, log: () => {} });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((r) => server.once('listening', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the bench reads a few fields of several answers
    const call = async (method: string, path: string, token: string | null, body?: unknown): Promise<any> => {
      const r = await fetch(base + path, {
        method,
        headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const j = await r.json();
      if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(j)}`);
      return j;
    };
    // The first account of an install is a superuser: it grants itself the Business plan (minutes for the jobs).
    const email = 'load@example.com';
    const token = String((await call('POST', '/api/auth/sign-up', null, { email, password: 'bench-password-1' })).access_token);
    const user = await call('POST', '/api/users', token, { email, referral_id: null, token: null });
    await call('PATCH', `/api/admin/users/${user.id}`, token, { plan: 'business' });
    const spaces = (await call('GET', '/api/space/list', token)) as Array<{ id: string; is_default?: boolean }>;
    const space = (spaces.find((s) => s.is_default) ?? spaces[0])!;
    const upload = async () => {
      const form = new FormData();
      form.set('file', await openAsBlob(video, { type: 'video/mp4' }), 'load.mp4');
      const r = await fetch(`${base}/api/library/media?space_id=${space.id}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      const m = (await r.json()) as { id: string; status: string };
      if (m.status !== 'uploaded') throw new Error(`upload: ${JSON.stringify(m)}`);
      return m.id;
    };

    // The 1,000-segment project of the transcript path (its rows written directly: it is read, never dubbed).
    const seeded = await call('POST', `/api/project/create_transcript?space_id=${space.id}`, token, {
      name: 'Long transcript', src_lang: 'en', dst_lang: 'es', media_id: await upload(),
    });
    await deps.db.query(`DELETE FROM pipeline_jobs WHERE project_id = $1`, [seeded.id]);
    const segs = Array.from({ length: 1000 }, (_, i) => ({
      start: i * 3.6, end: i * 3.6 + 3, speaker: `SPEAKER_${i % 3}`, status: 'done' as const,
      src: `Sentence number ${i + 1} of the long transcript, with a few more words.`, dst: `Frase número ${i + 1} de la transcripción larga, con algunas palabras más.`,
    }));
    await insertSegments(deps.db, seeded.id, segs);
    await replaceSpeakers(deps.db, seeded.id, [0, 1, 2].map((i) => ({ id: `SPEAKER_${i}`, name: `Speaker ${i + 1}`, gender: 'male', pitch_hz: 110 })));
    const voice = (await deps.engines.voices('es'))[0]!.id;
    for (const i of [0, 1, 2]) await setSpeakerVoice(deps.db, seeded.id, `SPEAKER_${i}`, voice, false);
    await updateProjectFields(deps.db, seeded.id, { duration: 3600 });
    await setStatus(deps.db, seeded.id, 'translation_done');

    // The clients ask as a browser (and fetch) does: compressed answers accepted.
    const accept = { 'accept-encoding': 'gzip, deflate, br, zstd' };
    const auth = { ...accept, authorization: `Bearer ${token}` };
    const targets: Array<{ path: string; headers: Record<string, string>; label?: string; ok304?: boolean }> = [
      { path: '/api/settings', headers: accept },
      { path: '/api/users/current', headers: auth },
      { path: `/api/project/paginated?space_id=${space.id}&page=1&per_page=20`, headers: auth },
      { path: `/api/project/${seeded.id}/transcript`, headers: auth },
    ];
    // The editor revalidates the transcript it holds (If-None-Match): measured too, apart from the full reads.
    const transcriptPath = `/api/project/${seeded.id}/transcript`;
    const etag = (await fetch(base + transcriptPath, { headers: auth })).headers.get('etag');
    if (!etag) throw new Error('the transcript has no ETag');
    targets.push({ path: transcriptPath, label: `${transcriptPath} (If-None-Match)`, headers: { ...auth, 'if-none-match': etag }, ok304: true });
    for (const t of targets) await fetch(base + t.path, { headers: t.headers }).then((r) => r.text()); // warm-up
    const measure = async (phase: LoadRow['phase'], runningSamples?: () => number[]) => {
      for (const t of targets) {
        runningSamples?.();
        // The clients run in a worker thread of their own: on the API's event loop they would add their own work
        // to every latency measured.
        const cpu0 = mainThreadCpuMs();
        const all0 = processCpuMs();
        const m0 = machineTicks();
        const r = await autocannon({ url: base + t.path, connections, duration: seconds, workers: 1, headers: t.headers });
        const cpuMs = mainThreadCpuMs() - cpu0;
        const otherMs = processCpuMs() - all0 - cpuMs;
        const m1 = machineTicks();
        const n = Math.max(1, r.requests.total);
        const row: LoadRow = {
          path: (t.label ?? t.path).replace(/[0-9a-f-]{36}/g, ':id'), phase,
          apiCpuUsPerRequest: Math.round((cpuMs * 1000) / n),
          clientCpuUsPerRequest: Math.round((otherMs * 1000) / n),
          machineBusyPct: Math.round((100 * (m1.busy - m0.busy)) / Math.max(1, m1.total - m0.total)),
          requestsPerSec: Math.round(r.requests.average), p50Ms: r.latency.p50, p99Ms: r.latency.p99, maxMs: r.latency.max,
          // A revalidation's 304 is its success.
          errors: r.errors + r.timeouts + (t.ok304 ? r.non2xx - (r.statusCodeStats?.['304']?.count ?? 0) : r.non2xx),
        };
        const during = runningSamples?.() ?? [];
        if (during.length) row.stagesRunning = { min: Math.min(...during), max: Math.max(...during) };
        rows.push(row);
        log(`  ${phase.padEnd(5)} ${row.path.padEnd(44)} ${String(row.requestsPerSec).padStart(6)} req/s  p50 ${String(row.p50Ms).padStart(4)} ms  p99 ${String(row.p99Ms).padStart(4)} ms  max ${String(row.maxMs).padStart(5)} ms  errors ${row.errors}  API CPU ${row.apiCpuUsPerRequest} µs/req  clients ${row.clientCpuUsPerRequest} µs/req  machine ${row.machineBusyPct}% busy${row.stagesRunning ? `  stages running ${row.stagesRunning.min}-${row.stagesRunning.max}` : ''}`);
      }
    };

    worker = await startWorker({ ...env, LOG_LEVEL: 'info', WORKER_CONCURRENCY: '2' });
    log(`\nLoad: ${connections} connections, ${seconds} s per path, PostgreSQL + Redis + 1 worker process; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
    log('without jobs:');
    await measure('idle');

    // Two pipeline jobs on the worker (running both at once), kept two for the whole phase: a job that ends is
    // followed by a new one (the same upload), so every path is measured while two jobs run. Each row reports how
    // many stages were running, sampled every 250 ms.
    const media = [await upload(), await upload()];
    let started = 0;
    const startJob = async (mediaId: string) => {
      started++;
      return String((await call('POST', `/api/project/create_transcript?space_id=${space.id}`, token, {
        name: `Load job ${started}`, src_lang: 'en', dst_lang: 'es', media_id: mediaId,
      })).id);
    };
    const inFlight = async () => (await deps!.db.query<{ project_id: string }>(`SELECT DISTINCT project_id::text FROM pipeline_jobs WHERE state IN ('queued', 'running')`)).map((r) => r.project_id);
    const running = async () => (await deps!.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pipeline_jobs WHERE state = 'running'`))[0]!.n;
    await Promise.all(media.map(startJob));
    for (let i = 0; i < 600 && (await running()) < 2; i++) await new Promise((r) => setTimeout(r, 100));
    let keeping = true;
    let samples: number[] = [];
    let keeperError: unknown = null;
    const keeper = (async () => {
      while (keeping) {
        const live = await inFlight();
        for (let k = live.length; k < 2; k++) await startJob(media[k]!);
        samples.push(await running());
        await new Promise((r) => setTimeout(r, 250));
      }
    })().catch((e: unknown) => void (keeperError = e));
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    log(`while two pipeline jobs run (${await running()} stages running when measuring started; WORKER_CONCURRENCY=2):`);
    await measure('jobs', () => {
      const s = samples;
      samples = [];
      return s;
    });
    loop.disable();
    keeping = false;
    await keeper;
    if (keeperError) throw new Error(`keeping two jobs running failed: ${String(keeperError)}`);
    log(`jobs started in all: ${started}`);
    log(`API event loop during the jobs: p99 delay ${(loop.percentile(99) / 1e6).toFixed(1)} ms, longest stall ${(loop.max / 1e6).toFixed(1)} ms`);
    const worst = rows.filter((r) => r.phase === 'jobs').reduce((a, r) => Math.max(a, r.p99Ms), 0);
    const errors = rows.reduce((a, r) => a + r.errors, 0);
    log(`worst p99 with jobs running: ${worst} ms (aim under 100 ms); errors in all runs: ${errors} (aim 0)`);
    server.close();
    return rows;
  } finally {
    if (worker) {
      worker.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 3000));
      worker.kill('SIGKILL');
    }
    if (deps) await shutdownDeps(deps);
    await admin.exec(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
    await admin.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await runLoadBench();
  process.exit(0);
}
