// Storage: the local folder and the S3-compatible store (the AWS SDK against s3rver on 127.0.0.1) behind one
// interface: put, read, ranges, copies, listing, deletes by prefix, multipart uploads of large files; signed
// file URLs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../server/config';
import { LocalStorage, mediaUrl, S3Storage, type Storage } from '../../../server/storage/index';
import { startFakeS3, type FakeS3 } from '../../fakes/s3';
import { signFileToken, verifyFileToken } from '../../../server/storage/signed';
import { parseRange } from '../../../server/app/files';

async function readAll(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

function contract(name: string, make: () => Promise<{ storage: Storage; cleanup: () => Promise<void> }>) {
  describe(`${name} storage`, () => {
    let s: Storage;
    let cleanup: () => Promise<void>;
    let dir: string;
    beforeAll(async () => {
      ({ storage: s, cleanup } = await make());
      dir = mkdtempSync(join(tmpdir(), 'storage-case-'));
    });
    afterAll(async () => {
      await cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    it('puts, reads, ranges, copies and deletes by prefix', async () => {
      const data = Buffer.from('0123456789abcdefghij');
      await s.putBuffer('projects/p1/a.txt', data);
      expect((await s.getBuffer('projects/p1/a.txt')).equals(data)).toBe(true);
      expect(await s.stat('projects/p1/a.txt')).toMatchObject({ size: 20 });
      expect((await readAll(await s.read('projects/p1/a.txt', { start: 5, end: 9 }))).toString()).toBe('56789');
      const f = join(dir, 'in.bin');
      writeFileSync(f, Buffer.alloc(70_000, 7));
      await s.putFile('projects/p1/sub dir/b.bin', f);
      const local = await s.localFile('projects/p1/sub dir/b.bin');
      expect(readFileSync(local).length).toBe(70_000);
      await s.copy('projects/p1/a.txt', 'projects/p2/a.txt');
      expect((await s.getBuffer('projects/p2/a.txt')).toString()).toBe('0123456789abcdefghij');
      await s.deletePrefix('projects/p1/');
      expect(await s.exists('projects/p1/a.txt')).toBe(false);
      expect(await s.exists('projects/p1/sub dir/b.bin')).toBe(false);
      expect(await s.exists('projects/p2/a.txt')).toBe(true);
      await s.delete('projects/p2/a.txt');
      await s.delete('projects/p2/a.txt'); // deleting twice is fine
      expect(await s.stat('projects/p2/a.txt')).toBeNull();
      await expect(s.getBuffer('projects/none')).rejects.toThrow(/not found/);
      await expect(s.read('projects/none')).rejects.toThrow(/not found/);
      await expect(s.copy('projects/none', 'projects/x')).rejects.toThrow(/not found/);
    });

    it('lists by prefix and ends empty after deletes', async () => {
      await s.putBuffer('uploads/u1/file.mp4', 'v');
      await s.putBuffer('uploads/u2/file.srt', 's');
      await s.putBuffer('projects/p9/x/y.json', '{}');
      const keys = async (p: string) => {
        const out: string[] = [];
        for await (const o of s.list(p)) out.push(o.key);
        return out.sort();
      };
      expect(await keys('uploads/')).toEqual(['uploads/u1/file.mp4', 'uploads/u2/file.srt']);
      expect(await keys('projects/p9/')).toEqual(['projects/p9/x/y.json']);
      const all = [];
      for await (const o of s.list('')) all.push(o);
      expect(all.find((o) => o.key === 'uploads/u1/file.mp4')).toMatchObject({ size: 1 });
      expect(all.every((o) => o.mtime instanceof Date && o.mtime.getTime() > Date.now() - 3600_000)).toBe(true);
      await s.deletePrefix('uploads/');
      await s.delete('projects/p9/x/y.json');
      expect(await keys('')).toEqual([]);
    });

    it('stores a file larger than one part (multipart upload on S3) intact', async () => {
      const f = join(dir, 'big.bin');
      const big = Buffer.alloc(17 * 1024 * 1024);
      for (let i = 0; i < big.length; i += 4096) big[i] = (i / 4096) % 251;
      writeFileSync(f, big);
      await s.putFile('projects/big/v.mp4', f, { move: true });
      expect(await s.stat('projects/big/v.mp4')).toMatchObject({ size: big.length });
      const tail = await readAll(await s.read('projects/big/v.mp4', { start: big.length - 8192, end: big.length - 1 }));
      expect(tail.equals(big.subarray(big.length - 8192))).toBe(true);
      expect(readFileSync(await s.localFile('projects/big/v.mp4')).equals(big)).toBe(true);
      await s.deletePrefix('projects/big/');
      expect(await s.exists('projects/big/v.mp4')).toBe(false);
    });

    it('refuses keys that could escape the store', async () => {
      for (const bad of ['../x', 'a/../../x', '/abs', 'a//b', '', 'a\\b']) {
        await expect(s.putBuffer(bad, 'x'), bad).rejects.toThrow(/invalid storage key/);
      }
    });
  });
}

contract('local', async () => {
  const root = mkdtempSync(join(tmpdir(), 'local-store-'));
  return { storage: new LocalStorage(root), cleanup: async () => rmSync(root, { recursive: true, force: true }) };
});

let fake: FakeS3;
contract('S3-compatible', async () => {
  fake = await startFakeS3();
  const cacheDir = mkdtempSync(join(tmpdir(), 's3-cache-'));
  const storage = new S3Storage({
    endpoint: fake.endpoint, bucket: fake.bucket, accessKeyId: fake.accessKeyId, secretAccessKey: fake.secretAccessKey,
    region: 'us-east-1', cacheDir,
  });
  return {
    storage,
    cleanup: async () => {
      // Nothing stays in the bucket, and no multipart upload is left open.
      expect(await fake.keys()).toEqual([]);
      expect(await fake.openUploads()).toEqual([]);
      storage.close();
      rmSync(cacheDir, { recursive: true, force: true });
    },
  };
});
afterAll(async () => {
  await fake?.close();
});

describe('S3 requests', () => {
  it('fail with a clear error for an unknown access key or bucket', async () => {
    const bad = new S3Storage({
      endpoint: fake.endpoint, bucket: 'media', accessKeyId: 'WRONG', secretAccessKey: 'x', region: 'us-east-1', cacheDir: tmpdir(),
    });
    await expect(bad.putBuffer('x', 'y')).rejects.toThrow(/S3 upload failed: 403 InvalidAccessKeyId/);
    const noBucket = new S3Storage({
      endpoint: fake.endpoint, bucket: 'nope', accessKeyId: fake.accessKeyId, secretAccessKey: fake.secretAccessKey, region: 'us-east-1', cacheDir: tmpdir(),
    });
    await expect(noBucket.putBuffer('x', 'y')).rejects.toThrow(/S3 upload failed: 404 NoSuchBucket/);
    bad.close();
    noBucket.close();
  });

  it('presigned GET URLs serve ranges and the download name from the store itself', async () => {
    const s = new S3Storage({
      endpoint: fake.endpoint, bucket: fake.bucket, accessKeyId: fake.accessKeyId, secretAccessKey: fake.secretAccessKey, region: 'us-east-1', cacheDir: tmpdir(),
    });
    await s.putBuffer('projects/pre/v.mp4', '0123456789');
    const url = await s.presignGet('projects/pre/v.mp4', 600, { filename: 'Talk «es».mp4' });
    expect(url).toMatch(new RegExp(`^${fake.endpoint}/media/projects/pre/v\\.mp4\\?`));
    expect(url).toContain('X-Amz-Signature=');
    const r = await fetch(url, { headers: { range: 'bytes=2-5' } });
    expect(r.status).toBe(206);
    expect(await r.text()).toBe('2345');
    expect(r.headers.get('content-range')).toBe('bytes 2-5/10');
    expect(r.headers.get('content-disposition')).toContain('attachment; filename="Talk _es_.mp4"');
    await s.deletePrefix('projects/pre/');
    s.close();
  });
});

describe('signed file URLs', () => {
  it('verify, expire, and resist tampering', () => {
    const t = signFileToken('secret', { key: 'projects/p/a.mp4', exp: Math.floor(Date.now() / 1000) + 60 });
    expect(verifyFileToken('secret', t)).toMatchObject({ ok: true, grant: { key: 'projects/p/a.mp4' } });
    expect(verifyFileToken('other', t)).toEqual({ ok: false, reason: 'invalid' });
    const old = signFileToken('secret', { key: 'k', exp: Math.floor(Date.now() / 1000) - 1 });
    expect(verifyFileToken('secret', old)).toEqual({ ok: false, reason: 'expired' });
    const forged = Buffer.from(JSON.stringify({ key: 'projects/other/a.mp4', exp: 9e9 })).toString('base64url') + t.slice(t.indexOf('.'));
    expect(verifyFileToken('secret', forged)).toEqual({ ok: false, reason: 'invalid' });
  });

  it('stay the same within the hour (players polling a project do not reload)', () => {
    const config = loadConfig({ JWT_SECRET: 'x'.repeat(40), DATA_DIR: tmpdir() });
    const local = new LocalStorage(tmpdir());
    // Two calls a few minutes apart inside one hour (a fixed clock: on the real one the pair could straddle the hour).
    vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-03-15T12:05:00Z') });
    try {
      const first = mediaUrl({ config, storage: local }, 'projects/p/a.mp4');
      vi.setSystemTime(new Date('2026-03-15T12:50:00Z'));
      expect(mediaUrl({ config, storage: local }, 'projects/p/a.mp4')).toBe(first);
    } finally {
      vi.useRealTimers();
    }
    expect(mediaUrl({ config, storage: local }, 'projects/p/a.mp4', { downloadName: 'Talk.mp4' })).toMatch(/^\/api\/files\/[^/]+\/Talk\.mp4$/);
  });

  it('parses single byte ranges', () => {
    expect(parseRange(undefined, 100)).toBeNull();
    expect(parseRange('bytes=0-9', 100)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=90-', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-5', 100)).toEqual({ start: 95, end: 99 });
    expect(parseRange('bytes=50-500', 100)).toEqual({ start: 50, end: 99 });
    expect(parseRange('bytes=100-', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=0-1,5-6', 100)).toBeNull();
    expect(parseRange('items=0-1', 100)).toBeNull();
  });
});
