// The space guard of server/domains/spaces/guard.ts for routes: the caller from the request (requireUser ran),
// the space id from the query.
import type { Context } from 'hono';
import { TEXT } from '../../contract/errors';
import { spaceAccess, type SpaceAccess } from '../domains/spaces/guard';
import type { AppEnv } from './env';
import { unauthorized, unprocessable } from './errors';

/** The space the caller may enter (403 'You have no access to this resource' otherwise); see spaceAccess. */
export function requireSpaceAccess(c: Context<AppEnv>, spaceId: string | null | undefined, opts: { owner?: boolean } = {}): Promise<SpaceAccess> {
  const user = c.get('user');
  if (!user) throw unauthorized();
  return spaceAccess(c.get('deps').db, user, spaceId, opts);
}

/** The space_id query parameter; missing or blank -> 422 'Field is required'. */
export function spaceIdFromQuery(c: Context<AppEnv>): string {
  const id = optionalSpaceIdFromQuery(c);
  if (id === null) throw unprocessable([{ loc: ['query', 'space_id'], msg: TEXT.fieldRequired, type: 'missing' }]);
  return id;
}

/** The space_id query parameter, or null when absent. */
export function optionalSpaceIdFromQuery(c: Context<AppEnv>): string | null {
  const raw = c.req.query('space_id');
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}
