// The built-in identity service: e-mail + password (argon2id), short-lived access JWTs and rotating refresh
// tokens (re-use of a consumed token revokes its family), sign-in throttling stored in auth_failures.
import type { TokenResponse } from '../../../contract/schemas/auth';
import { TEXT } from '../../../contract/errors';
import type { AppDeps } from '../../deps';
import { conflict, tooMany, unauthorized } from '../../errors';
import { dummyHash, hashPassword, verifyPassword } from './passwords';
import * as repo from './repository';
import { hashRefreshToken, newRefreshToken, signAccessToken } from './tokens';
import { namespace } from '../../cache/index';

export const PASSWORD_PROVIDER = 'password';

export const TEXTS = {
  emailExists: 'An account with this email already exists',
  refreshInvalid: 'Invalid refresh token',
  refreshExpired: 'Refresh token expired',
  refreshReused: 'Refresh token already used',
} as const;

export interface TokenIdentity {
  id: string;
  email: string;
  provider: string;
}

/** Issues an access token and a refresh token (in `familyId`'s family, or a new family). */
export async function issueTokens(deps: AppDeps, identity: TokenIdentity, familyId: string | null = null): Promise<TokenResponse> {
  const { config, db } = deps;
  const refresh = newRefreshToken();
  await repo.insertRefreshToken(db, {
    identityId: identity.id,
    familyId,
    tokenHash: hashRefreshToken(refresh),
    ttlSec: config.refreshTokenTtl,
  });
  const access = await signAccessToken(config.jwtSecret, config.accessTokenTtl, {
    sub: identity.id,
    email: identity.email,
    provider: identity.provider,
  });
  return { access_token: access, refresh_token: refresh, expires_in: config.accessTokenTtl, token_type: 'Bearer' };
}

export async function signUp(deps: AppDeps, email: string, password: string): Promise<TokenResponse> {
  const passwordHash = await hashPassword(password);
  const identity = await repo.insertIdentity(deps.db, { provider: PASSWORD_PROVIDER, subject: email, email, passwordHash });
  if (!identity) throw conflict(TEXTS.emailExists);
  return issueTokens(deps, identity);
}

const ipKey = (ip: string) => `ip:${ip}`;
/** One account from one address (an address has no '/': the key reads back unambiguously). */
const acctIpKey = (email: string, ip: string) => `acctip:${ip}/${email}`;
const acctKey = (email: string) => `acct:${email}`;

/**
 * Throws 429 with Retry-After when there are too many recent failures: from the address (any account), of the
 * account from this address (LOGIN_MAX_FAILURES_ACCOUNT), or of the account from all addresses together (the
 * slower LOGIN_MAX_FAILURES_ACCOUNT_GLOBAL). Strangers guessing a known e-mail elsewhere do not lock its owner
 * out of their own address until the global limit.
 */
async function checkThrottle(deps: AppDeps, email: string, ip: string): Promise<void> {
  const { loginLimits: l } = deps.config;
  const waits = await Promise.all([
    repo.blockedForSeconds(deps.db, ipKey(ip), l.ip, l.windowSeconds),
    repo.blockedForSeconds(deps.db, acctIpKey(email, ip), l.account, l.windowSeconds),
    repo.blockedForSeconds(deps.db, acctKey(email), l.accountGlobal, l.windowSeconds),
  ]);
  const wait = Math.max(...waits);
  if (wait > 0) throw tooMany(TEXT.tooManyAttempts, wait);
}

export async function signIn(deps: AppDeps, email: string, password: string, ip: string): Promise<TokenResponse> {
  await checkThrottle(deps, email, ip);
  const identity = await repo.findIdentityBySubject(deps.db, PASSWORD_PROVIDER, email);
  // Unknown e-mails verify against a dummy hash: same answer, similar time.
  const ok = await verifyPassword(identity?.password_hash ?? (await dummyHash()), password);
  if (!identity || !identity.password_hash || !ok) {
    await repo.recordFailures(deps.db, [ipKey(ip), acctIpKey(email, ip), acctKey(email)], deps.config.loginLimits.windowSeconds);
    throw unauthorized(TEXT.invalidCredentials);
  }
  // The failures from this address are forgotten; those counted against the account from everywhere stay (a
  // sign-in of the owner does not give strangers a new allowance).
  await repo.clearFailures(deps.db, acctIpKey(email, ip));
  await purgeHourly(deps);
  return issueTokens(deps, identity);
}

/** Rotates a refresh token: the presented one is consumed; presenting a consumed one revokes the family. */
export async function refresh(deps: AppDeps, token: string): Promise<TokenResponse> {
  const hash = hashRefreshToken(token);
  const outcome = await deps.db.tx(async (t) => {
    const row = await repo.lockRefreshToken(t, hash);
    if (!row) return { error: TEXTS.refreshInvalid } as const;
    if (row.revoked_at !== null) {
      // A consumed (or revoked) token presented again: someone else may hold the family. End it.
      await repo.revokeFamily(t, row.family_id);
      return { error: row.replaced_by ? TEXTS.refreshReused : TEXTS.refreshInvalid } as const;
    }
    if (row.expired) return { error: TEXTS.refreshExpired } as const;
    const identity = await repo.findIdentity(t, row.identity_id);
    if (!identity) return { error: TEXTS.refreshInvalid } as const;
    const next = newRefreshToken();
    const inserted = await repo.insertRefreshToken(t, {
      identityId: identity.id,
      familyId: row.family_id,
      tokenHash: hashRefreshToken(next),
      ttlSec: deps.config.refreshTokenTtl,
    });
    await repo.markRefreshReplaced(t, row.id, inserted.id);
    return { identity, next } as const;
  });
  if ('error' in outcome) throw unauthorized(outcome.error);
  const access = await signAccessToken(deps.config.jwtSecret, deps.config.accessTokenTtl, {
    sub: outcome.identity.id,
    email: outcome.identity.email,
    provider: outcome.identity.provider,
  });
  return { access_token: access, refresh_token: outcome.next, expires_in: deps.config.accessTokenTtl, token_type: 'Bearer' };
}

/** Revokes the family of the given refresh token and/or every refresh token of the signed-in identity. */
export async function signOut(deps: AppDeps, opts: { refreshToken?: string; identityId?: string | null }): Promise<void> {
  if (opts.refreshToken) {
    const row = await repo.findRefreshToken(deps.db, hashRefreshToken(opts.refreshToken));
    if (row) await repo.revokeFamily(deps.db, row.family_id);
  }
  if (opts.identityId) await repo.revokeAllOfIdentity(deps.db, opts.identityId);
}

/** Deletes refresh tokens expired for a day and sign-in failures older than the window. */
export async function purgeAuthTables(deps: AppDeps): Promise<void> {
  await repo.purgeOldRefreshTokens(deps.db);
  await repo.purgeOldFailures(deps.db, deps.config.loginLimits.windowSeconds);
}

// Clean-up runs on a successful sign-in, at most once an hour per process and database.
const PURGE_EVERY_MS = 60 * 60 * 1000;
/** When this app last purged (its state: two apps in one process purge each on its own clock). */
const LAST_PURGE = namespace('auth:last-purge', () => ({ at: 0 }));
async function purgeHourly(deps: AppDeps): Promise<void> {
  const last = deps.db.state.of(LAST_PURGE);
  if (Date.now() - last.at < PURGE_EVERY_MS) return;
  last.at = Date.now();
  await purgeAuthTables(deps);
}
