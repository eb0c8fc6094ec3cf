// Resumable video upload over tus (POST /api/library/tus): progress, automatic retries when the
// connection drops, and resume of an interrupted upload of the same file (also after a reload).
// Stored upload records older than UPLOAD_RECORD_TTL_MS (60 days) are removed.
import * as tus from 'tus-js-client';
import { UPLOAD_RECORD_TTL_MS } from '../../../contract/constants';
import { getAuthProvider } from '../../lib/auth/active';
import type { Media } from '../../../contract/schemas/library';
import { getApi } from '../../lib/api/use-api-get';
import { apiBaseUrl } from '../../lib/http';

/** The upload as GET /api/library/media/{id} answers it. */
export type UploadedMedia = Media;

export interface UploadHandle {
  done: Promise<UploadedMedia>;
  abort(): void;
}

export interface UploadOptions {
  spaceId: string;
  kind?: 'video' | 'audio' | 'srt';
  onProgress?: (sent: number, total: number) => void;
  /** Waits between retries after a dropped connection (ms). */
  retryDelays?: number[];
  chunkSize?: number;
}

export const DEFAULT_RETRY_DELAYS = [0, 1000, 3000, 5000, 10000, 20000, 30000, 30000, 30000];

/** Removes stored tus records older than the TTL. */
export async function pruneUploadRecords(now = Date.now()): Promise<number> {
  if (!tus.canStoreURLs) return 0;
  const storage = tus.defaultOptions.urlStorage;
  const all = await storage.findAllUploads();
  let removed = 0;
  for (const u of all) {
    const created = Date.parse(u.creationTime);
    if (!Number.isFinite(created) || now - created > UPLOAD_RECORD_TTL_MS) {
      await storage.removeUpload(u.urlStorageKey);
      removed++;
    }
  }
  return removed;
}

export function mediaIdFromUrl(url: string): string {
  const id = new URL(url, window.location.href).pathname.split('/').filter(Boolean).pop();
  if (!id) throw new Error('The upload has no id');
  return id;
}

export function startUpload(file: File, o: UploadOptions): UploadHandle {
  let upload: tus.Upload | null = null;
  let aborted = false;
  const done = new Promise<UploadedMedia>((resolve, reject) => {
    const endpoint = new URL('library/tus', apiBaseUrl());
    endpoint.searchParams.set('space_id', o.spaceId);
    upload = new tus.Upload(file, {
      endpoint: endpoint.href,
      retryDelays: o.retryDelays ?? DEFAULT_RETRY_DELAYS,
      chunkSize: o.chunkSize ?? 8 * 1024 * 1024,
      removeFingerprintOnSuccess: true,
      storeFingerprintForResuming: true,
      metadata: { filename: file.name, filetype: file.type || 'application/octet-stream', kind: o.kind ?? 'video' },
      onBeforeRequest: async (req) => {
        const token = await getAuthProvider()?.getToken();
        if (token) req.setHeader('Authorization', `Bearer ${token}`);
      },
      onProgress: (sent, total) => o.onProgress?.(sent, total),
      onShouldRetry: (err) => {
        const status = err.originalResponse?.getStatus() ?? 0;
        // Network failures (0), conflicts, rate limits and server errors are retried; client errors are final.
        return !aborted && (status === 0 || status === 409 || status === 423 || status === 429 || status >= 500);
      },
      onError: (err) => {
        const res = (err as tus.DetailedError).originalResponse;
        const body = res?.getBody()?.trim();
        let text = body;
        try {
          const j = body ? (JSON.parse(body) as { detail?: unknown }) : null;
          if (j && typeof j.detail === 'string') text = j.detail;
        } catch {
          /* plain text body */
        }
        reject(new Error(text || (res ? `Upload failed (${res.getStatus()})` : 'Upload failed: the connection was lost')));
      },
      onSuccess: async ({ lastResponse }) => {
        try {
          const id = lastResponse.getHeader('Media-Id') || mediaIdFromUrl(upload!.url!);
          const media = await getApi('/api/library/media/{id}', { params: { path: { id } } });
          if (media.status === 'failed') reject(new Error(media.error || 'The file could not be read'));
          else resolve(media);
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      },
    });
    const u = upload;
    void pruneUploadRecords()
      .catch(() => 0)
      .then(() => u.findPreviousUploads())
      .then((previous) => {
        if (aborted) return;
        const latest = [...previous].sort((a, b) => Date.parse(b.creationTime) - Date.parse(a.creationTime))[0];
        if (latest) u.resumeFromPreviousUpload(latest);
        u.start();
      })
      .catch(() => {
        if (!aborted) u.start();
      });
  });
  return {
    done,
    abort() {
      aborted = true;
      void upload?.abort();
    },
  };
}

/** Duration of a local media file, read by the browser (null when it cannot tell). */
export function localDuration(file: File, timeoutMs = 8000): Promise<number | null> {
  return new Promise((resolve) => {
    if (typeof URL.createObjectURL !== 'function' || typeof document === 'undefined') return resolve(null);
    const el = document.createElement(file.type.startsWith('audio/') ? 'audio' : 'video');
    const url = URL.createObjectURL(file);
    const finish = (d: number | null) => {
      clearTimeout(timer);
      URL.revokeObjectURL(url);
      el.removeAttribute('src');
      resolve(d);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    el.preload = 'metadata';
    el.onloadedmetadata = () => finish(Number.isFinite(el.duration) ? el.duration : null);
    el.onerror = () => finish(null);
    el.src = url;
  });
}
