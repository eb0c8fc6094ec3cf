// S3-compatible storage (AWS S3, MinIO, Ceph, R2 ...) through the official AWS SDK: @aws-sdk/client-s3 for the
// calls, @aws-sdk/lib-storage for large uploads (multipart), @aws-sdk/s3-request-presigner for signed URLs.
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createReadStream } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import {
  CopyObjectCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command,
  PutObjectCommand, S3Client, S3ServiceException, type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { checkKey, StorageNotFoundError, type ByteRange, type ListedObject, type Storage, type StoredObject } from './types';

export interface S3Options {
  /** Endpoint of an S3-compatible store (path-style addressing); null for AWS S3 itself. */
  endpoint: string | null;
  bucket: string;
  accessKeyId: string | null;
  secretAccessKey: string | null;
  region: string;
  /** Local folder for downloaded copies handed to tools (localFile). */
  cacheDir: string;
}

export class S3Error extends Error {
  override readonly name = 'S3Error';
  constructor(message: string, readonly status: number, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Files above this size go up as a multipart upload (parts of this size, two at a time). */
const MULTIPART_PART = 16 * 1024 * 1024;

function statusOf(e: unknown): number {
  return (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode ?? 0;
}
function isNotFound(e: unknown): boolean {
  const name = (e as { name?: string; Code?: string })?.name;
  return statusOf(e) === 404 || name === 'NotFound' || name === 'NoSuchKey';
}

/** The SDK client settings for an S3-compatible store; shared with the tus S3 store (server/domains/library/tus.ts). */
export function s3ClientConfig(o: Pick<S3Options, 'endpoint' | 'accessKeyId' | 'secretAccessKey' | 'region'>): S3ClientConfig {
  return {
    region: o.region,
    ...(o.endpoint ? { endpoint: o.endpoint, forcePathStyle: true } : {}),
    ...(o.accessKeyId && o.secretAccessKey ? { credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey } } : {}),
    // Checksums only where the API requires them: many S3-compatible stores refuse the SDK's default
    // aws-chunked trailing checksums on uploads.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  };
}

export class S3Storage implements Storage {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  readonly bucket: string;

  constructor(private readonly o: S3Options) {
    this.client = new S3Client(s3ClientConfig(o));
    this.bucket = o.bucket;
  }

  private fail(e: unknown, what: string, key?: string): never {
    if (key !== undefined && isNotFound(e)) throw new StorageNotFoundError(key);
    if (e instanceof StorageNotFoundError) throw e;
    const code = e instanceof S3ServiceException ? e.name : (e as Error)?.name;
    const status = statusOf(e);
    throw new S3Error(`S3 ${what} failed${status ? `: ${status}` : ''}${code ? ` ${code}` : ''}`, status, { cause: e });
  }

  async putFile(key: string, localPath: string, opts: { contentType?: string; move?: boolean } = {}): Promise<void> {
    checkKey(key);
    const size = (await stat(localPath)).size;
    try {
      if (size <= MULTIPART_PART) {
        await this.client.send(new PutObjectCommand({
          Bucket: this.bucket, Key: key, Body: createReadStream(localPath), ContentLength: size, ContentType: opts.contentType,
        }));
      } else {
        await new Upload({
          client: this.client,
          params: { Bucket: this.bucket, Key: key, Body: createReadStream(localPath), ContentType: opts.contentType },
          partSize: MULTIPART_PART,
          queueSize: 2,
          leavePartsOnError: false,
        }).done();
      }
    } catch (e) {
      this.fail(e, 'upload');
    }
    this.dropCached(key);
    if (opts.move) await rm(localPath, { force: true });
  }

  async putBuffer(key: string, data: Buffer | string, opts: { contentType?: string } = {}): Promise<void> {
    checkKey(key);
    const body = Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8');
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: body.length, ContentType: opts.contentType }));
    } catch (e) {
      this.fail(e, 'upload');
    }
    this.dropCached(key);
  }

  async getBuffer(key: string): Promise<Buffer> {
    checkKey(key);
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return Buffer.from(await r.Body!.transformToByteArray());
    } catch (e) {
      this.fail(e, 'download', key);
    }
  }

  /** Where the cached copies of `key` live: <cacheDir>/<key's folder>/<tag>/<file name>. */
  private cacheFolder(key: string): string {
    return join(this.o.cacheDir, dirname(key));
  }
  private dropCached(_key: string): void {
    // Cached copies are keyed by size and date: a new version of the object gets a new copy.
  }

  /** Downloads into the cache folder once per object version (keyed by its size and date). */
  async localFile(key: string): Promise<string> {
    const st = await this.stat(key);
    if (!st) throw new StorageNotFoundError(key);
    const tag = createHash('sha1').update(`${key}|${st.size}|${st.mtime.getTime()}`).digest('hex').slice(0, 16);
    const dst = join(this.cacheFolder(key), tag, key.split('/').pop()!);
    try {
      if ((await stat(dst)).size === st.size) return dst;
    } catch {
      // not cached yet
    }
    await mkdir(dirname(dst), { recursive: true });
    const tmp = `${dst}.${randomBytes(4).toString('hex')}.part`;
    try {
      await pipeline(await this.read(key), createWriteStream(tmp));
      await rename(tmp, dst);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
    return dst;
  }

  async stat(key: string): Promise<StoredObject | null> {
    checkKey(key);
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: Number(r.ContentLength ?? 0), mtime: r.LastModified ?? new Date() };
    } catch (e) {
      if (isNotFound(e)) return null;
      this.fail(e, 'stat');
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  async copy(srcKey: string, dstKey: string): Promise<void> {
    checkKey(srcKey);
    checkKey(dstKey);
    if (srcKey === dstKey) return;
    try {
      await this.client.send(new CopyObjectCommand({
        Bucket: this.bucket, Key: dstKey, CopySource: `${this.bucket}/${srcKey.split('/').map(encodeURIComponent).join('/')}`,
      }));
    } catch (e) {
      this.fail(e, 'copy', srcKey);
    }
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (e) {
      if (!isNotFound(e)) this.fail(e, 'delete');
    }
    await this.removeCached(key);
  }

  async *list(prefix: string): AsyncIterable<ListedObject> {
    let token: string | undefined;
    do {
      let r;
      try {
        r = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix || undefined, ContinuationToken: token }));
      } catch (e) {
        this.fail(e, 'list');
      }
      for (const o of r.Contents ?? []) {
        if (o.Key) yield { key: o.Key, size: Number(o.Size ?? 0), mtime: o.LastModified ?? new Date(0) };
      }
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
  }

  async deletePrefix(prefix: string): Promise<void> {
    const clean = prefix.replace(/\/+$/, '');
    checkKey(clean);
    const batch: string[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const keys = batch.splice(0, batch.length);
      try {
        const r = await this.client.send(new DeleteObjectsCommand({
          Bucket: this.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
        }));
        const failed = (r.Errors ?? []).filter((x) => x.Code !== 'NoSuchKey');
        if (failed.length > 0) throw new S3Error(`S3 delete failed for ${failed.length} objects: ${failed[0]!.Code ?? ''}`, 500);
      } catch (e) {
        if (e instanceof S3Error) throw e;
        this.fail(e, 'delete');
      }
    };
    for await (const o of this.list(`${clean}/`)) {
      batch.push(o.key);
      if (batch.length >= 1000) await flush();
    }
    await flush();
    await rm(this.cacheFolderOfPrefix(clean), { recursive: true, force: true });
  }

  private cacheFolderOfPrefix(prefix: string): string {
    return join(this.o.cacheDir, checkKey(prefix));
  }

  private async removeCached(key: string): Promise<void> {
    const folder = this.cacheFolder(key);
    const name = key.split('/').pop()!;
    try {
      const { readdir } = await import('node:fs/promises');
      for (const tag of await readdir(folder)) {
        if (/^[0-9a-f]{16}$/.test(tag)) await rm(join(folder, tag, name), { force: true });
      }
    } catch {
      // no cached copy
    }
  }

  async read(key: string, range?: ByteRange): Promise<Readable> {
    checkKey(key);
    try {
      const r = await this.client.send(new GetObjectCommand({
        Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined,
      }));
      return (r.Body as Readable | undefined) ?? Readable.from([]);
    } catch (e) {
      this.fail(e, 'download', key);
    }
  }

  /** A presigned GET URL, so media can be served by the store itself (range requests included). */
  presignGet(key: string, expiresSec: number, opts: { filename?: string; date?: Date; extraSec?: number } = {}): Promise<string> {
    checkKey(key);
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ...(opts.filename
          ? { ResponseContentDisposition: `attachment; filename="${opts.filename.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(opts.filename)}` }
          : {}),
      }),
      { expiresIn: Math.min(604800, Math.max(1, Math.floor(expiresSec + (opts.extraSec ?? 0)))), signingDate: opts.date },
    );
  }

  /** Stops the client's sockets (tests, shutdown). */
  close(): void {
    this.client.destroy();
  }
}
