// node-postgres statements are prepared (named) by their text, so PostgreSQL parses and plans them once per
// connection; the number of distinct statements prepared is bounded, and bulk statements stay unnamed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres, type Db } from '../../../server/db/index';
import { PG_ADMIN_URL } from '../../server/harness';

let db: Db;
beforeAll(async () => {
  db = await openPostgres(PG_ADMIN_URL, 1); // one connection: its session's prepared statements are the pool's
});
afterAll(async () => {
  await db?.close();
});

const preparedTexts = async () =>
  (await db.query<{ statement: string }>(`SELECT statement FROM pg_prepared_statements`)).map((r) => r.statement);

describe('prepared statements (PostgreSQL)', () => {
  it('prepares a statement once and runs it again by name, in and out of transactions', async () => {
    const sql = `SELECT $1::int + 1 AS n`;
    expect(await db.one<{ n: number }>(sql, [1])).toEqual({ n: 2 });
    expect(await db.one<{ n: number }>(sql, [41])).toEqual({ n: 42 });
    expect(await db.tx((t) => t.one<{ n: number }>(sql, [9]))).toEqual({ n: 10 });
    expect((await preparedTexts()).filter((s) => s === sql)).toHaveLength(1);
  });

  it('leaves statements with many parameters unnamed, and stops naming new texts after the bound', async () => {
    const params = Array.from({ length: 40 }, (_, i) => i);
    const bulk = `SELECT ${params.map((_, i) => `$${i + 1}::int`).join(' + ')} AS total`;
    expect(await db.one<{ total: number }>(bulk, params)).toEqual({ total: 780 });
    expect(await preparedTexts()).not.toContain(bulk);

    for (let i = 0; i < 320; i++) expect(await db.one<{ n: number }>(`SELECT $1::int * ${i} AS n`, [2])).toEqual({ n: 2 * i });
    const named = await preparedTexts();
    expect(named.length).toBeLessThanOrEqual(300);
    expect(named).toContain(`SELECT $1::int * 0 AS n`);
    expect(named).not.toContain(`SELECT $1::int * 319 AS n`);
  });
});
