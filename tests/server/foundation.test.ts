import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './harness';

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
  it('answers unknown /api routes with 404 JSON', async () => {
    const r = await h.request('GET', '/api/nope/never');
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ detail: 'Not found' });
  });
  it('applies every migration once', async () => {
    const rows = await h.deps.db.query<{ id: string }>('SELECT id FROM schema_migrations');
    expect(rows.map((r) => r.id)).toContain('001_core.sql');
  });
});
