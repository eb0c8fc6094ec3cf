// API keys: created once (the whole key is shown only then), stored as a sha256 hash with a visible prefix,
// listed and revoked by their user. A key acts as its user on every endpoint (same space rules); every request
// made with one checks the user's plan (the `api` feature), the key's requests per minute, and, for calls that
// start work, the jobs the user runs at once.
import { createHash, randomBytes } from 'node:crypto';
import type { ApiCredential, ApiCredentialList, CreatedApiCredential } from '../../../contract/schemas/api';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/index';
import { decide, featureRefused, userEntitlements } from '../billing/entitlements';
import { DomainError, notFound, tooMany, unauthorized } from '../../errors';
import { isUuid } from '../spaces/guard';
import type { Identity, UserRow } from '../../caller';
import { invalidateAccount } from '../users/cache';
import * as repo from './repository';

/** Every key starts with this: a token of this shape is an API key, never a session token. */
export const KEY_PREFIX = 'dsk_';
const KEY_SHAPE = /^dsk_[A-Za-z0-9_-]{32}$/;
/** Characters of the key shown in lists (the prefix and the first 8 of the secret). */
const VISIBLE = KEY_PREFIX.length + 8;

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

function view(r: repo.ApiKeyRow): ApiCredential {
  return {
    id: r.id, name: r.name, prefix: r.prefix, created_at: iso(r.created_at)!, last_used_at: iso(r.last_used_at), revoked_at: iso(r.revoked_at),
  };
}

/** Creates a key for the user (their plan must include the API: the route's gate). */
export async function createKey(db: Db, user: UserRow, name: string): Promise<CreatedApiCredential> {
  const key = KEY_PREFIX + randomBytes(24).toString('base64url');
  const row = await db.tx(async (t) => {
    const r = await repo.insertKey(t, { userId: user.id, name, prefix: key.slice(0, VISIBLE), hash: hashKey(key) });
    await repo.markGenerated(t, user.id);
    return r;
  });
  invalidateAccount(db, user.identity_id);
  return { ...view(row), key };
}

export async function listKeys(db: Db, user: UserRow): Promise<ApiCredentialList> {
  const data = (await repo.listKeys(db, user.id)).map(view);
  const enabled = user.is_superuser || decide(await userEntitlements(db, user.id), 'api').allowed;
  return { data, enabled };
}

export async function revokeKey(db: Db, user: UserRow, id: string): Promise<ApiCredential> {
  if (!isUuid(id)) throw notFound('API key not found');
  const r = await repo.revokeKey(db, user.id, id);
  if (!r) throw notFound('API key not found');
  return view(r);
}

/** The start of the minute window of `now`. */
function windowOf(now: number): Date {
  return new Date(Math.floor(now / 60_000) * 60_000);
}

/**
 * The identity resolver of API keys (listed in server/domains/auth/identity.ts): null for tokens that are not keys;
 * 401 for a malformed, unknown or revoked key; 403 when the user's plan no longer includes the API; 429 with
 * Retry-After beyond the key's requests per minute.
 */
export async function resolveApiKey(token: string, deps: Pick<AppDeps, 'db' | 'config'>): Promise<Identity | null> {
  if (!token.startsWith(KEY_PREFIX)) return null;
  if (!KEY_SHAPE.test(token)) throw unauthorized('Malformed API key');
  const k = await repo.findByHash(deps.db, hashKey(token));
  if (!k) throw unauthorized('Invalid API key');
  if (k.revoked_at) throw unauthorized('This API key was revoked');
  if (!k.is_superuser) {
    const d = decide(await userEntitlements(deps.db, k.user_id), 'api');
    if (!d.allowed) throw featureRefused(d.refusal!);
  }
  const now = Date.now();
  const start = windowOf(now);
  const count = await repo.countRequest(deps.db, k.id, start);
  const limit = deps.config.api.ratePerMinute;
  if (count > limit) {
    const retry = Math.max(1, Math.ceil((start.getTime() + 60_000 - now) / 1000));
    throw tooMany(`Too many requests with this API key: at most ${limit} a minute. Try again in ${retry} s`, retry);
  }
  return Object.freeze({ identityId: k.identity_id, email: k.email, provider: 'api_key', via: 'api_key' as const, apiKeyId: k.id });
}

/** A claim of a job slot older than this (its process died mid-call) no longer counts. */
const CLAIM_MAX_AGE_SEC = 120;

/**
 * For API callers, before a call that starts a job: claims one of the plan's job slots (API_CONCURRENT_JOBS, else
 * the plan's default), or refuses (429) when the user's running jobs and other claims already fill them. Atomic:
 * the count and the claim are made in one transaction holding the user's row, so concurrent calls cannot all pass.
 * Returns the release of the claim (call it once the call has answered; its job is then counted as running), or
 * null when no limit applies.
 */
export async function claimJobSlot(deps: Pick<AppDeps, 'db' | 'config'>, user: UserRow): Promise<(() => Promise<void>) | null> {
  if (user.is_superuser) return null;
  const e = await userEntitlements(deps.db, user.id);
  const configured = deps.config.api.concurrentJobs[e.effectiveTier];
  const limit = configured !== undefined ? configured : e.limits.concurrentJobs;
  if (limit === null) return null;
  const id = await deps.db.tx(async (t) => {
    await repo.lockUserForJobStart(t, user.id);
    const running = (await repo.runningJobsOf(t, user.id)) + (await repo.jobStartClaimsOf(t, user.id, CLAIM_MAX_AGE_SEC));
    if (running >= limit) {
      throw new DomainError('rate_limited', `Your plan runs at most ${limit} ${limit === 1 ? 'job' : 'jobs'} at once: ${running} running. Try again when one is done`, {
        headers: { 'Retry-After': '30' },
        extra: { code: 'concurrent_jobs', limit, running },
      });
    }
    return repo.insertJobStartClaim(t, user.id, CLAIM_MAX_AGE_SEC);
  });
  return () => repo.deleteJobStartClaim(deps.db, id);
}
