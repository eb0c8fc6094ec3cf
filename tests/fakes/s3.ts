// An S3-compatible server on 127.0.0.1 for the S3-mode tests: the npm package s3rver (a Koa app storing
// objects in a folder), plus the three multipart calls it lacks and that the tus S3 store needs
// (ListParts, AbortMultipartUpload, ListMultipartUploads), answered from s3rver's own upload folders with the
// XML documented by the S3 API reference.
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import S3rver from 's3rver';

export interface FakeS3 {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The S3_* variables that point the app at this server. */
  env: Record<string, string>;
  /** Every object key in the bucket (s3rver's own bookkeeping files excluded). */
  keys(): Promise<string[]>;
  /** Multipart uploads started and neither completed nor aborted. */
  openUploads(): Promise<string[]>;
  close(): Promise<void>;
}

type KoaCtx = {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  body: unknown;
  store: { getResourcePath(bucket: string, key: string | undefined, resource: string): string };
};

const ns = 'http://s3.amazonaws.com/doc/2006-03-01/';

function noSuchUpload(ctx: KoaCtx, uploadId: string) {
  ctx.status = 404;
  ctx.body = { Error: { Code: 'NoSuchUpload', Message: 'The specified upload does not exist.', UploadId: uploadId } };
}

/** ListParts, AbortMultipartUpload and ListMultipartUploads over s3rver's upload folders. */
function multipartExtras(bucketName: string) {
  return async (ctx: KoaCtx, next: () => Promise<void>) => {
    const m = /^\/([^/]+)(?:\/(.+))?$/.exec(ctx.path);
    if (!m || m[1] !== bucketName) return next();
    const key = m[2] ? decodeURIComponent(m[2]) : undefined;
    const uploadsDir = ctx.store.getResourcePath(bucketName, undefined, 'uploads');
    if (key && 'uploadId' in ctx.query && !('partNumber' in ctx.query) && (ctx.method === 'GET' || ctx.method === 'DELETE')) {
      const uploadId = ctx.query.uploadId!;
      const dir = join(uploadsDir, uploadId.replace(/[^0-9a-f]/gi, ''));
      try {
        await stat(dir);
      } catch {
        return noSuchUpload(ctx, uploadId);
      }
      if (ctx.method === 'DELETE') {
        await rm(dir, { recursive: true, force: true });
        ctx.status = 204;
        ctx.body = '';
        return;
      }
      const marker = Number(ctx.query['part-number-marker'] ?? 0);
      const parts = [];
      for (const f of await readdir(dir)) {
        if (!/^\d+$/.test(f) || Number(f) <= marker) continue;
        const s = await stat(join(dir, f));
        const md5 = (await readFile(join(dir, `${f}.md5`), 'utf8').catch(() => '')).trim();
        parts.push({ PartNumber: Number(f), LastModified: s.mtime.toISOString(), ETag: `"${md5}"`, Size: s.size });
      }
      parts.sort((a, b) => a.PartNumber - b.PartNumber);
      ctx.body = {
        ListPartsResult: {
          '@': { xmlns: ns },
          Bucket: bucketName, Key: key, UploadId: uploadId, PartNumberMarker: marker,
          NextPartNumberMarker: parts.at(-1)?.PartNumber ?? marker, MaxParts: 1000, IsTruncated: false,
          ...(parts.length > 0 ? { Part: parts } : {}),
        },
      };
      return;
    }
    if (!key && ctx.method === 'GET' && 'uploads' in ctx.query) {
      const uploads = [];
      for (const id of await readdir(uploadsDir).catch(() => [] as string[])) {
        const k = await readFile(join(uploadsDir, id, 'key'), 'utf8').catch(() => null);
        if (k === null) continue;
        uploads.push({ Key: k, UploadId: id, Initiated: (await stat(join(uploadsDir, id))).birthtime.toISOString() });
      }
      ctx.body = {
        ListMultipartUploadsResult: {
          '@': { xmlns: ns },
          Bucket: bucketName, KeyMarker: '', UploadIdMarker: '', MaxUploads: 1000, IsTruncated: false,
          ...(uploads.length > 0 ? { Upload: uploads } : {}),
        },
      };
      return;
    }
    return next();
  };
}

export async function startFakeS3(bucket = 'media'): Promise<FakeS3> {
  const dir = mkdtempSync(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  // Before s3rver's router (its last middleware), after its XML encoder.
  const mw = (server as unknown as { middleware: unknown[] }).middleware;
  mw.splice(mw.length - 1, 0, multipartExtras(bucket));
  const addr = (await server.run()) as AddressInfo;
  const endpoint = `http://127.0.0.1:${addr.port}`;
  const root = join(dir, bucket);
  return {
    endpoint,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    env: { S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER', S3_REGION: 'us-east-1' },
    async keys() {
      const out: string[] = [];
      const walk = async (d: string, rel: string) => {
        for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
          if (e.isDirectory()) {
            if (!e.name.startsWith('._S3rver_')) await walk(join(d, e.name), rel ? `${rel}/${e.name}` : e.name);
          } else if (e.name.endsWith('._S3rver_object')) {
            // s3rver keeps an object as `<name>._S3rver_object` beside its metadata files.
            const name = e.name.slice(0, -'._S3rver_object'.length);
            out.push(rel ? `${rel}/${name}` : name);
          }
        }
      };
      await walk(root, '');
      return out.sort();
    },
    async openUploads() {
      return readdir(join(root, '._S3rver_uploads')).catch(() => []);
    },
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

