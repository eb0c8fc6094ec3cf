// The serialized transcript of the editor's full read (GET /api/project/{id}/transcript), kept per process and
// reused until the transcript changes. Shaping 1,000 segments costs about 11 ms of CPU; a kept answer costs a
// lookup. What an answer is made of names its version: the project's transcript revision (moved on by a database
// trigger on every write to its segments, migration 014), its languages, and its dictionary with the dictionary's
// updated_at. The version is read before the segments, so an answer is never kept under a newer version than its
// rows. The same version is the answer's ETag: a client that already has it gets a 304 without a body.
// The cache belongs to the database (Db.memo), like the account caches: two apps in one process never share it.
import { createHash } from 'node:crypto';
import type { Db } from '../../db/index';
import type { ProjectRow } from '../projects/repository';

/** Characters of JSON kept at most (about 64 MB of strings): the least recently used answers go first. */
const MAX_CHARS = 32_000_000;

interface Entry {
  etag: string;
  body: string;
}

interface TranscriptCache {
  /** project id -> its latest answer (Map order: least recently used first) */
  entries: Map<string, Entry>;
  chars: number;
}

function cacheOf(db: Db): TranscriptCache {
  let c = db.memo.get('transcripts') as TranscriptCache | undefined;
  if (!c) {
    c = { entries: new Map(), chars: 0 };
    db.memo.set('transcripts', c);
  }
  return c;
}

/** The version of a project's transcript answer, as an ETag. Read it before reading the segments. */
export async function transcriptEtag(db: Db, project: ProjectRow): Promise<string> {
  const v = await db.one<{ rev: string | null; glossary: string | null }>(
    `SELECT (SELECT rev::text FROM transcript_revs WHERE project_id = $1) AS rev,
            (SELECT updated_at::text FROM glossaries WHERE id = $2) AS glossary`,
    [project.id, project.glossary_id],
  );
  const version = [project.id, v.rev ?? '0', project.src_lang, project.dst_lang, project.glossary_id ?? '', v.glossary ?? ''].join('|');
  return `"t-${createHash('sha256').update(version).digest('base64url').slice(0, 22)}"`;
}

/** The kept answer of this version, if any. */
export function cachedTranscript(db: Db, projectId: string, etag: string): string | null {
  const c = cacheOf(db);
  const e = c.entries.get(projectId);
  if (!e || e.etag !== etag) return null;
  c.entries.delete(projectId);
  c.entries.set(projectId, e);
  return e.body;
}

/** Keeps a project's answer of this version (replacing an older one), within the size limit. */
export function keepTranscript(db: Db, projectId: string, etag: string, body: string): void {
  const c = cacheOf(db);
  const old = c.entries.get(projectId);
  if (old) {
    c.chars -= old.body.length;
    c.entries.delete(projectId);
  }
  if (body.length > MAX_CHARS / 4) return;
  c.entries.set(projectId, { etag, body });
  c.chars += body.length;
  for (const [id, e] of c.entries) {
    if (c.chars <= MAX_CHARS) break;
    c.entries.delete(id);
    c.chars -= e.body.length;
  }
}
