// All SQL of the library: uploaded media.
import type { Db } from '../../db/index';
import { storableError } from '../../db/text';

export type MediaKind = 'video' | 'audio' | 'srt';
export type MediaStatus = 'uploading' | 'uploaded' | 'failed';

export interface MediaRow {
  id: string;
  space_id: string | null;
  user_id: string;
  kind: MediaKind;
  filename: string;
  content_type: string | null;
  size_bytes: number;
  storage_key: string;
  status: MediaStatus;
  error: string | null;
  via: 'multipart' | 'tus';
  probe: Record<string, unknown> | null;
  created_at: Date | string;
}

const COLS = `id, space_id, user_id, kind, filename, content_type, size_bytes::float8 AS size_bytes, storage_key, status, error,
  via, probe, created_at`;

export function insertMedia(
  db: Db,
  m: { id: string; spaceId: string | null; userId: string; kind: MediaKind; filename: string; contentType: string | null; sizeBytes: number; storageKey: string; via: 'multipart' | 'tus' },
): Promise<MediaRow> {
  return db.one<MediaRow>(
    `INSERT INTO media_uploads (id, space_id, user_id, kind, filename, content_type, size_bytes, storage_key, via)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLS}`,
    [m.id, m.spaceId, m.userId, m.kind, m.filename, m.contentType, m.sizeBytes, m.storageKey, m.via],
  );
}

export function findMedia(db: Db, id: string): Promise<MediaRow | null> {
  return db.maybeOne<MediaRow>(`SELECT ${COLS} FROM media_uploads WHERE id = $1`, [id]);
}

/** Removes an upload's row (a file refused at upload: nothing of it is kept). */
export async function deleteMedia(db: Db, id: string): Promise<void> {
  await db.query('DELETE FROM media_uploads WHERE id = $1', [id]);
}

export async function finishMedia(
  db: Db,
  id: string,
  r: { status: MediaStatus; error?: string | null; sizeBytes?: number; probe?: Record<string, unknown> | null; storageKey?: string },
): Promise<MediaRow | null> {
  return db.maybeOne<MediaRow>(
    `UPDATE media_uploads SET status = $2, error = $3, size_bytes = COALESCE($4, size_bytes), probe = COALESCE($5::jsonb, probe),
       storage_key = COALESCE($6, storage_key), updated_at = now()
     WHERE id = $1 RETURNING ${COLS}`,
    [id, r.status, storableError(r.error), r.sizeBytes ?? null, r.probe ? JSON.stringify(r.probe) : null, r.storageKey ?? null],
  );
}
