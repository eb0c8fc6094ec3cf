// Builds the services from config: the database (migrated) and the services of each part.
// Each part adds its construction here explicitly, and its teardown to shutdownDeps.
import { join } from 'node:path';
import type { Config } from './config';
import { openDb, type Db } from './db/index';
import { migrate } from './db/migrate';
import type { AppDeps } from './deps';

export type Role = 'server' | 'worker' | 'test';

export async function buildDeps(config: Config, opts: { role: Role; db?: Db }): Promise<AppDeps> {
  const db = opts.db ?? (await openDb({ databaseUrl: config.databaseUrl, dataDir: join(config.dataDir, 'db') }));
  await migrate(db);
  const deps: AppDeps = { config, db };
  return deps;
}

export async function shutdownDeps(deps: AppDeps): Promise<void> {
  await deps.db.close();
}
