// `npm run migrate`: applies pending migrations to DATA_DIR's PGlite database or to DATABASE_URL.
import { join } from 'node:path';
import { loadConfig } from '../config';
import { openDb } from './index';
import { migrate } from './migrate';

const config = loadConfig();
const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: join(config.dataDir, 'db') });
try {
  const applied = await migrate(db);
  console.log(applied.length ? `Applied migrations: ${applied.join(', ')}` : 'Database is up to date');
} finally {
  await db.close();
}
