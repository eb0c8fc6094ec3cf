// Applies server/db/migrations/NNN_*.sql in order, each in its own transaction, once.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { Db } from './index';

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

export async function migrate(db: Db, dir = MIGRATIONS_DIR): Promise<string[]> {
  await db.query(
    'CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const files = readdirSync(dir).filter((f) => /^\d{3}_.+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  await db.tx(async (tx) => {
    // Serialise concurrent migrators (several workers starting at once on PostgreSQL).
    await tx.query('SELECT pg_advisory_xact_lock(727274)');
    const done = new Set((await tx.query<{ id: string }>('SELECT id FROM schema_migrations')).map((r) => r.id));
    for (const f of files) {
      if (done.has(f)) continue;
      const sql = readFileSync(join(dir, f), 'utf8');
      await tx.exec(sql);
      await tx.query('INSERT INTO schema_migrations (id) VALUES ($1)', [f]);
      applied.push(f);
    }
  });
  return applied;
}
