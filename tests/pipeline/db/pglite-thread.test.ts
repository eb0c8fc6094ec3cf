// The embedded database runs in a worker thread of its own (server/db/pglite-thread.mjs): PostgreSQL in WebAssembly
// runs a statement to its end without a pause, and on the server's thread a long one (a 50,000-term dictionary's
// write: ~0.25 s; 200,000 terms: ~1.4 s) held every other request for its whole length (`npm run bench stalls`).
// What must hold through the thread: this thread runs while a statement does; transactions commit or roll back as
// one and hold the database meanwhile; PostgreSQL's error fields reach the caller (a unique violation is still
// recognised); a closed database refuses statements instead of hanging; an idle database does not keep the process.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation, openPglite, type Db } from '../../../server/db/index';

let db: Db;
beforeAll(async () => {
  db = await openPglite(null);
  await db.exec(`CREATE TABLE things (id int PRIMARY KEY, name text NOT NULL CONSTRAINT things_name_key UNIQUE)`);
}, 60_000);
afterAll(async () => {
  await db?.close();
});

describe('the embedded database in its own thread', () => {
  it('lets this thread run while a long statement runs', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 2);
    const t0 = performance.now();
    let rows;
    try {
      rows = await db.query<{ n: number }>(`SELECT count(DISTINCT md5(i::text))::int AS n FROM generate_series(1, 150000) AS i`);
    } finally {
      clearInterval(timer);
    }
    const ms = performance.now() - t0;
    expect(rows).toEqual([{ n: 150_000 }]);
    // the statement takes a while (~0.1-0.5 s); in this thread's place the timer would not have run at all
    expect(ms).toBeGreaterThan(40);
    expect(ticks).toBeGreaterThanOrEqual(5);
  });

  it('commits a transaction as one, rolls back a failed one, and holds the database meanwhile', async () => {
    const order: string[] = [];
    let outside: Promise<unknown> | null = null;
    await db.tx(async (t) => {
      await t.query(`INSERT INTO things VALUES (1, 'one')`);
      // a statement from outside waits for the transaction's end, then sees what it wrote
      outside = db.query<{ n: number }>(`SELECT count(*)::int AS n FROM things`).then((r) => {
        order.push('outside');
        return r;
      });
      await new Promise((r) => setTimeout(r, 30));
      await t.query(`INSERT INTO things VALUES (2, 'two')`);
      order.push('commit');
    });
    expect(await outside).toEqual([{ n: 2 }]);
    expect(order).toEqual(['commit', 'outside']);

    await expect(
      db.tx(async (t) => {
        await t.query(`INSERT INTO things VALUES (3, 'three')`);
        throw new Error('a later step failed');
      }),
    ).rejects.toThrow('a later step failed');
    expect(await db.query(`SELECT id FROM things ORDER BY id`)).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('gives PostgreSQL\'s error fields to the caller, inside a transaction too', async () => {
    const err = await db.query(`INSERT INTO things VALUES (9, 'one')`).catch((e: unknown) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect(err).toMatchObject({ code: '23505', constraint: 'things_name_key' });
    expect((err as Error).message).toMatch(/duplicate key/);
    const inTx = await db
      .tx(async (t) => {
        await t.query(`INSERT INTO things VALUES (10, 'ten')`);
        await t.query(`INSERT INTO things VALUES (10, 'again')`);
      })
      .catch((e: unknown) => e);
    expect(inTx).toMatchObject({ code: '23505' });
    // the failed transaction left nothing, and the database goes on
    expect(await db.query(`SELECT count(*)::int AS n FROM things WHERE id = 10`)).toEqual([{ n: 0 }]);
  });

  it('refuses statements once closed, with a clear error', async () => {
    const other = await openPglite(null);
    expect(await other.query(`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
    await other.close();
    await expect(other.query(`SELECT 1`)).rejects.toThrow(/closed/);
  });

  it('refuses a data folder it cannot open with a clear error, and leaves no thread behind', () => {
    // a data folder that is not a database (a corrupt PG_VERSION): the open fails, and the process can still end
    const script = `
      import { mkdtempSync, writeFileSync } from 'node:fs';
      import { tmpdir } from 'node:os';
      import { join } from 'node:path';
      import { openPglite } from './server/db/index.ts';
      const dir = mkdtempSync(join(tmpdir(), 'ds-bad-db-'));
      writeFileSync(join(dir, 'PG_VERSION'), 'not a version\\n');
      await openPglite(dir).then(() => console.log('opened'), (e) => console.log(e.message));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8', timeout: 60_000 });
    expect(r.error).toBeUndefined();
    expect(r.stdout.trim()).toMatch(/^could not open the embedded database: /);
    expect(r.status).toBe(0);
  }, 90_000);

  it('does not keep a process alive once its statements are answered', () => {
    const script = `
      import { openPglite } from './server/db/index.ts';
      const db = await openPglite(null);
      const rows = await db.query('SELECT 41 + 1 AS n');
      console.log(JSON.stringify(rows));
    `;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), encoding: 'utf8', timeout: 60_000 });
    expect(r.error).toBeUndefined();
    expect(r.stdout.trim()).toBe('[{"n":42}]');
    expect(r.status).toBe(0);
  }, 90_000);
});
