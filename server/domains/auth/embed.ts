// Embedded-app session tokens (the parent frame's session token): HS256 with the app secret, aud = app key,
// exp/nbf checked with a small clock tolerance, iss = dest + '/admin', dest an https shop URL, sub present.
// A shop user maps to the identity ('embed', '<shopHost>|<sub>'); the account is created on first sight.
import { createHash } from 'node:crypto';
import { decodeJwt, errors as joseErrors, jwtVerify } from 'jose';
import * as v from 'valibot';
import { Email } from '../../../contract/schemas/common';
import type { AppDeps } from '../../deps';
import { unauthorized } from '../../errors';
import type { Identity } from '../../caller';
import { cachedEmbedIdentity, rememberEmbedIdentity } from '../users/cache';
import { ensureAccount } from '../users/service';
import { upsertIdentity } from './repository';
import { findUserByIdentity } from '../users/repository';
import { onShopSignIn } from '../shop/service';

export const EMBED_PROVIDER = 'embed';
export const EMBED_CLOCK_TOLERANCE_SEC = 5;

export interface EmbedClaims {
  /** https://<shop host> */
  dest: string;
  shopHost: string;
  sub: string;
  email: string | null;
}

export class EmbedTokenError extends Error {
  constructor(readonly reason: 'expired' | 'invalid', message: string) {
    super(message);
  }
}

const keyCache = new Map<string, Uint8Array>();
function keyOf(secret: string): Uint8Array {
  let k = keyCache.get(secret);
  if (!k) {
    k = new TextEncoder().encode(secret);
    keyCache.set(secret, k);
  }
  return k;
}

const SUB_RE = /^[A-Za-z0-9._:@/-]{1,200}$/;

/** Verifies a session token; throws EmbedTokenError. */
export async function verifyEmbedToken(cfg: { key: string; secret: string }, token: string): Promise<EmbedClaims> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, keyOf(cfg.secret), {
      algorithms: ['HS256'],
      audience: cfg.key,
      clockTolerance: EMBED_CLOCK_TOLERANCE_SEC,
      requiredClaims: ['exp', 'iss', 'sub', 'dest'],
    }));
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) throw new EmbedTokenError('expired', 'Token expired');
    throw new EmbedTokenError('invalid', 'Invalid token');
  }
  const { dest, iss, sub } = payload as { dest?: unknown; iss?: unknown; sub?: unknown };
  if (typeof dest !== 'string' || typeof iss !== 'string' || typeof sub !== 'string' || !SUB_RE.test(sub)) {
    throw new EmbedTokenError('invalid', 'Invalid token');
  }
  let url: URL;
  try {
    url = new URL(dest);
  } catch {
    throw new EmbedTokenError('invalid', 'Invalid token');
  }
  // dest is the shop's origin, nothing more; iss is its admin.
  if (url.protocol !== 'https:' || url.origin !== dest.replace(/\/$/, '') || url.username || url.password) {
    throw new EmbedTokenError('invalid', 'Invalid token');
  }
  if (iss !== `${url.origin}/admin`) throw new EmbedTokenError('invalid', 'Invalid token');
  const rawEmail = (payload as { email?: unknown }).email;
  const parsed = typeof rawEmail === 'string' ? v.safeParse(Email, rawEmail) : null;
  return { dest: url.origin, shopHost: url.host, sub, email: parsed?.success ? parsed.output : null };
}

/** Is this token meant for the embedded app (its audience is the app key)? Cheap, unverified. */
function looksLikeEmbedToken(key: string, token: string): boolean {
  try {
    const p = decodeJwt(token);
    return Array.isArray(p.aud) ? p.aud.includes(key) : p.aud === key;
  } catch {
    return false;
  }
}

function syntheticEmail(sub: string, shopHost: string): string {
  return `${sub.replace(/[^A-Za-z0-9._-]/g, '_').toLowerCase()}@${shopHost}`;
}

/**
 * The identity resolver for embedded session tokens (listed in server/domains/auth/identity.ts): null for tokens of
 * another kind, 401 for a bad session token, else the identity (its account exists when this returns).
 */
export async function resolveEmbedIdentity(token: string, deps: AppDeps): Promise<Identity | null> {
  const cfg = deps.config.embed;
  if (!cfg || !looksLikeEmbedToken(cfg.key, token)) return null;
  let claims: EmbedClaims;
  try {
    claims = await verifyEmbedToken(cfg, token);
  } catch (e) {
    throw unauthorized(e instanceof EmbedTokenError ? e.message : 'Invalid token');
  }
  const subject = `${claims.shopHost}|${claims.sub}`;
  const base = { provider: EMBED_PROVIDER, via: 'embed_token' as const, shop: claims.dest };
  const hit = cachedEmbedIdentity(deps.db, subject);
  if (hit) {
    // The shop's Teamspace and Admin API token (server/domains/shop): a no-op once done in this process.
    await onShopSignIn(deps, { domain: claims.shopHost, sessionToken: token, identityId: hit.identityId, userId: async () => accountId(deps, hit.identityId) });
    return { identityId: hit.identityId, email: hit.email, ...base };
  }
  const synthetic = syntheticEmail(claims.sub, claims.shopHost);
  const identity = await upsertIdentity(deps.db, { provider: EMBED_PROVIDER, subject, email: claims.email ?? synthetic });
  const hash = createHash('sha256').update(subject).digest('hex').slice(0, 16);
  const user = await ensureAccount(
    deps.db,
    { id: identity.id, email: identity.email, provider: EMBED_PROVIDER },
    claims.email ? synthetic : `embed-${hash}@${claims.shopHost}`,
    { demoGroup: deps.config.demoForNewUsers },
  );
  rememberEmbedIdentity(deps.db, subject, { identityId: identity.id, email: user.email });
  await onShopSignIn(deps, { domain: claims.shopHost, sessionToken: token, identityId: identity.id, userId: async () => user.id });
  return { identityId: identity.id, email: user.email, ...base };
}

async function accountId(deps: AppDeps, identityId: string): Promise<string> {
  const u = await findUserByIdentity(deps.db, identityId);
  if (!u) throw unauthorized('Invalid token');
  return u.id;
}
