// Storage construction and the media URLs handed to clients.
import { join } from 'node:path';
import type { Config } from '../config';
import { LocalStorage } from './local';
import { S3Storage } from './s3';
import { safeFileName, signFileToken } from './signed';
import type { Storage } from './types';

export * from './types';
/** @internal (tests) */
export { LocalStorage } from './local';
export { S3Storage } from './s3';

/** Local folder DATA_DIR/media by default; an S3-compatible bucket when S3_BUCKET is set. */
export function createStorage(config: Config): Storage {
  if (config.s3) {
    return new S3Storage({
      endpoint: config.s3.endpoint,
      bucket: config.s3.bucket,
      accessKeyId: config.s3.accessKeyId,
      secretAccessKey: config.s3.secretAccessKey,
      region: config.s3.region,
      cacheDir: join(config.dataDir, 'cache', 's3'),
    });
  }
  return new LocalStorage(join(config.dataDir, 'media'));
}

/** Deterministic keys of a project's artifacts. */
export const projectKey = (projectId: string, artifact: string) => `projects/${projectId}/${artifact}`;
export const uploadKey = (mediaId: string, filename: string) => {
  const ext = (/\.([a-z0-9]{1,8})$/i.exec(filename)?.[1] ?? 'bin').toLowerCase();
  return `uploads/${mediaId}/file.${ext}`;
};

export interface MediaUrlOptions {
  /** Seconds the URL stays valid (default 6 hours). */
  ttlSec?: number;
  /** Download name (served as an attachment); without it the file is served inline. */
  downloadName?: string;
  /** The name shown at the end of the URL (players use its extension). */
  displayName?: string;
  /** Make the object on first request with this generator (server/storage/generators.ts). */
  generate?: { kind: string; args: Record<string, string> };
}

/** A signed, expiring URL for a stored object, served with HTTP range requests (by the store itself on S3). */
export function mediaUrl(
  deps: { config: Config; storage: Storage },
  key: string,
  o: MediaUrlOptions = {},
): string {
  const ttl = o.ttlSec ?? 6 * 3600;
  // Expiry rounded up to the hour: the same object keeps the same URL for a while, so players polling the
  // project do not reload their source on every poll.
  const exp = Math.ceil((Date.now() / 1000 + ttl) / 3600) * 3600;
  // Always our own signed URL: with S3 storage /api/files answers with a redirect to a presigned URL of the
  // store (the bytes and range requests are served by the store itself), after making derived files.
  const name = o.downloadName ?? o.displayName ?? key.split('/').pop() ?? 'file';
  const token = signFileToken(deps.config.jwtSecret, {
    key,
    exp,
    ...(o.downloadName ? { name: o.downloadName, disp: 'attachment' as const } : {}),
    ...(o.generate ? { gen: o.generate } : {}),
  });
  const base = (deps.config.publicUrl ?? '').replace(/\/+$/, '');
  return `${base}/api/files/${token}/${encodeURIComponent(safeFileName(name.replace(/\.[^.]+$/, ''), /\.[^.]+$/.exec(name)?.[0] ?? ''))}`;
}
