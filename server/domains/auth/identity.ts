// Who a bearer token is, and their account. Token kinds: our access JWT first, then the other resolvers
// (embedded session tokens, API keys). The app hands these to every request (server/app/app.ts: `callers`), and
// the route guards of server/http/auth.ts use them.
import { namespace } from '../../cache/index';
import type { Identity, UserRow } from '../../caller';
import type { AppDeps } from '../../deps';
import { unauthorized } from '../../errors';
import { resolveApiKey } from '../apikeys/service';
import { cachedUserByIdentity } from '../users/cache';
import { findUserByIdentity } from '../users/repository';
import { resolveEmbedIdentity } from './embed';
import { verifyAccessToken } from './tokens';

/**
 * The resolvers tried after our access JWT, in order; first non-null wins. A resolver returns null for tokens that
 * are not its kind and throws (401) for a token of its kind that fails verification. A fixed list, the same for
 * every app (what a resolver reads of an app comes from its deps).
 */
type IdentityResolver = (token: string, deps: AppDeps) => Promise<Identity | null>;
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
function verifiedCache(deps: AppDeps) {
  const verified = deps.db.state.of(VERIFIED);
  const secret = deps.config.jwtSecret;
  let m = verified.get(secret);
  if (!m) {
    m = new Map();
    verified.set(secret, m);
  }
  return m;
}

export async function resolveIdentity(token: string, deps: AppDeps): Promise<Identity> {
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
export function accountOf(deps: AppDeps, identityId: string): Promise<UserRow | null> {
  return cachedUserByIdentity(deps.db, identityId, (id) => findUserByIdentity(deps.db, id));
}
