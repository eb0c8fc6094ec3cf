// The embedded database's data directory: a new one is created (initdb) in a worker thread of its own, so
// initdb's buffers do not stay in the server's memory; an existing one is opened as it is.
import { mkdtempSync, existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../../server/db/index';

const root = mkdtempSync(join(tmpdir(), 'pglite-datadir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('PGlite data directory', () => {
  it('creates a new directory without keeping initdb buffers, and reopens it with its data', async () => {
    const dir = join(root, 'data');
    const before = process.memoryUsage().arrayBuffers;
    const db = await openPglite(dir);
    // initdb in this thread left about 225 MB of ArrayBuffers reachable after start-up.
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(100 * 1024 * 1024);
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
    await db.exec(`CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')`);
    await db.close();

    const again = await openPglite(dir);
    expect(await again.query<{ v: string }>('SELECT v FROM kept')).toEqual([{ v: 'still here' }]);
    await again.close();
  });

  it('opens with a 32 MB buffer cache (not PostgreSQL\'s 128 MB, resident for the life of the process), on disk and in memory', async () => {
    const dir = join(root, 'buffers');
    const onDisk = await openPglite(dir);
    const inMemory = await openPglite(null);
    try {
      for (const db of [onDisk, inMemory]) {
        expect(await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).toEqual([{ shared_buffers: '32MB' }]);
      }
    } finally {
      await onDisk.close();
      await inMemory.close();
    }
  });

  it('says clearly when the directory cannot be created', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'not a directory');
    await expect(openPglite(join(file, 'data'))).rejects.toThrow(/ENOTDIR|could not create the database/);
  });
});
