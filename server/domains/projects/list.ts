// Pages of the project list (GET /api/project/paginated), kept serialized per version (server/cache/answers.ts):
// while a page's version (repository.listVersion: its projects, their speakers and transcript revisions, the count)
// is unchanged, the kept JSON, and its compressed form, is answered again instead of reading the rows, their
// speakers and changed segments, and shaping them. Running jobs move their project's progress about once a second,
// which makes the page of the space they are in a new version each time: the cost of one build per change.
// Pages hold signed media URLs (valid six hours or more): a page is built again after ten minutes whatever happens.
import { createHash } from 'node:crypto';
import type { Db } from '../../db/index';
import { keptRead } from '../../cache/kept-reads';
import { answerCache, answerCacheOf, type AnswerCache, type KeptAnswer } from '../../cache/answers';
import * as repo from './repository';
import { projectsJson, type ShapeDeps } from './shape';
import { TEXT } from '../../../contract/errors';
import { forbidden } from '../../errors';
import { checkSpaceFacts, isUuid } from '../spaces/guard';
import type { UserRow } from '../../caller';

const MAX_BYTES = 32 * 1024 * 1024;
const MAX_AGE_MS = 10 * 60 * 1000;

const PROJECT_LISTS = answerCache('project-lists', { maxBytes: MAX_BYTES, maxAgeMs: MAX_AGE_MS });

function listCache(db: Db): AnswerCache {
  return answerCacheOf(db, PROJECT_LISTS);
}

/**
 * One page of a space's projects as `{data, offset, total}` JSON, for a user the space guard lets in (checked on
 * the facts read with the page's version, in the same query: spaces/guard.ts checkSpaceFacts).
 */
export async function projectListPage(deps: ShapeDeps, user: UserRow, spaceId: string, q: repo.ListQuery): Promise<KeptAnswer> {
  if (!isUuid(spaceId)) throw forbidden(TEXT.noAccess);
  const key = JSON.stringify([spaceId, q.name ?? null, q.folderId ?? null, q.limit, q.offset]);
  // Kept between requests while nothing changes (server/cache/kept-reads.ts): most reads then ask no query at all.
  const read = await keptRead(deps.db, 'list-version', `${key}|${user.id}`, () => repo.listVersion(deps.db, spaceId, user.id, q));
  checkSpaceFacts(user, read.space);
  const version = createHash('sha256').update(read.version).digest('base64url');
  return listCache(deps.db).answer(key, version, async () => {
    const { rows, total } = await repo.listProjects(deps.db, spaceId, q);
    return JSON.stringify({ data: await projectsJson(deps, rows), offset: q.offset, total });
  });
}
