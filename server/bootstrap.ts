// Builds the services from config: the database (migrated) and the services of each part.
// Each part adds its construction here explicitly, and its teardown to shutdownDeps.
import { ToolSpawner } from './media/spawner';
import { ToolLimits } from './media/run';
import { mailerOf } from './mailer';
import { stopThreads } from './engines/builtin/threads';
import { join } from 'node:path';
import type { Config } from './config';
import { openDb, type Db } from './db/index';
import { migrate } from './db/migrate';
import type { AppDeps } from './deps';
import { PROJECT_STAGES } from './domains/projects/stages/index';
import { createPipelineServices, type PipelineBuildOptions } from './domains/projects/pipeline/index';
import { pipelineListenersOf } from './domains/projects/pipeline/stages';
import { purgeGarbage, startRetention } from './domains/retention/service';
import { persistedJwtSecret } from './jwt-secret';
import { billingOnSideTaskFailure, billingOnStatus } from './domains/billing/listeners';
import { startWebhookWorker, webhooksOnStatus } from './domains/webhooks/service';
import { batchesOnStatus } from './domains/batches/service';
import { runBillingClock } from './domains/billing/subscriptions';
import { createPaymentsProvider } from './domains/billing/payments';
import { seedLocalCatalogue } from './domains/billing/catalogue';
import { onDebit } from './domains/billing/ledger';
import { createLogger, createMetrics, logFn, type Logger, type Metrics } from './observability';

export type Role = 'server' | 'worker' | 'test';

export async function buildDeps(
  config: Config,
  opts: {
    role: Role;
    db?: Db;
    pipeline?: PipelineBuildOptions;
    logger?: Logger;
    metrics?: Metrics;
    /** The app's tool spawner, when its caller started it earlier (benches); the app stops it. */
    toolSpawner?: ToolSpawner;
  },
): Promise<AppDeps> {
  // The app's tool limits (server/media/run.ts): its jobs' heavy tools and engine threads share its CPU slots
  // (PIPELINE_CPU_SLOTS), at a lower priority than the API's requests (PIPELINE_NICE), and start from its tool
  // spawner, started first, while this process is small (server/media/spawner.ts); tests start it on first use.
  const tools =
    opts.pipeline?.tools ??
    new ToolLimits({
      cpuSlots: config.worker.cpuSlots,
      nice: config.worker.nice,
      spawner: opts.toolSpawner ?? new ToolSpawner({ enabled: config.worker.toolSpawner }),
    });
  if (opts.role !== 'test') await tools.spawner?.start();
  // One logger and one metrics registry per process, passed down through the deps.
  const logger =
    opts.logger ??
    (opts.role === 'test'
      ? createLogger({ ...config, logLevel: process.env.LOG_LEVEL ?? 'silent', logPretty: false })
      : createLogger(config)
    ).child({ role: opts.role });
  // The queue depth gauge reads the pipeline's queue once it exists.
  const queueOf: { counts?: () => Promise<{ waiting: number; active: number }> } = {};
  // The change notices gauge reads the database once it is open.
  const dbOf: { db?: Db } = {};
  const metrics =
    opts.metrics ??
    createMetrics({
      queueCounts: () => queueOf.counts?.() ?? Promise.resolve({ waiting: 0, active: 0 }),
      changeNotices: () => dbOf.db?.changes.state ?? null,
      defaults: opts.role !== 'test',
    });
  if (!config.jwtSecretFromEnv) config.jwtSecret = await persistedJwtSecret(config.dataDir);
  const db = opts.db ?? (await openDb({ databaseUrl: config.databaseUrl, dataDir: join(config.dataDir, 'db') }));
  dbOf.db = db;
  // This app's in-process state (server/cache) is made with its database: caches, the live event bus and the
  // listeners wired below; another app in the process has its own.
  onDebit(db, (e) => metrics.minutesDebited.inc({ bucket: e.bucket }, e.minutes));
  await migrate(db);
  // Payments: the local catalogue is always there (local grants name its products); Stripe's is read from its API
  // (a failure is logged and retried when the products are next asked for).
  await seedLocalCatalogue(db);
  const payments = createPaymentsProvider(config);
  if (payments.kind === 'stripe') {
    await payments.syncCatalogue(db).catch((e: unknown) => logger.error({ err: e instanceof Error ? e.message : String(e) }, '[payments] Stripe catalogue not loaded yet'));
  }
  // What domains do on a project's status change, in its transaction (refunds of failed generations...).
  const listeners = pipelineListenersOf(db);
  listeners.onStatusChange(billingOnStatus);
  listeners.onSideTaskFailure(billingOnSideTaskFailure);
  // Webhook events of a status change are written as deliveries in its transaction.
  listeners.onStatusChange(webhooksOnStatus);
  // A batch is completed (and its batch.completed event written) in the transaction of its last project's change.
  listeners.onStatusChange(batchesOnStatus);
  // Pipeline: storage, engines, queue, and the stages the projects domain registers.
  const pipelineLog = logger.child({ component: 'pipeline' });
  const { storage, engines, engineAdapters, pipeline } = createPipelineServices(config, db, {
    ...PROJECT_STAGES,
    log: logFn(pipelineLog),
    ...opts.pipeline,
    tools,
    onJobEnd: (e) => {
      metrics.jobs.inc({ stage: e.stage, outcome: e.outcome });
      if (e.outcome !== 'skipped') metrics.stageDuration.observe({ stage: e.stage, outcome: e.outcome }, e.seconds);
      opts.pipeline?.onJobEnd?.(e);
    },
  });
  queueOf.counts = () => pipeline.queue.counts();
  const deps: AppDeps = {
    config, db, state: db.state, listeners, storage, engines, engineAdapters, pipeline, tools, logger, metrics, payments,
    billingClock: opts.role === 'server' ? startBillingClock(db, logger) : null,
    stopRetention: null,
  };
  // The server runs the embedded worker unless EMBEDDED_WORKER=0; `npm run worker` (role worker) always
  // processes; tests start processing themselves.
  if (opts.role === 'worker' || (opts.role === 'server' && config.worker.embedded)) {
    await pipeline.startWorker();
    // Webhook deliveries: dispatched and sent by the processes that run jobs.
    const webhooks = await startWebhookWorker({ db, config }, { log: logFn(logger.child({ component: 'webhooks' })) });
    pipeline.onStop(() => webhooks.stop());
    // Nothing left behind: stored files of deleted rows, expired uploads, orphans (hourly).
    const retention = { db, storage, config };
    await purgeGarbage(retention).catch(() => {});
    deps.stopRetention = startRetention(retention, { log: logFn(logger.child({ component: 'retention' })) });
  }
  return deps;
}

/** Subscriptions renew, credit their monthly minutes and end on time: the clock runs at start and every minute. */
function startBillingClock(db: Db, logger: Logger): NodeJS.Timeout {
  const log = logger.child({ component: 'billing' });
  const tick = () => void runBillingClock(db).catch((e) => log.error({ err: e }, 'billing clock failed'));
  tick();
  return setInterval(tick, 60_000).unref();
}

/**
 * Stops everything. Graceful (SIGTERM): running stages get SHUTDOWN_GRACE_SECONDS to finish, then are handed
 * back for another worker or the next start. Otherwise they are stopped at once (and handed back too).
 */
export async function shutdownDeps(deps: AppDeps, o: { graceful?: boolean } = {}): Promise<void> {
  if (deps.billingClock) clearInterval(deps.billingClock);
  deps.stopRetention?.();
  await deps.pipeline.stop(o.graceful ? { graceMs: deps.config.worker.shutdownGraceSec * 1000 } : { force: true });
  // The engines' threads end the safe way (a native model call is never cut off: the process would abort).
  await stopThreads();
  deps.tools.spawner?.stop();
  mailerOf(deps.db).close();
  (deps.storage as { close?: () => void }).close?.();
  await deps.db.close();
}
