// A full data folder (issue 26): an upload the disk refuses is answered 507 with a clear message and nothing of it
// is kept; readiness says not ready (and why) when the data folder's free space is below MIN_FREE_DISK_MB.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { filesUnder } from '../helpers';
import { newUser, uploadFile, type TestUser } from '../projects/projects-fixtures';

let h: Harness;
let u: TestUser;
let video: string;

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'diskfull');
  video = await makeSpeechVideo({ seconds: 2 });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('a full disk', () => {
  it('an upload whose storing fails with ENOSPC is 507 with a clear message; no row, no file is left', async () => {
    const storage = h.deps.storage!;
    const realPut = storage.putFile.bind(storage);
    const before = filesUnder(join(h.dataDir, 'media'));
    // The disk fills up halfway through the write: part of the file reached the folder.
    storage.putFile = async (key, path, o) => {
      await storage.putBuffer(key, Buffer.alloc(1024));
      void path;
      void o;
      throw Object.assign(new Error(`ENOSPC: no space left on device, write '${key}'`), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    };
    try {
      const r = await uploadFile(h, u, video, { name: 'talk.mp4' });
      expect(r.status, JSON.stringify(r.json)).toBe(507);
      expect(r.json.detail).toBe('The server is out of disk space: the upload was not stored. Try again later.');
    } finally {
      storage.putFile = realPut;
    }
    expect(await h.deps.db.query('SELECT id FROM media_uploads WHERE user_id = $1', [u.id])).toEqual([]);
    expect(filesUnder(join(h.dataDir, 'media'))).toEqual(before);
    expect(filesUnder(join(h.dataDir, 'tmp'))).toEqual([]);
    // Once there is room again, the same upload is stored.
    const ok = await uploadFile(h, u, video, { name: 'talk.mp4' });
    expect(ok.status).toBe(200);
    expect(ok.json.status).toBe('uploaded');
  });

  it('readiness is not ready, with the reason, when the data folder has less free space than MIN_FREE_DISK_MB', async () => {
    const good = await h.request('GET', '/api/health/ready');
    expect(good.status).toBe(200);
    const gb = await good.json();
    expect(gb.checks.disk).toMatchObject({ ok: true });
    const free = gb.checks.disk.free_mb as number;
    expect(free).toBeGreaterThan(0);
    const saved = h.deps.config.minFreeDiskMb;
    h.deps.config.minFreeDiskMb = free + 1_000_000;
    try {
      const bad = await h.request('GET', '/api/health/ready');
      expect(bad.status).toBe(503);
      const b = await bad.json();
      expect(b.status).toBe('unavailable');
      expect(b.checks.disk.ok).toBe(false);
      expect(b.checks.disk.error).toMatch(/^The data folder has \d+ MB free, below the minimum of \d+ MB \(MIN_FREE_DISK_MB\)/);
      expect(b.checks.database.ok).toBe(true);
      expect(b.checks.storage.ok).toBe(true);
    } finally {
      h.deps.config.minFreeDiskMb = saved;
    }
    expect((await h.request('GET', '/api/health/ready')).status).toBe(200);
  });
});
