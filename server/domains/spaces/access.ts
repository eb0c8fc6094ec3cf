// The space guard (./guard.ts) for routes: the caller from the request (requireUser ran), the space id as the
// route read it. A route hands in its request context as it is; only the two values read here are named, so this
// file knows no HTTP framework.
import type { UserRow } from '../../caller';
import type { AppDeps } from '../../deps';
import { unauthorized } from '../../errors';
import { spaceAccess, type SpaceAccess } from './guard';

/** What the guard reads of a request: its app's deps and its signed-in user (a route's context). */
export interface RequestCaller {
  get(key: 'deps'): AppDeps;
  get(key: 'user'): UserRow;
}

/** The space the caller may enter (403 'You have no access to this resource' otherwise); see spaceAccess. */
export function requireSpaceAccess(c: RequestCaller, spaceId: string | null | undefined, opts: { owner?: boolean } = {}): Promise<SpaceAccess> {
  const user = c.get('user');
  if (!user) throw unauthorized();
  return spaceAccess(c.get('deps').db, user, spaceId, opts);
}
