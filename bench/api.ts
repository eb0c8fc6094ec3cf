// API benchmark: the real server (createApp + @hono/node-server on a random port, PGlite in a temp DATA_DIR),
// one signed-up account, then autocannon on GET /api/settings and GET /api/users/current.
// Run directly: node --import tsx bench/api.ts   (or through `npm run bench`, which calls runApiBench()).
import { serve } from '@hono/node-server';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildDeps, shutdownDeps } from '../server/bootstrap';
import { loadConfig } from '../server/config';
import { createApp } from '../server/app/app';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (opts: { url: string; connections: number; duration: number; headers?: Record<string, string> }) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface ApiBenchRow {
  name: string;
  path: string;
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  non2xx: number;
  errors: number;
}

export interface ApiBenchOptions {
  connections?: number;
  durationSec?: number;
  log?: (line: string) => void;
}

export async function runApiBench(o: ApiBenchOptions = {}): Promise<ApiBenchRow[]> {
  const connections = o.connections ?? 50;
  const duration = o.durationSec ?? 10;
  const log = o.log ?? ((l: string) => console.log(l));
  const dataDir = mkdtempSync(join(tmpdir(), 'ds-bench-'));
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'production',
    JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0001',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    EMBEDDED_WORKER: '0',
  });
  const deps = await buildDeps(config, { role: 'server' });
  const app = createApp(deps, { distDir: null, log: () => {} });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const post = async (path: string, body: unknown, token?: string) => {
      const res = await fetch(base + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return res.json() as Promise<Record<string, unknown>>;
    };
    const tokens = await post('/api/auth/sign-up', { email: 'bench@example.com', password: 'bench-password-1' });
    const token = String(tokens.access_token);
    await post('/api/users', { email: 'bench@example.com' }, token);
    // Warm-up: engine discovery behind the language lists, JIT.
    await fetch(`${base}/api/settings`).then((r) => r.text());
    await fetch(`${base}/api/users/current`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text());

    const targets = [
      { name: 'settings (anonymous)', path: '/api/settings', headers: {} as Record<string, string> },
      { name: 'users/current', path: '/api/users/current', headers: { authorization: `Bearer ${token}` } },
      // The floor of this machine and stack: a JSON 404 that touches nothing.
      { name: 'floor (JSON 404)', path: '/api/bench-floor', headers: {} as Record<string, string> },
    ];
    const rows: ApiBenchRow[] = [];
    for (const t of targets) {
      // 2 s unmeasured warm-up at the same concurrency (JIT, caches), then the measured run.
      await autocannon({ url: base + t.path, connections, duration: 2, headers: t.headers });
      const r = await autocannon({ url: base + t.path, connections, duration, headers: t.headers });
      rows.push({
        name: t.name,
        path: t.path,
        requestsPerSec: Math.round(r.requests.average),
        p50Ms: r.latency.p50,
        p99Ms: r.latency.p99,
        total: r.requests.total,
        non2xx: r.non2xx,
        errors: r.errors + r.timeouts,
      });
    }
    log(`API bench: ${connections} connections, ${duration} s each, ${deps.db.kind}, node ${process.version}, load average ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    for (const r of rows) {
      log(`  GET ${r.path.padEnd(20)} ${String(r.requestsPerSec).padStart(6)} req/s   p50 ${r.p50Ms} ms   p99 ${r.p99Ms} ms   (${r.total} requests, non-2xx ${r.non2xx}, errors ${r.errors})  ${r.name}`);
    }
    return rows;
  } finally {
    await new Promise((r) => server.close(r));
    await shutdownDeps(deps);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runApiBench().then(
    (rows) => process.exit(rows.some((r) => r.errors > 0 || (r.non2xx > 0 && !r.path.includes('bench-floor'))) ? 1 : 0),
    (e) => {
      console.error(e);
      process.exit(1);
    },
  );
}
