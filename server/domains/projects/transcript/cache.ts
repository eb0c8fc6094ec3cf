// The serialized transcript of the editor's full read (GET /api/project/{id}/transcript), kept per process and
// reused until the transcript changes (server/cache/answers.ts). Shaping 1,000 segments costs about 11 ms of
// CPU; a kept answer costs a lookup, and its compressed form is made once. What an answer is made of names its
// version: the project's transcript revision (moved on by a database trigger on every write to its segments,
// migration 014), its languages, and its dictionary with the dictionary's updated_at. The version is read before
// the segments, so an answer is never kept under a newer version than its rows. The same version is the answer's
// ETag (weak: the compressed and plain forms are the same content): a client that already has it gets a 304.
import { createHash } from 'node:crypto';
import type { Db } from '../../../db/index';
import type { ProjectRow } from '../repository';
import { answerCache, answerCacheOf, type AnswerCache } from '../../../cache/answers';

/** Bytes of JSON kept at most: the least recently read transcripts go first. */
const MAX_BYTES = 64 * 1024 * 1024;
/** The answer holds no signed URLs: it only changes with its version. */
const MAX_AGE_MS = 24 * 3600 * 1000;

const TRANSCRIPTS = answerCache('transcripts', { maxBytes: MAX_BYTES, maxAgeMs: MAX_AGE_MS });

export function transcriptCache(db: Db): AnswerCache {
  return answerCacheOf(db, TRANSCRIPTS);
}

/**
 * The version of a project's transcript answer, as an ETag, from the project row and its transcript revision and
 * dictionary's updated_at (read together by repository.findProjectWithTranscriptVersion, before the segments).
 */
export function transcriptEtag(project: ProjectRow, rev: string | null, glossaryUpdated: string | null): string {
  const version = [project.id, rev ?? '0', project.src_lang, project.dst_lang, project.glossary_id ?? '', glossaryUpdated ?? ''].join('|');
  return `W/"t-${createHash('sha256').update(version).digest('base64url').slice(0, 22)}"`;
}

/** Does an If-None-Match header name this ETag (weak comparison, as RFC 9110 has it for If-None-Match)? */
export function etagMatches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim() === '*' || opaque(t) === opaque(etag));
}
