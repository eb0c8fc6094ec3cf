// The services a request or a job can reach: ONE complete object, built once by the composition root
// (server/bootstrap.ts: buildDeps) for `npm start`, `npm run worker`, the tests and the benches. Every member is
// present; nothing is checked at request time.
import type { Config } from './config';
import type { AppState } from './cache/index';
import type { Db } from './db/index';
import type { ConfiguredAdapters } from './engines/adapters/index';
import type { EngineRegistry } from './engines/registry';
import type { ToolLimits } from './media/run';
import type { Logger, Metrics } from './observability';
import type { Pipeline } from './domains/projects/pipeline/registry';
import type { PipelineListeners } from './domains/projects/pipeline/stages';
import type { Storage } from './storage/types';
import type { PaymentsProvider } from './domains/billing/provider';

export interface AppDeps {
  config: Config;
  db: Db;
  /**
   * This app's in-process state (server/cache): its caches, live event bus and listeners. Made with its database
   * (the same object as db.state, which its transaction handles carry); nothing of it is module-wide.
   */
  state: AppState;
  /** What the domains do with a project's status change or a side task's failure (part of `state`). */
  listeners: PipelineListeners;
  /** Media storage: local folder or S3-compatible bucket (server/storage). */
  storage: Storage;
  /** Engines per kind and language (server/engines). */
  engines: EngineRegistry;
  /** The HTTP engine adapters LLM_ENGINE/ASR_ENGINE/MT_ENGINE/TTS_ENGINE configured (rewriter for /api/tools, voice cloner...). */
  engineAdapters: ConfiguredAdapters;
  /** The job runtime (server/jobs) running the project stages (server/domains/projects/pipeline). */
  pipeline: Pipeline;
  /**
   * This app's CPU slots, tool niceness and tool spawner (server/media/run.ts, server/media/spawner.ts): its jobs and
   * requests run in their scope, so the tools and engine threads they start share them; another app in the process
   * has its own.
   */
  tools: ToolLimits;
  /** The process's logger and metrics registry (server/observability.ts). */
  logger: Logger;
  metrics: Metrics;
  /** The subscription clock of `npm start` (renewals, monthly minutes); null in workers and tests. */
  billingClock: NodeJS.Timeout | null;
  /** Stops the hourly retention sweep (stored files of deleted rows, expired uploads); null when it does not run. */
  stopRetention: (() => void) | null;
  /** The payments provider (server/domains/billing/payments.ts): local or Stripe. */
  payments: PaymentsProvider;
}
