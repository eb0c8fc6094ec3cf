// S3-compatible storage (AWS S3, MinIO, Ceph, R2 ...) over plain HTTP with SigV4, path-style addressing.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHash, randomBytes } from 'node:crypto';
import { checkKey, StorageNotFoundError, type ByteRange, type Storage, type StoredObject } from './types';
import { EMPTY_SHA256, presignUrl, sha256Hex, signHeaders, UNSIGNED_PAYLOAD, uriEncode, type Credentials } from './sigv4';

export interface S3Options {
  endpoint: string | null;
  bucket: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  region: string;
  /** Local folder for downloaded copies handed to tools (localFile). */
  cacheDir: string;
  fetch?: typeof fetch;
}

export class S3Error extends Error {
  override readonly name = 'S3Error';
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

export class S3Storage implements Storage {
  readonly kind = 's3' as const;
  private readonly base: string;
  private readonly creds: Credentials;
  private readonly f: typeof fetch;

  constructor(private readonly o: S3Options) {
    this.base = (o.endpoint ?? `https://s3.${o.region}.amazonaws.com`).replace(/\/+$/, '');
    this.creds = { accessKeyId: o.accessKeyId ?? '', secretAccessKey: o.secretAccessKey ?? '', region: o.region };
    this.f = o.fetch ?? fetch;
  }

  private path(key?: string): string {
    return `/${uriEncode(this.o.bucket)}${key === undefined ? '' : '/' + uriEncode(checkKey(key), true)}`;
  }

  private async call(
    method: string,
    key: string | undefined,
    o: { query?: Record<string, string>; headers?: Record<string, string>; body?: Buffer | Readable; payloadHash?: string } = {},
  ): Promise<Response> {
    const path = this.path(key);
    const url = new URL(this.base + path);
    const headers = signHeaders(this.creds, {
      method,
      path: url.pathname,
      query: o.query,
      headers: { host: url.host, ...(o.headers ?? {}) },
      payloadHash: o.payloadHash ?? (o.body instanceof Buffer ? sha256Hex(o.body) : o.body ? UNSIGNED_PAYLOAD : EMPTY_SHA256),
      date: new Date(),
    });
    delete (headers as Record<string, string>).host;
    const qs = o.query ? '?' + new URLSearchParams(o.query).toString().replace(/\+/g, '%20') : '';
    const init: RequestInit & { duplex?: 'half' } = { method, headers };
    if (o.body) {
      init.body = (o.body instanceof Buffer ? new Uint8Array(o.body) : Readable.toWeb(o.body as Readable)) as unknown as BodyInit;
      if (!(o.body instanceof Buffer)) init.duplex = 'half';
    }
    return this.f(this.base + path + qs, init);
  }

  private async ok(r: Response, what: string, key?: string): Promise<Response> {
    if (r.status === 404 && key) throw new StorageNotFoundError(key);
    if (!r.ok && r.status !== 206) {
      const text = await r.text().catch(() => '');
      const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
      throw new S3Error(`S3 ${what} failed: ${r.status}${code ? ` ${code}` : ''}`, r.status);
    }
    return r;
  }

  async putFile(key: string, localPath: string, opts: { contentType?: string; move?: boolean } = {}): Promise<void> {
    const size = (await stat(localPath)).size;
    const r = await this.call('PUT', key, {
      headers: { 'content-length': String(size), ...(opts.contentType ? { 'content-type': opts.contentType } : {}) },
      body: createReadStream(localPath),
    });
    await this.ok(r, 'upload', undefined);
    if (opts.move) await rm(localPath, { force: true });
  }

  async putBuffer(key: string, data: Buffer | string, opts: { contentType?: string } = {}): Promise<void> {
    const body = Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8');
    const r = await this.call('PUT', key, {
      headers: { 'content-length': String(body.length), ...(opts.contentType ? { 'content-type': opts.contentType } : {}) },
      body,
    });
    await this.ok(r, 'upload');
  }

  async getBuffer(key: string): Promise<Buffer> {
    const r = await this.ok(await this.call('GET', key), 'download', key);
    return Buffer.from(await r.arrayBuffer());
  }

  /** Downloads into the cache folder once per key (keyed by the object's size and date). */
  async localFile(key: string): Promise<string> {
    const st = await this.stat(key);
    if (!st) throw new StorageNotFoundError(key);
    const tag = createHash('sha1').update(`${key}|${st.size}|${st.mtime.getTime()}`).digest('hex').slice(0, 16);
    const dst = join(this.o.cacheDir, tag, key.split('/').pop()!);
    try {
      if ((await stat(dst)).size === st.size) return dst;
    } catch {
      // not cached yet
    }
    await mkdir(dirname(dst), { recursive: true });
    const tmp = `${dst}.${randomBytes(4).toString('hex')}.part`;
    const r = await this.ok(await this.call('GET', key), 'download', key);
    if (!r.body) throw new S3Error('S3 download returned no body', r.status);
    try {
      await pipeline(Readable.fromWeb(r.body as never), createWriteStream(tmp));
      await rename(tmp, dst);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
    return dst;
  }

  async stat(key: string): Promise<StoredObject | null> {
    const r = await this.call('HEAD', key);
    if (r.status === 404) return null;
    await this.ok(r, 'stat');
    return {
      size: Number(r.headers.get('content-length') ?? 0),
      mtime: new Date(r.headers.get('last-modified') ?? Date.now()),
    };
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async copy(srcKey: string, dstKey: string): Promise<void> {
    const r = await this.call('PUT', dstKey, { headers: { 'x-amz-copy-source': this.path(srcKey) } });
    await this.ok(r, 'copy', srcKey);
  }

  async delete(key: string): Promise<void> {
    const r = await this.call('DELETE', key);
    if (r.status !== 404) await this.ok(r, 'delete');
  }

  async deletePrefix(prefix: string): Promise<void> {
    let token: string | undefined;
    do {
      const query: Record<string, string> = { 'list-type': '2', prefix };
      if (token) query['continuation-token'] = token;
      const r = await this.ok(await this.call('GET', undefined, { query }), 'list');
      const xml = await r.text();
      const keys = [...xml.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => decodeXml(m[1]!));
      for (const k of keys) await this.delete(k);
      token = /<IsTruncated>true<\/IsTruncated>/.test(xml)
        ? decodeXml(/<NextContinuationToken>([^<]+)<\/NextContinuationToken>/.exec(xml)?.[1] ?? '')
        : undefined;
    } while (token);
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    const r = await this.ok(
      await this.call('GET', key, { headers: range ? { range: `bytes=${range.start}-${range.end}` } : {} }),
      'download',
      key,
    );
    if (!r.body) return Readable.from([]);
    return Readable.fromWeb(r.body as never);
  }

  /** A presigned GET URL, so media can be served by the store itself. */
  presignGet(key: string, expiresSec: number, opts: { filename?: string; date?: Date; extraSec?: number } = {}): string {
    const query: Record<string, string> = {};
    if (opts.filename) query['response-content-disposition'] = `attachment; filename="${opts.filename.replace(/["\\]/g, '_')}"`;
    return presignUrl(this.creds, {
      method: 'GET', base: this.base, path: this.path(key), query, date: opts.date ?? new Date(), expiresSec: expiresSec + (opts.extraSec ?? 0),
    });
  }
}

function decodeXml(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}
