// Storage: the local folder and the S3-compatible store behind one interface (S3 against an in-test HTTP
// server that checks every SigV4 signature), SigV4 against AWS's published examples, signed file URLs.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config';
import { LocalStorage, mediaUrl, S3Storage, type Storage } from '../../server/storage/index';
import { presignUrl, sha256Hex, signHeaders, EMPTY_SHA256, type Credentials } from '../../server/storage/sigv4';
import { signFileToken, verifyFileToken } from '../../server/storage/signed';
import { parseRange } from '../../server/storage/routes';

async function readAll(s: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of s) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks);
}

describe('SigV4', () => {
  const creds: Credentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1' };
  it('signs the GET Object example of the AWS documentation', () => {
    const h = signHeaders(creds, {
      method: 'GET', path: '/test.txt', headers: { host: 'examplebucket.s3.amazonaws.com', range: 'bytes=0-9' },
      payloadHash: EMPTY_SHA256, date: new Date('2013-05-24T00:00:00Z'),
    });
    expect(h.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, ' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });
  it('presigns the query-string example of the AWS documentation', () => {
    const url = presignUrl(creds, {
      method: 'GET', base: 'https://examplebucket.s3.amazonaws.com', path: '/test.txt', date: new Date('2013-05-24T00:00:00Z'), expiresSec: 86400,
    });
    expect(url).toMatch(/X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404$/);
  });
});

/** A minimal S3: objects in memory, every request's SigV4 header signature recomputed and checked. */
function fakeS3(creds: Credentials, bucket: string) {
  const objects = new Map<string, { body: Buffer; mtime: Date }>();
  const seen: string[] = [];
  const check = (req: IncomingMessage, url: URL): boolean => {
    const auth = req.headers.authorization ?? '';
    const m = /Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})/.exec(auth);
    if (!m || m[1] !== creds.accessKeyId) return false;
    const headers: Record<string, string> = {};
    for (const name of m[4]!.split(';')) headers[name] = String(req.headers[name] ?? '');
    const query: Record<string, string> = {};
    url.searchParams.forEach((v, k) => (query[k] = v));
    const date = headers['x-amz-date']!;
    const d = new Date(`${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6, 8)}T${date.slice(9, 11)}:${date.slice(11, 13)}:${date.slice(13, 15)}Z`);
    const { 'x-amz-date': _d, 'x-amz-content-sha256': payload, ...rest } = headers;
    const again = signHeaders(creds, { method: req.method!, path: url.pathname, query, headers: rest, payloadHash: payload!, date: d });
    return again.authorization === auth;
  };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    const body = await readAll(req);
    seen.push(`${req.method} ${url.pathname}${url.search}`);
    if (!check(req, url)) {
      res.writeHead(403).end('<Error><Code>SignatureDoesNotMatch</Code></Error>');
      return;
    }
    const prefix = `/${bucket}`;
    if (!url.pathname.startsWith(prefix)) return void res.writeHead(404).end();
    const key = decodeURIComponent(url.pathname.slice(prefix.length + 1));
    if (req.method === 'GET' && key === '' && url.searchParams.get('list-type') === '2') {
      const p = url.searchParams.get('prefix') ?? '';
      const keys = [...objects.keys()].filter((k) => k.startsWith(p));
      res.writeHead(200, { 'content-type': 'application/xml' });
      return void res.end(`<ListBucketResult>${keys.map((k) => `<Contents><Key>${k.replace(/&/g, '&amp;')}</Key></Contents>`).join('')}<IsTruncated>false</IsTruncated></ListBucketResult>`);
    }
    if (req.method === 'PUT') {
      const src = req.headers['x-amz-copy-source'];
      if (src) {
        const from = decodeURIComponent(String(src).slice(prefix.length + 1));
        const o = objects.get(from);
        if (!o) return void res.writeHead(404).end('<Error><Code>NoSuchKey</Code></Error>');
        objects.set(key, { body: o.body, mtime: new Date() });
      } else {
        if (req.headers['x-amz-content-sha256'] !== 'UNSIGNED-PAYLOAD' && req.headers['x-amz-content-sha256'] !== sha256Hex(body)) {
          return void res.writeHead(400).end('<Error><Code>XAmzContentSHA256Mismatch</Code></Error>');
        }
        objects.set(key, { body, mtime: new Date() });
      }
      return void res.writeHead(200).end();
    }
    const o = objects.get(key);
    if (req.method === 'DELETE') {
      objects.delete(key);
      return void res.writeHead(204).end();
    }
    if (!o) return void res.writeHead(404).end('<Error><Code>NoSuchKey</Code></Error>');
    const headers = { 'content-length': String(o.body.length), 'last-modified': o.mtime.toUTCString() };
    if (req.method === 'HEAD') return void res.writeHead(200, headers).end();
    const range = /bytes=(\d+)-(\d+)/.exec(String(req.headers.range ?? ''));
    if (range) {
      const part = o.body.subarray(Number(range[1]), Number(range[2]) + 1);
      res.writeHead(206, { 'content-length': String(part.length) });
      return void res.end(part);
    }
    res.writeHead(200, headers);
    res.end(o.body);
  });
  return { server, objects, seen };
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

const s3creds: Credentials = { accessKeyId: 'TESTKEY', secretAccessKey: 'test-secret-key', region: 'eu-west-1' };
let fake: ReturnType<typeof fakeS3>;
contract('S3-compatible', async () => {
  fake = fakeS3(s3creds, 'media');
  await new Promise<void>((r) => fake.server.listen(0, '127.0.0.1', () => r()));
  const port = (fake.server.address() as AddressInfo).port;
  const cacheDir = mkdtempSync(join(tmpdir(), 's3-cache-'));
  const storage = new S3Storage({
    endpoint: `http://127.0.0.1:${port}`, bucket: 'media', accessKeyId: s3creds.accessKeyId, secretAccessKey: s3creds.secretAccessKey,
    region: s3creds.region, cacheDir,
  });
  // The fake server stays up for the checks below; it closes at the end of the file.
  return { storage, cleanup: async () => rmSync(cacheDir, { recursive: true, force: true }) };
});
afterAll(async () => {
  if (fake?.server.listening) await new Promise((r) => fake.server.close(r));
});

describe('S3 requests', () => {
  it('were all signed (the fake refuses a bad signature)', async () => {
    const bad = new S3Storage({
      endpoint: `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}`, bucket: 'media', accessKeyId: 'TESTKEY',
      secretAccessKey: 'wrong', region: 'eu-west-1', cacheDir: tmpdir(),
    });
    await expect(bad.putBuffer('x', 'y')).rejects.toThrow(/S3 upload failed: 403 SignatureDoesNotMatch/);
    expect(fake.seen.filter((r) => r.startsWith('PUT ')).length).toBeGreaterThan(3);
    expect(fake.seen.some((r) => r.includes('list-type=2'))).toBe(true);
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

  it('stay the same within the hour (players polling a project do not reload) and use S3 presigning there', () => {
    const config = loadConfig({ JWT_SECRET: 'x'.repeat(40), DATA_DIR: tmpdir() });
    const local = new LocalStorage(tmpdir());
    expect(mediaUrl({ config, storage: local }, 'projects/p/a.mp4')).toBe(mediaUrl({ config, storage: local }, 'projects/p/a.mp4'));
    const s3 = new S3Storage({ endpoint: 'https://s3.example.com', bucket: 'b', accessKeyId: 'K', secretAccessKey: 'S', region: 'us-east-1', cacheDir: tmpdir() });
    const u = mediaUrl({ config, storage: s3 }, 'projects/p/a.mp4', { downloadName: 'Talk.mp4' });
    expect(u).toMatch(/^https:\/\/s3\.example\.com\/b\/projects\/p\/a\.mp4\?/);
    expect(u).toContain('response-content-disposition=attachment%3B%20filename%3D%22Talk.mp4%22');
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
