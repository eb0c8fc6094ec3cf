// Short-lived access JWTs (HS256) issued by the built-in identity service.
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

const ISSUER = 'dubbing-studio';
const AUDIENCE = 'dubbing-studio-api';

export interface AccessClaims { sub: string; email: string; provider: string }

const keyCache = new Map<string, Uint8Array>();
function key(secret: string): Uint8Array {
  let k = keyCache.get(secret);
  if (!k) {
    k = new TextEncoder().encode(secret);
    keyCache.set(secret, k);
  }
  return k;
}

export async function signAccessToken(secret: string, ttlSec: number, claims: AccessClaims): Promise<string> {
  return new SignJWT({ email: claims.email, provider: claims.provider, typ: 'access' })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.sub)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSec)
    .sign(key(secret));
}

export type VerifyResult = { ok: true; claims: AccessClaims; /** expiry, seconds since epoch */ exp: number } | { ok: false; reason: 'expired' | 'invalid' };

export async function verifyAccessToken(secret: string, token: string): Promise<VerifyResult> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
    if (payload.typ !== 'access' || typeof payload.sub !== 'string' || typeof payload.email !== 'string' || typeof payload.exp !== 'number') {
      return { ok: false, reason: 'invalid' };
    }
    return { ok: true, claims: { sub: payload.sub, email: payload.email, provider: String(payload.provider ?? 'password') }, exp: payload.exp };
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) return { ok: false, reason: 'expired' };
    return { ok: false, reason: 'invalid' };
  }
}

// Refresh tokens: opaque random strings; only their SHA-256 is stored (refresh_tokens.token_hash).
import { createHash, randomBytes } from 'node:crypto';

export const REFRESH_PREFIX = 'rt_';

export function newRefreshToken(): string {
  return REFRESH_PREFIX + randomBytes(32).toString('base64url');
}

export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
