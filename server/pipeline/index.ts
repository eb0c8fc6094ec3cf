// Construction of the pipeline services from config: storage, engines, the queue (in-process by default,
// BullMQ with REDIS_URL) and the Pipeline runtime. Used by server/bootstrap.ts and server/worker.ts.
import type { Config } from '../config';
import type { Db } from '../db/index';
import { createAdapters, createConfiguredRegistry, type ConfiguredAdapters } from '../engines/adapters/index';
import type { EngineRegistry } from '../engines/registry';
import { createStorage } from '../storage/index';
import type { Storage } from '../storage/types';
import { ToolLimits } from '../media/run';
import { projectEventsOf } from '../live/events';
import { Pipeline, type PipelineOptions, type StageRegistry } from './pipeline';
import { BullQueue, InProcessQueue, type JobQueue } from './queue';


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
  queue?: JobQueue;
  /** Redis key prefix of the BullMQ queue (tests use a unique one). */
  queuePrefix?: string;
}

export function createQueue(config: Config, o: { prefix?: string; log?: (m: string, meta?: Record<string, unknown>) => void } = {}): JobQueue {
  const log = o.log ?? ((m, meta) => console.error(`[queue] ${m}`, meta ?? ''));
  if (config.redisUrl) {
    return new BullQueue({ redisUrl: config.redisUrl, prefix: o.prefix ?? config.queuePrefix, stalledSec: config.worker.staleSec }, (e, job) =>
      log('queue error', { error: e instanceof Error ? e.message : String(e), job }),
    );
  }
  return new InProcessQueue((e, job) => log('job crashed', { error: e instanceof Error ? e.stack : String(e), job }));
}

/** The pipeline services; `o.handlers` (and `o.onFailed`) are the stages the domains register. */
export function createPipelineServices(config: Config, db: Db, o: PipelineBuildOptions & StageRegistry): PipelineServices {
  const storage = o.storage ?? createStorage(config);
  // Built-in engines plus the HTTP adapters chosen by ASR_ENGINE/MT_ENGINE/TTS_ENGINE (server/engines/config.ts),
  // from the configuration validated at start-up (config.engines).
  const configured = o.engines ? null : createConfiguredRegistry(config.engines);
  const engines = o.engines ?? configured!.registry;
  const engineAdapters = configured?.adapters ?? createAdapters(config.engines);
  const queue = o.queue ?? createQueue(config, { prefix: o.queuePrefix, log: o.log });
  // Heavy tools and engine threads of all jobs share the app's CPU slots (PIPELINE_CPU_SLOTS), at a lower
  // priority than the API's requests (PIPELINE_NICE): the app's own limits, not the process's.
  const tools = o.tools ?? new ToolLimits({ cpuSlots: config.worker.cpuSlots, nice: config.worker.nice });
  const stale = config.worker.staleSec;
  const pipeline = new Pipeline({ config, db, storage, engines }, queue, {
    staleSec: stale,
    heartbeatMs: Math.max(200, Math.round((stale * 1000) / 6)),
    sweepEveryMs: stale * 1000,
    ...o,
    tools,
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
