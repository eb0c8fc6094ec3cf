// The services a request or a job can reach. Built once in server/main.ts (or a test harness).
import type { Config } from './config';
import type { Db } from './db/index';
import type { EngineRegistry } from './engines/registry';
import type { ConfiguredAdapters } from './engines/adapters/index';
import type { Pipeline } from './pipeline/pipeline';
import type { Storage } from './storage/types';

export interface AppDeps {
  config: Config;
  db: Db;
  /** Media storage (server/storage), engine registry (server/engines) and the pipeline runtime (server/pipeline). */
  storage?: Storage;
  engines?: EngineRegistry;
  /** The HTTP engine adapters LLM_ENGINE/ASR_ENGINE/MT_ENGINE/TTS_ENGINE configured (rewriter for /api/tools, voice cloner...). */
  engineAdapters?: ConfiguredAdapters;
  pipeline?: Pipeline;
  /** Optional services added by later parts (engines, storage, queue, mailer); see their folders. */
  [service: string]: unknown;
}
