// What the pipeline uses from the engines: the registry (server/engines/registry.ts) picks one engine per
// kind and language, so better engines plug in without touching the stage handlers.
export type { EngineRegistry as EngineRegistryLike } from '../engines/registry';

/** Runs an engine's one-time discovery (memoised by the engine) before use. */
export async function ready<E extends { init?(): Promise<void> }>(e: E): Promise<E> {
  await e.init?.();
  return e;
}
