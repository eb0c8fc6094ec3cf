// GET /api/health: liveness (the process answers; no dependency is touched).
// GET /api/health/ready: readiness: the database, the queue, the storage and every configured HTTP engine
// answer within a few seconds, and the data folder has MIN_FREE_DISK_MB free; 503 with the failing checks otherwise
// (load balancers stop sending traffic).
import { Hono } from 'hono';
import { statfs } from 'node:fs/promises';
import type { AppDeps } from '../deps';
import type { AppEnv } from '../http/env';
import { routeFacts } from '../http/route-facts';

type Check = { ok: boolean; ms: number; error?: string; free_mb?: number };

async function timed(fn: () => Promise<unknown>, timeoutMs = 3000): Promise<Check> {
  const t0 = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      fn(),
      new Promise((_, rej) => {
        timer = setTimeout(() => rej(new Error(`no answer in ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return { ok: true, ms: Math.round(performance.now() - t0) };
  } catch (e) {
    return { ok: false, ms: Math.round(performance.now() - t0), error: e instanceof Error ? e.message : String(e) };
  } finally {
    clearTimeout(timer);
  }
}

/** The HTTP engines the configuration uses (built-in engines run in-process and need no check). */
export function configuredEngineUrls(deps: AppDeps): Record<string, string> {
  const e = deps.config.engines;
  const out: Record<string, string> = {};
  if (e.asr === 'openai') out.asr = e.openai.asr.baseUrl;
  if (e.mt === 'openai') out.mt = e.openai.chat.baseUrl;
  if (e.mt === 'deepl') out.mt = e.deepl?.baseUrl ?? 'https://api.deepl.com';
  if (e.tts === 'openai') out.tts = e.openai.tts.baseUrl;
  if (e.tts === 'elevenlabs' && e.elevenlabs) out.tts = e.elevenlabs.baseUrl;
  if (e.llm === 'openai') out.llm = e.openai.chat.baseUrl;
  return out;
}

/** Any HTTP answer means the engine's server is reachable (authentication is the adapters' business). */
async function reachable(url: string): Promise<void> {
  const r = await fetch(url, { method: 'GET', redirect: 'manual', signal: AbortSignal.timeout(3000) });
  await r.body?.cancel();
}

/**
 * Free space of the data folder (uploads, temporary files, the embedded database): not ready below
 * MIN_FREE_DISK_MB, with the reason (an upload would fail with 507 soon).
 */
async function diskCheck(deps: AppDeps): Promise<Check> {
  const t0 = performance.now();
  const min = deps.config.minFreeDiskMb;
  try {
    const s = await statfs(deps.config.dataDir);
    const free = Math.floor((Number(s.bavail) * Number(s.bsize)) / (1024 * 1024));
    const ms = Math.round(performance.now() - t0);
    if (min > 0 && free < min) {
      return { ok: false, ms, free_mb: free, error: `The data folder has ${free} MB free, below the minimum of ${min} MB (MIN_FREE_DISK_MB): free some disk space` };
    }
    return { ok: true, ms, free_mb: free };
  } catch (e) {
    return { ok: false, ms: Math.round(performance.now() - t0), error: `The free space of the data folder could not be read: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export async function readiness(deps: AppDeps): Promise<{ ready: boolean; checks: Record<string, Check> }> {
  const checks: Record<string, Check> = {};
  const jobs: Array<Promise<void>> = [];
  const add = (name: string, fn: () => Promise<unknown>) => jobs.push(timed(fn).then((c) => void (checks[name] = c)));
  add('database', () => deps.db.query('SELECT 1'));
  if (deps.pipeline) add('queue', () => deps.pipeline!.queue.counts());
  if (deps.storage) add('storage', () => deps.storage!.exists('health/ready-probe'));
  jobs.push(diskCheck(deps).then((c) => void (checks.disk = c)));
  for (const [kind, url] of Object.entries(configuredEngineUrls(deps))) add(`engine_${kind}`, () => reachable(url));
  await Promise.all(jobs);
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

export const healthRoutes = new Hono<AppEnv>()
  .get('/', routeFacts({ summary: 'Liveness: the process answers, and the kind of database it uses', public: true }), (c) => c.json({ status: 'ok', database: c.get('deps').db.kind }))
  .get('/ready', routeFacts({ summary: 'Readiness: the database, the storage and the job queue answer (503 with what failed when not)', public: true }), async (c) => {
    const r = await readiness(c.get('deps'));
    return c.json({ status: r.ready ? 'ready' : 'unavailable', checks: r.checks }, r.ready ? 200 : 503);
  });
