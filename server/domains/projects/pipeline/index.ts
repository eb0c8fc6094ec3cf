// Construction of the project pipeline from config: storage, engines, the queue (in-process by default, BullMQ with
// REDIS_URL) and the job runtime (server/jobs) wired with the project hooks (hooks.ts) and the stages the domain
// registers. Used by the composition root (server/bootstrap.ts, for `npm start` and `npm run worker`).
import type { Config } from '../../../config';
import type { Db } from '../../../db/index';
import { createAdapters, createConfiguredRegistry, type ConfiguredAdapters } from '../../../engines/adapters/index';
import type { EngineRegistry } from '../../../engines/registry';
import { createStorage } from '../../../storage/index';
import type { Storage } from '../../../storage/types';
import { ToolLimits } from '../../../media/run';
import { projectEventsOf } from '../../../live/events';
import { createQueue, type JobQueue } from '../../../jobs/queue';
import { JobRunner, type JobHandler } from '../../../jobs/runner';
import { projectJobHooks } from './hooks';
import { PROJECT_JOBS } from './payload';
import type { Pipeline, PipelineDeps, PipelineOptions, StageHandler, StageRegistry } from './registry';
import type { StageName } from './stages';

export interface PipelineServices {
  storage: Storage;
  engines: EngineRegistry;
  /** The configured HTTP adapters (the rewriter of /api/tools, the voice cloner, DeepL glossaries). */
  engineAdapters: ConfiguredAdapters;
  pipeline: Pipeline;
  /** The app's CPU slots and tool niceness (server/media/run.ts). */
  tools: ToolLimits;
}

export interface PipelineBuildOptions extends Partial<PipelineOptions> {
  storage?: Storage;
  engines?: EngineRegistry;
  queue?: JobQueue<StageName>;
  /** Redis key prefix of the BullMQ queue (tests use a unique one). */
  queuePrefix?: string;
}

/** The runtime's handler of a project stage: its subject is the project. */
const projectHandler =
  (h: StageHandler): JobHandler<StageName, PipelineDeps> =>
  ({ subject, ...ctx }) =>
    h({ ...ctx, projectId: subject });

/** The pipeline services; `o.handlers` (and `o.onFailed`) are the stages the domains register. */
export function createPipelineServices(config: Config, db: Db, o: PipelineBuildOptions & StageRegistry): PipelineServices {
  const storage = o.storage ?? createStorage(config);
  // Built-in engines plus the HTTP adapters chosen by ASR_ENGINE/MT_ENGINE/TTS_ENGINE (server/engines/config.ts),
  // from the configuration validated at start-up (config.engines).
  const configured = o.engines ? null : createConfiguredRegistry(config.engines);
  const engines = o.engines ?? configured!.registry;
  const engineAdapters = configured?.adapters ?? createAdapters(config.engines);
  const queue = o.queue ?? createQueue(config, PROJECT_JOBS, { prefix: o.queuePrefix, log: o.log });
  // Heavy tools and engine threads of all jobs share the app's CPU slots (PIPELINE_CPU_SLOTS), at a lower
  // priority than the API's requests (PIPELINE_NICE): the app's own limits, not the process's.
  const tools = o.tools ?? new ToolLimits({ cpuSlots: config.worker.cpuSlots, nice: config.worker.nice });
  const stale = config.worker.staleSec;
  const { handlers, onFailed, continueAfter, jobsAtOnce, onJobEnd, storage: _s, engines: _e, queue: _q, queuePrefix: _p, ...runtime } = o;
  const hooks = projectJobHooks({ config, storage, registry: { onFailed, continueAfter, jobsAtOnce } });
  const pipeline: Pipeline = new JobRunner({ config, db, storage, engines }, queue, hooks, {
    staleSec: stale,
    heartbeatMs: Math.max(200, Math.round((stale * 1000) / 6)),
    sweepEveryMs: stale * 1000,
    ...runtime,
    tools,
    handlers: Object.fromEntries(Object.entries(handlers).map(([s, h]) => [s, projectHandler(h)])) as Record<StageName, JobHandler<StageName, PipelineDeps>>,
    subjectKey: 'projectId',
    onJobEnd: onJobEnd && ((e) => onJobEnd({ projectId: e.subject, stage: e.stage, outcome: e.outcome, seconds: e.seconds, error: e.error })),
  });
  if (config.redisUrl) {
    // Live events of workers on other machines reach this process's streams (and the other way round).
    const log = o.log ?? ((m, meta) => console.error(`[pipeline] ${m}`, meta ?? ''));
    const events = projectEventsOf(db);
    const bridged = events.bridge(config.redisUrl, o.queuePrefix ?? config.queuePrefix).then(
      () => true,
      (e) => {
        log('live project events are not bridged over Redis', { error: String(e) });
        return false;
      },
    );
    pipeline.onStop(async () => {
      if (await bridged) await events.unbridge();
    });
  }
  return { storage, engines, engineAdapters, pipeline, tools };
}
