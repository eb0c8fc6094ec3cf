// All SQL of the library: uploaded media.
import type { Selectable } from 'kysely';
import type { Db } from '../../db/index';
import type { Json, JsonObject, MediaUploads } from '../../db/schema';
import { first, one, q, run, sql } from '../../db/sql';
import { storableError } from '../../db/text';

export type MediaKind = 'video' | 'audio' | 'srt';
export type MediaStatus = 'uploading' | 'uploaded' | 'failed';

/** An upload as the domain sees it: the schema's row (size as a float, no updated_at) with its kinds narrowed. */
export type MediaRow = Omit<Selectable<MediaUploads>, 'updated_at' | 'kind' | 'status' | 'via' | 'probe'> & {
  kind: MediaKind;
  status: MediaStatus;
  via: 'multipart' | 'tus';
  probe: JsonObject | null;
};

type Narrow = { kind: MediaKind; status: MediaStatus; via: 'multipart' | 'tus'; probe: JsonObject | null };

const COLS = [
  'id',
  'space_id',
  'user_id',
  'kind',
  'filename',
  'content_type',
  sql<number>`size_bytes::float8`.as('size_bytes'),
  'storage_key',
  'status',
  'error',
  'via',
  'probe',
  'created_at',
] as const;

export function insertMedia(
  db: Db,
  m: { id: string; spaceId: string | null; userId: string; kind: MediaKind; filename: string; contentType: string | null; sizeBytes: number; storageKey: string; via: 'multipart' | 'tus' },
): Promise<MediaRow> {
  return one(
    db,
    q
      .insertInto('media_uploads')
      .values({
        id: m.id,
        space_id: m.spaceId,
        user_id: m.userId,
        kind: m.kind,
        filename: m.filename,
        content_type: m.contentType,
        size_bytes: m.sizeBytes,
        storage_key: m.storageKey,
        via: m.via,
      })
      .returning(COLS)
      .$narrowType<Narrow>(),
  );
}

export function findMedia(db: Db, id: string): Promise<MediaRow | null> {
  return first(db, q.selectFrom('media_uploads').select(COLS).where('id', '=', id).$narrowType<Narrow>());
}

/** Removes an upload's row (a file refused at upload: nothing of it is kept). */
export async function deleteMedia(db: Db, id: string): Promise<void> {
  await run(db, q.deleteFrom('media_uploads').where('id', '=', id));
}

export async function finishMedia(
  db: Db,
  id: string,
  r: { status: MediaStatus; error?: string | null; sizeBytes?: number; probe?: Record<string, unknown> | null; storageKey?: string },
): Promise<MediaRow | null> {
  return first(
    db,
    q
      .updateTable('media_uploads')
      .set({
        status: r.status,
        error: storableError(r.error),
        size_bytes: (e) => e.fn.coalesce(sql<number>`${r.sizeBytes ?? null}`, e.ref('size_bytes')),
        probe: (e) => e.fn.coalesce(sql<Json>`${r.probe ? JSON.stringify(r.probe) : null}::jsonb`, e.ref('probe')),
        storage_key: (e) => e.fn.coalesce(sql<string>`${r.storageKey ?? null}`, e.ref('storage_key')),
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .returning(COLS)
      .$narrowType<Narrow>(),
  );
}
