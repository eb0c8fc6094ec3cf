// Resumable uploads (tus 1.0, feature key `tus`) at /api/library/tus. Each tus upload is a media row with
// the same id; when the last byte arrives the file moves into storage and is checked like a multipart upload.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppDeps } from '../../deps';
import type { Storage } from '../../storage/types';
import { S3Storage, uploadKey } from '../../storage/index';
import { s3ClientConfig } from '../../storage/s3';
import * as repo from './repository';
import { checkUpload, formatBytes } from './service';
import { DISK_FULL_TEXT, DomainError } from '../../errors';
import { isDiskFull } from '../../media/errors';

export const TUS_PATH = '/api/library/tus';

export interface TusRequestContext {
  userId: string;
  spaceId: string | null;
}

/** Per-request caller facts, set by the route before handing the request to the tus server. */
export const tusContext = new WeakMap<Request, TusRequestContext>();

export type TusServer = import('@tus/server').Server;

export function kindFrom(kind: string | null | undefined, filename: string): repo.MediaKind {
  if (kind === 'video' || kind === 'audio' || kind === 'srt') return kind;
  return /\.srt$/i.test(filename) ? 'srt' : 'video';
}

/** Unfinished resumable uploads are dropped after a day. */
export const TUS_EXPIRY_MS = 24 * 3600 * 1000;

/**
 * The tus data store: a folder (DATA_DIR/tus) with local storage; with S3 storage the upload goes straight
 * into the bucket as an S3 multipart upload (@tus/s3-store: objects `<id>`, `<id>.info`, `<id>.part` at the
 * top of the bucket until the upload finishes and moves under uploads/).
 */
async function tusStore(deps: AppDeps & { storage: Storage }, dir: string) {
  if (deps.storage instanceof S3Storage && deps.config.s3) {
    const { S3Store } = await import('@tus/s3-store');
    return new S3Store({
      partSize: 8 * 1024 * 1024,
      useTags: false,
      expirationPeriodInMilliseconds: TUS_EXPIRY_MS,
      s3ClientConfig: { ...s3ClientConfig(deps.config.s3), bucket: deps.config.s3.bucket },
    });
  }
  const { FileStore } = await import('@tus/file-store');
  mkdirSync(dir, { recursive: true });
  return new FileStore({ directory: dir, expirationPeriodInMilliseconds: TUS_EXPIRY_MS });
}

/** Moves a finished tus upload to its storage key. */
async function placeFinished(deps: AppDeps & { storage: Storage }, dir: string, uploadId: string, key: string): Promise<void> {
  if (deps.storage instanceof S3Storage) {
    await deps.storage.copy(uploadId, key);
    await deps.storage.delete(uploadId);
    await deps.storage.delete(`${uploadId}.info`);
    return;
  }
  await deps.storage.putFile(key, join(dir, uploadId), { move: true });
  await rm(join(dir, `${uploadId}.json`), { force: true });
}

export async function createTusServer(deps: AppDeps & { storage: Storage }): Promise<TusServer> {
  const { Server } = await import('@tus/server');
  const dir = join(deps.config.dataDir, 'tus');
  const maxSize = deps.config.limits.maxVideoSize;
  const server = new Server({
    path: TUS_PATH,
    datastore: await tusStore(deps, dir),
    maxSize,
    relativeLocation: true,
    respectForwardedHeaders: deps.config.trustProxy,
    namingFunction: () => randomUUID(),
    onUploadCreate: async (req, upload) => {
      const ctx = tusContext.get(req as unknown as Request);
      if (!ctx) throw { status_code: 401, body: 'Not authenticated\n' };
      // An empty file is the user's mistake: said at once (tus would create it and then answer 404 on it).
      if (upload.size === 0) throw { status_code: 400, body: 'This file is empty\n' };
      const meta = upload.metadata ?? {};
      const filename = String(meta.filename ?? meta.name ?? 'upload.mp4').slice(0, 255);
      const kind = kindFrom(meta.kind ?? null, filename);
      await repo.insertMedia(deps.db, {
        id: upload.id,
        spaceId: ctx.spaceId,
        userId: ctx.userId,
        kind,
        filename,
        contentType: (meta.filetype ?? meta.type ?? null) as string | null,
        sizeBytes: 0,
        storageKey: uploadKey(upload.id, filename),
        via: 'tus',
      });
      return {};
    },
    onUploadFinish: async (_req, upload) => {
      const m = await repo.findMedia(deps.db, upload.id);
      if (!m) throw { status_code: 404, body: 'Upload not found\n' };
      try {
        await placeFinished(deps, dir, upload.id, m.storage_key);
      } catch (e) {
        if (!isDiskFull(e)) throw e;
        // Nothing half-stored: the row, the tus file and whatever reached the upload's folder go.
        await deps.storage.deletePrefix(`uploads/${upload.id}/`).catch(() => {});
        await rm(join(dir, upload.id), { force: true });
        await rm(join(dir, `${upload.id}.json`), { force: true });
        await repo.deleteMedia(deps.db, upload.id);
        throw { status_code: 507, body: `${DISK_FULL_TEXT}\n` };
      }
      let done;
      try {
        done = await checkUpload(deps, upload.id);
      } catch (e) {
        if (e instanceof DomainError && e.code === 'invalid') throw { status_code: 422, body: `${String(e.detail)}\n` };
        throw e;
      }
      return {
        headers: {
          'Media-Id': upload.id,
          'Media-Status': done?.status ?? 'failed',
          'Access-Control-Expose-Headers': 'Media-Id, Media-Status, Upload-Offset, Location, Upload-Length',
        },
      };
    },
    onResponseError: (_req, err) => {
      const e = err as { status_code?: number; body?: string };
      if (e.status_code === 413) return { status_code: 413, body: `File is too large (the limit is ${formatBytes(maxSize)})\n` };
      return undefined;
    },
  });
  // Unfinished uploads older than the expiration period are removed (hourly; never keeps a process alive).
  setInterval(() => void server.cleanUpExpiredUploads().catch(() => 0), 3600_000).unref();
  return server;
}
