// Resolves the caller from the bearer token and guards routes.
// Token kinds: our access JWT first, then the other resolvers (embedded session tokens, API keys).
import type { Context, MiddlewareHandler } from 'hono';
import { namespace } from '../cache/index';
import { verifyAccessToken } from '../domains/auth/tokens';
import { resolveEmbedIdentity } from '../domains/auth/embed';
import { resolveApiKey } from '../domains/apikeys/service';
import { cachedUserByIdentity } from '../domains/users/cache';
import { findUserByIdentity } from '../domains/users/repository';
import { ApiError, unauthorized } from './errors';
import type { AppEnv, Identity, UserRow } from './env';
import { TEXT } from '../../contract/errors';

export function bearerOf(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1] : null;
}

/**
 * The resolvers tried after our access JWT, in order; first non-null wins. A resolver returns null for tokens that
 * are not its kind and throws (401) for a token of its kind that fails verification. A fixed list, the same for
 * every app (what a resolver reads of an app comes from its deps).
 */
type IdentityResolver = (token: string, deps: AppEnv['Variables']['deps']) => Promise<Identity | null>;
const EXTRA_RESOLVERS: readonly IdentityResolver[] = [
  // Embedded-app session tokens (active only when EMBED_APP_KEY/EMBED_APP_SECRET are set).
  resolveEmbedIdentity,
  // API keys (dsk_...): plan, revocation and requests per minute checked on every request.
  resolveApiKey,
];

// Verified access tokens, until their expiry (a verification is pure: caching it changes nothing but time).
const VERIFIED_MAX = 10_000;
// One cache per app (its state, server/cache), per signing secret.
const VERIFIED = namespace('verified-access-tokens', () => new Map<string, Map<string, { identity: Identity; expMs: number }>>());
function verifiedCache(deps: AppEnv['Variables']['deps']) {
  const verified = deps.db.state.of(VERIFIED);
  const secret = deps.config.jwtSecret;
  let m = verified.get(secret);
  if (!m) {
    m = new Map();
    verified.set(secret, m);
  }
  return m;
}

export async function resolveIdentity(token: string, deps: AppEnv['Variables']['deps']): Promise<Identity> {
  const cache = verifiedCache(deps);
  const hit = cache.get(token);
  if (hit) {
    if (hit.expMs > Date.now()) return hit.identity;
    cache.delete(token);
  }
  const r = await verifyAccessToken(deps.config.jwtSecret, token);
  if (r.ok) {
    const identity: Identity = Object.freeze({ identityId: r.claims.sub, email: r.claims.email, provider: r.claims.provider, via: 'access_token' as const });
    if (cache.size >= VERIFIED_MAX) {
      const first = cache.keys().next();
      if (!first.done) cache.delete(first.value);
    }
    cache.set(token, { identity, expMs: r.exp * 1000 });
    return identity;
  }
  for (const resolver of EXTRA_RESOLVERS) {
    const id = await resolver(token, deps);
    if (id) return id;
  }
  throw unauthorized(r.reason === 'expired' ? 'Token expired' : 'Invalid token');
}

/** The account of an identity (short-lived cache, see server/domains/users/cache.ts). */
export function accountOf(deps: AppEnv['Variables']['deps'], identityId: string): Promise<UserRow | null> {
  return cachedUserByIdentity(deps.db, identityId, (id) => findUserByIdentity(deps.db, id));
}

/** Requires a valid token; sets `identity`. */
export const requireIdentity: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get('identity')) return next(); // resolved earlier in this request (gates): an API key counts once
  const token = bearerOf(c.req.header('authorization'));
  if (!token) throw unauthorized();
  c.set('identity', await resolveIdentity(token, c.get('deps')));
  await next();
};

function activeOrThrow(user: UserRow | null): UserRow {
  if (!user) throw new ApiError(404, 'User not found');
  if (!user.is_active) throw new ApiError(400, TEXT.inactiveUser);
  return user;
}

/** Requires a valid token AND a product account that is active; sets `user`. */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.get('identity') && c.get('user')) return next(); // resolved earlier in this request (gates)
  const token = bearerOf(c.req.header('authorization'));
  if (!token) throw unauthorized();
  const deps = c.get('deps');
  const identity = await resolveIdentity(token, deps);
  c.set('identity', identity);
  c.set('user', activeOrThrow(await accountOf(deps, identity.identityId)));
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
  const identity = await resolveIdentity(token, deps);
  c.set('identity', identity);
  const user = await accountOf(deps, identity.identityId);
  if (!user) return null;
  c.set('user', activeOrThrow(user));
  return user;
}

export const requireSuperuser: MiddlewareHandler<AppEnv> = async (c, next) => {
  const user = c.get('user');
  if (!user?.is_superuser) throw new ApiError(403, 'Superuser required');
  await next();
};
