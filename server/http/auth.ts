// The route guards: the caller from the bearer token (who a token is and their account: the app's `callers`,
// server/domains/auth/identity.ts, handed to every request by server/app/app.ts).
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError, unauthorized } from './errors';
import type { AppEnv, UserRow } from './env';
import { TEXT } from '../../contract/errors';

export function bearerOf(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1] : null;
}

/** Requires a valid token; sets `identity`. Run once per request, by server/app/authenticate.ts. */
export const requireIdentity: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearerOf(c.req.header('authorization'));
  if (!token) throw unauthorized();
  c.set('identity', await c.get('callers').resolveIdentity(token, c.get('deps')));
  await next();
};

function activeOrThrow(user: UserRow | null): UserRow {
  if (!user) throw new ApiError(404, 'User not found');
  if (!user.is_active) throw new ApiError(400, TEXT.inactiveUser);
  return user;
}

/**
 * Requires a valid token AND a product account that is active; sets `identity` and `user`. Run once per request,
 * by server/app/authenticate.ts on every /api route that is not public: routes do not apply it themselves.
 */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearerOf(c.req.header('authorization'));
  if (!token) throw unauthorized();
  const deps = c.get('deps');
  const identity = await c.get('callers').resolveIdentity(token, deps);
  c.set('identity', identity);
  c.set('user', activeOrThrow(await c.get('callers').accountOf(deps, identity.identityId)));
  await next();
};

/**
 * For public endpoints: no token -> null; a token -> its active account, or null when the identity has no
 * account yet. A bad token is still 401 and an inactive account 400 'Inactive user'. Sets identity/user.
 */
export async function optionalUser(c: Context<AppEnv>): Promise<UserRow | null> {
  const token = bearerOf(c.req.header('authorization'));
  if (!token) return null;
  const deps = c.get('deps');
  const identity = await c.get('callers').resolveIdentity(token, deps);
  c.set('identity', identity);
  const user = await c.get('callers').accountOf(deps, identity.identityId);
  if (!user) return null;
  c.set('user', activeOrThrow(user));
  return user;
}

export const requireSuperuser: MiddlewareHandler<AppEnv> = async (c, next) => {
  const user = c.get('user');
  if (!user?.is_superuser) throw new ApiError(403, 'Superuser required');
  await next();
};
