import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { migrate, MIGRATIONS_DIR } from '../../../server/db/migrate';
import { createHarness, type Harness } from '../harness';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('http foundation', () => {
  it('answers health with the database kind', async () => {
    const r = await h.request('GET', '/api/health');
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: 'ok', database: process.env.TEST_DB === 'pg' ? 'pg' : 'pglite' });
  });
  it('answers unknown /api routes with JSON: 401 without credentials (404 with them: tests/server/app/authenticate.test.ts)', async () => {
    const r = await h.request('GET', '/api/nope/never');
    expect(r.status).toBe(401);
    expect(await r.json()).toEqual({ detail: 'Not authenticated' });
  });
  it('applies every migration once', async () => {
    // Every file of the migrations folder is recorded, in order, exactly once...
    const files = readdirSync(MIGRATIONS_DIR).filter((f) => /^\d{3}_.+\.sql$/.test(f)).sort();
    expect(files.length).toBeGreaterThan(0);
    const rows = await h.deps.db.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual(files);
    // ...and running the migrator again (a restart, a second worker) applies nothing and changes nothing.
    expect(await migrate(h.deps.db)).toEqual([]);
    const again = await h.deps.db.query<{ id: string }>('SELECT id FROM schema_migrations ORDER BY id');
    expect(again.map((r) => r.id)).toEqual(files);
  });
});
