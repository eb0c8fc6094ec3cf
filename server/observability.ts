// The operator's view, created once in the composition root (server/bootstrap.ts) and passed down in the
// deps: one pino logger (JSON lines; readable in development; secrets redacted) and one prom-client registry
// with the app's metrics.
import pino, { type Logger } from 'pino';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Config } from './config';

export type { Logger };

/** Paths whose values never reach a log line (headers, bodies, config, errors). */
export const REDACT_PATHS = [
  'authorization', '*.authorization', '*.*.authorization', 'headers.authorization', 'req.headers.authorization', 'req.headers.cookie',
  'cookie', '*.cookie', 'password', '*.password', '*.*.password', 'token', '*.token', 'access_token', '*.access_token',
  'refresh_token', '*.refresh_token', 'secret', '*.secret', 'apiKey', '*.apiKey', '*.*.apiKey', 'api_key', '*.api_key',
  'jwtSecret', '*.jwtSecret', 'secretAccessKey', '*.secretAccessKey', '*.*.secretAccessKey', 'client_secret', '*.client_secret',
];

export function createLogger(
  config: Pick<Config, 'production'> & { logLevel?: string; logPretty?: boolean },
  destination?: pino.DestinationStream,
): Logger {
  const opts: pino.LoggerOptions = {
    level: config.logLevel ?? 'info',
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  };
  if (destination) return pino(opts, destination);
  if (config.logPretty ?? !config.production) {
    try {
      return pino({ ...opts, transport: { target: 'pino-pretty', options: { colorize: process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid' } } });
    } catch {
      // pino-pretty not installed (production install): JSON lines
    }
  }
  return pino(opts);
}

/** The old (msg, meta) logging shape used across the code, on top of a pino logger. */
export type LogFn = (msg: string, meta?: Record<string, unknown>) => void;
export function logFn(logger: Logger, level: 'info' | 'warn' | 'error' = 'info'): LogFn {
  return (msg, meta) => logger[level](meta ?? {}, msg);
}

export interface Metrics {
  registry: Registry;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  jobs: Counter<'stage' | 'outcome'>;
  stageDuration: Histogram<'stage' | 'outcome'>;
  queueDepth: Gauge<'state'>;
  minutesDebited: Counter<'bucket'>;
}

/** The states of the database's change notices (server/db/changes.ts ChangeClock.state). */
const CHANGE_NOTICE_STATES = ['embedded', 'idle', 'following', 'lost'] as const;

export function createMetrics(
  o: {
    queueCounts?: () => Promise<{ waiting: number; active: number }>;
    changeNotices?: () => (typeof CHANGE_NOTICE_STATES)[number] | null;
    defaults?: boolean;
  } = {},
): Metrics {
  const registry = new Registry();
  if (o.defaults !== false) collectDefaultMetrics({ register: registry, prefix: 'dubbing_' });
  const httpDuration = new Histogram({
    name: 'dubbing_http_request_duration_seconds',
    help: 'HTTP request latency by route (the matched pattern, e.g. /api/project/:id), method and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const jobs = new Counter({
    name: 'dubbing_pipeline_jobs_total',
    help: 'Pipeline stage runs by stage and outcome (done, failed, cancelled, skipped)',
    labelNames: ['stage', 'outcome'] as const,
    registers: [registry],
  });
  const stageDuration = new Histogram({
    name: 'dubbing_pipeline_stage_duration_seconds',
    help: 'Pipeline stage duration by stage and outcome',
    labelNames: ['stage', 'outcome'] as const,
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
    registers: [registry],
  });
  const queueDepth = new Gauge({
    name: 'dubbing_pipeline_queue_depth',
    help: 'Pipeline jobs waiting and active in the queue',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      if (!o.queueCounts) return;
      try {
        const c = await o.queueCounts();
        this.set({ state: 'waiting' }, c.waiting);
        this.set({ state: 'active' }, c.active);
      } catch {
        // queue unreachable: the readiness check says so
      }
    },
  });
  new Gauge({
    name: 'dubbing_change_notices',
    help: "The database's change notices, as this process follows them (1 for the current state): embedded, idle (no kept read yet), following, lost (reconnecting; reads are not kept meanwhile)",
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const now = o.changeNotices?.() ?? null;
      if (now === null) return;
      for (const st of CHANGE_NOTICE_STATES) this.set({ state: st }, st === now ? 1 : 0);
    },
  });
  const minutesDebited = new Counter({
    name: 'dubbing_minutes_debited_total',
    help: 'Minutes debited from Teamspaces (ledger debits), by bucket',
    labelNames: ['bucket'] as const,
    registers: [registry],
  });
  return { registry, httpDuration, jobs, stageDuration, queueDepth, minutesDebited };
}
