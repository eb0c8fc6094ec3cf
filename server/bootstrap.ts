// Builds the services from config: the database (migrated) and the services of each part.
// Each part adds its construction here explicitly, and its teardown to shutdownDeps.
import { join } from 'node:path';
import type { Config } from './config';
import { openDb, type Db } from './db/index';
import { migrate } from './db/migrate';
import type { AppDeps } from './deps';
import { createPipelineServices, type PipelineBuildOptions } from './pipeline/index';

export type Role = 'server' | 'worker' | 'test';

export async function buildDeps(config: Config, opts: { role: Role; db?: Db; pipeline?: PipelineBuildOptions }): Promise<AppDeps> {
  const db = opts.db ?? (await openDb({ databaseUrl: config.databaseUrl, dataDir: join(config.dataDir, 'db') }));
  await migrate(db);
  const deps: AppDeps = { config, db };
  // Pipeline: storage, engines, queue. The server runs the embedded worker unless EMBEDDED_WORKER=0;
  // `npm run worker` (role worker) always processes; tests start processing themselves.
  Object.assign(deps, createPipelineServices(config, db, opts.pipeline));
  if (opts.role === 'worker' || (opts.role === 'server' && config.worker.embedded)) await deps.pipeline!.startWorker();
  return deps;
}

export async function shutdownDeps(deps: AppDeps): Promise<void> {
  // Running stages are abandoned (not failed): the start-up sweep of the next run resumes them.
  await deps.pipeline?.stop({ force: true });
  await deps.db.close();
}
