// Nothing left behind: stored objects of deleted rows are removed right after the deleting transaction
// (and retried by the sweep), upload records go after the spec's 60 days, and a periodic sweep removes
// orphans (objects no row points to, scratch folders of killed processes, stale local caches).
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UPLOAD_RECORD_TTL_MS } from '../../../contract/constants';
import type { Config } from '../../config';
import type { Db } from '../../db/index';
import { S3Storage } from '../../storage/s3';
import { LocalStorage } from '../../storage/local';
import type { Storage } from '../../storage/types';
import * as repo from './repository';

export interface RetentionDeps {
  db: Db;
  storage: Storage;
  config: Config;
}

type Log = (msg: string, meta?: Record<string, unknown>) => void;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Unfinished tus uploads live this long (server/domains/library/tus.ts). */
const TUS_TTL_MS = 24 * 3600 * 1000;

/** Local folders of one project outside storage: the clip cache of the voiceover stage (S3 mode). */
export function projectCacheDirs(config: Config, projectId: string): string[] {
  return [join(config.dataDir, 'cache', 'clips', projectId)];
}

/** Removes an unfinished tus upload: its local files, or its S3 objects and open multipart upload. */
async function removeTusUpload(deps: RetentionDeps, id: string): Promise<void> {
  if (!UUID.test(id)) return;
  if (deps.storage instanceof S3Storage) {
    const { AbortMultipartUploadCommand, HeadObjectCommand } = await import('@aws-sdk/client-s3');
    try {
      const info = await deps.storage.client.send(new HeadObjectCommand({ Bucket: deps.storage.bucket, Key: `${id}.info` }));
      const uploadId = info.Metadata?.['upload-id'];
      if (uploadId) {
        await deps.storage.client
          .send(new AbortMultipartUploadCommand({ Bucket: deps.storage.bucket, Key: id, UploadId: uploadId }))
          .catch(() => {});
      }
    } catch {
      // no info object: nothing open
    }
    for (const k of [id, `${id}.info`, `${id}.part`]) await deps.storage.delete(k);
    return;
  }
  const dir = join(deps.config.dataDir, 'tus');
  await rm(join(dir, id), { force: true });
  await rm(join(dir, `${id}.json`), { force: true });
}

async function removeTarget(deps: RetentionDeps, row: Pick<repo.GarbageRow, 'kind' | 'target'>): Promise<void> {
  if (row.kind === 'prefix') {
    await deps.storage.deletePrefix(row.target);
    const m = /^projects\/([^/]+)\/$/.exec(row.target);
    if (m) for (const d of projectCacheDirs(deps.config, m[1]!)) await rm(d, { recursive: true, force: true });
  } else if (row.kind === 'key') {
    await deps.storage.delete(row.target);
  } else {
    await removeTusUpload(deps, row.target);
  }
}

/**
 * Removes the stored objects of deleted rows (queued by the triggers of migration 010). Called after every
 * deletion and by the sweep; a failure stays queued (with its error) for the next sweep.
 */
export async function purgeGarbage(deps: RetentionDeps, o: { limit?: number; log?: Log } = {}): Promise<{ removed: number; failed: number }> {
  let removed = 0;
  let failed = 0;
  const rows = await repo.pendingGarbage(deps.db, o.limit ?? 500);
  for (const row of rows) {
    try {
      await removeTarget(deps, row);
      await repo.garbageDone(deps.db, row.id);
      removed++;
    } catch (e) {
      failed++;
      const msg = e instanceof Error ? e.message : String(e);
      o.log?.('storage cleanup failed (retried by the sweep)', { target: row.target, attempts: row.attempts + 1, error: msg });
      await repo.garbageFailed(deps.db, row.id, msg).catch(() => {});
    }
  }
  return { removed, failed };
}

export interface SweepReport {
  uploadsExpired: number;
  orphanPrefixes: string[];
  localRemoved: number;
  garbage: { removed: number; failed: number };
}

/** Groups stored keys by their top two levels (projects/<id>, uploads/<id>) with the newest mtime. */
async function storedIds(storage: Storage, top: 'projects' | 'uploads'): Promise<Map<string, number>> {
  const newest = new Map<string, number>();
  for await (const o of storage.list(`${top}/`)) {
    const id = o.key.split('/')[1];
    if (!id) continue;
    newest.set(id, Math.max(newest.get(id) ?? 0, o.mtime.getTime()));
  }
  return newest;
}

/** Removes entries of `dir` (files or folders) last changed more than `ageMs` ago. */
async function removeOld(dir: string, ageMs: number, now: number, o: { recursiveFiles?: boolean } = {}): Promise<number> {
  let n = 0;
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (o.recursiveFiles && e.isDirectory()) {
      n += await removeOld(p, ageMs, now, o);
      // the folder itself goes when it is empty and old
      const left = await readdir(p).catch(() => ['?']);
      if (left.length === 0) await rm(p, { recursive: true, force: true });
      continue;
    }
    try {
      const s = await stat(p);
      if (now - s.mtimeMs > ageMs) {
        await rm(p, { recursive: true, force: true });
        n++;
      }
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

/**
 * The periodic sweep: upload records past the retention period, orphaned objects (no row, older than
 * `graceMs` so work in flight is never touched), unfinished tus uploads past their day, scratch folders
 * of killed stages and uploads, local cache copies unused for a week, then the garbage queue.
 */
export async function sweepRetention(
  deps: RetentionDeps,
  o: { graceMs?: number; now?: number; log?: Log } = {},
): Promise<SweepReport> {
  const now = o.now ?? Date.now();
  const grace = o.graceMs ?? 3600_000;
  const uploadsExpired = await repo.deleteUploadsOlderThan(deps.db, UPLOAD_RECORD_TTL_MS);
  const orphanPrefixes: string[] = [];
  for (const [top, table] of [['projects', 'projects'], ['uploads', 'media_uploads']] as const) {
    const stored = await storedIds(deps.storage, top);
    const ids = [...stored.keys()];
    const known = new Set<string>();
    for (let i = 0; i < ids.length; i += 500) {
      for (const id of await repo.existingIds(deps.db, table, ids.slice(i, i + 500))) known.add(id);
    }
    for (const [id, mtime] of stored) {
      if (known.has(id) || now - mtime < grace) continue;
      await deps.storage.deletePrefix(`${top}/${id}/`);
      if (top === 'projects') for (const d of projectCacheDirs(deps.config, id)) await rm(d, { recursive: true, force: true });
      orphanPrefixes.push(`${top}/${id}/`);
    }
  }
  // Unfinished tus uploads on S3 (objects <id>, <id>.info, <id>.part at the top of the bucket).
  if (deps.storage instanceof S3Storage) {
    const tus = new Map<string, number>();
    for await (const ob of deps.storage.list('')) {
      const m = /^([0-9a-f-]{36})(?:\.info|\.part)?$/.exec(ob.key);
      if (m) tus.set(m[1]!, Math.max(tus.get(m[1]!) ?? 0, ob.mtime.getTime()));
    }
    const live = await repo.uploadingIds(deps.db, [...tus.keys()]);
    for (const [id, mtime] of tus) {
      if ((live.has(id) && now - mtime < TUS_TTL_MS) || now - mtime < grace) continue;
      await removeTusUpload(deps, id);
      orphanPrefixes.push(id);
    }
  }
  let localRemoved = 0;
  const day = 24 * 3600 * 1000;
  localRemoved += await removeOld(join(deps.config.dataDir, 'work'), day, now);
  localRemoved += await removeOld(join(deps.config.dataDir, 'tmp'), day, now);
  localRemoved += await removeOld(join(deps.config.dataDir, 'cache'), 7 * day, now, { recursiveFiles: true });
  if (deps.storage instanceof LocalStorage) await deps.storage.pruneEmptyFolders();
  const garbage = await purgeGarbage(deps, { log: o.log });
  if (uploadsExpired || orphanPrefixes.length || localRemoved) {
    o.log?.('retention sweep', { uploadsExpired, orphans: orphanPrefixes.length, localRemoved, garbage });
  }
  return { uploadsExpired, orphanPrefixes, localRemoved, garbage };
}

/** Runs the sweep every `everyMs` (default hourly) in a process that processes jobs; returns a stop function. */
export function startRetention(deps: RetentionDeps, o: { everyMs?: number; log?: Log } = {}): () => void {
  let running = false;
  const t = setInterval(() => {
    if (running) return;
    running = true;
    sweepRetention(deps, { log: o.log })
      .catch((e) => o.log?.('retention sweep failed', { error: e instanceof Error ? e.message : String(e) }))
      .finally(() => {
        running = false;
      });
  }, o.everyMs ?? 3600_000);
  t.unref();
  return () => clearInterval(t);
}

/**
 * After a request deleted rows: removes their stored objects now. Never fails the request (the rows are
 * gone; a failed removal stays queued for the sweep).
 */
export async function afterDeletion(deps: { db: Db; config: Config; storage?: Storage }, log?: Log): Promise<void> {
  if (!deps.storage) return;
  await purgeGarbage({ db: deps.db, config: deps.config, storage: deps.storage }, { log }).catch((e) =>
    log?.('storage cleanup failed (retried by the sweep)', { error: e instanceof Error ? e.message : String(e) }),
  );
}
