// All SQL of API keys: the keys (hashed), their per-minute request windows, Idempotency-Key records.
import type { Db } from '../../db/index';
import { all, first, json, one, q, run, sql } from '../../db/sql';

export interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
}

const COLS = ['id', 'user_id', 'name', 'prefix', 'created_at', 'last_used_at', 'revoked_at'] as const;

export function insertKey(db: Db, k: { userId: string; name: string; prefix: string; hash: string }): Promise<ApiKeyRow> {
  return one(db, q.insertInto('api_keys').values({ user_id: k.userId, name: k.name, prefix: k.prefix, key_hash: k.hash }).returning(COLS));
}

export function listKeys(db: Db, userId: string): Promise<ApiKeyRow[]> {
  return all(db, q.selectFrom('api_keys').select(COLS).where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id'));
}

export function revokeKey(db: Db, userId: string, id: string): Promise<ApiKeyRow | null> {
  return first(
    db,
    q
      .updateTable('api_keys')
      .set({ revoked_at: sql<Date>`COALESCE(revoked_at, now())` })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .returning(COLS),
  );
}

export async function markGenerated(db: Db, userId: string): Promise<void> {
  await run(db, q.updateTable('users').set({ api_credentials_generated: true }).where('id', '=', userId));
}

export interface KeyOwnerRow {
  id: string;
  user_id: string;
  revoked_at: Date | string | null;
  identity_id: string;
  email: string;
  is_superuser: boolean;
}

export function findByHash(db: Db, hash: string): Promise<KeyOwnerRow | null> {
  return first(
    db,
    q
      .selectFrom('api_keys as k')
      .innerJoin('users as u', 'u.id', 'k.user_id')
      .select(['k.id', 'k.user_id', 'k.revoked_at', 'u.identity_id', 'u.email', 'u.is_superuser'])
      .where('k.key_hash', '=', hash),
  );
}

/**
 * Counts one request of a key in the minute that starts at `windowStart`; returns the count so far. Marks the
 * key as used. Rows of earlier minutes are removed when a new minute starts.
 */
export async function countRequest(db: Db, keyId: string, windowStart: Date): Promise<number> {
  const r = await one(
    db,
    q
      .insertInto('api_key_windows')
      .values({ key_id: keyId, window_start: windowStart, count: 1 })
      .onConflict((c) => c.columns(['key_id', 'window_start']).doUpdateSet({ count: sql<number>`api_key_windows.count + 1` }))
      .returning('count'),
  );
  const count = Number(r.count);
  if (count === 1) {
    await run(db, q.deleteFrom('api_key_windows').where('key_id', '=', keyId).where('window_start', '<', windowStart));
  }
  await run(db, q.updateTable('api_keys').set({ last_used_at: sql<Date>`now()` }).where('id', '=', keyId));
  return count;
}

/** Projects of a user with a pipeline job queued or running (the jobs an API caller runs at once). */
export async function runningJobsOf(db: Db, userId: string): Promise<number> {
  const r = await one(
    db,
    q
      .selectFrom('pipeline_jobs as j')
      .innerJoin('projects as p', 'p.id', 'j.project_id')
      .select(sql<number>`count(DISTINCT j.project_id)::int`.as('n'))
      .where('p.user_id', '=', userId)
      .where('j.state', 'in', ['queued', 'running'])
      .where(sql<boolean>`NOT j.cancel_requested`),
  );
  return Number(r.n);
}

/** Locks the user's row for the rest of the transaction (claims of job slots are made one at a time per user). */
export async function lockUserForJobStart(db: Db, userId: string): Promise<void> {
  await run(db, q.selectFrom('users').select(sql`1`.as('one')).where('id', '=', userId).forNoKeyUpdate());
}

const olderThanSecs = (maxAgeSec: number) => sql<Date>`now() - make_interval(secs => ${maxAgeSec})`;

/** Claims of job slots the user holds (calls that start a job, still being answered), newer than `maxAgeSec`. */
export async function jobStartClaimsOf(db: Db, userId: string, maxAgeSec: number): Promise<number> {
  const r = await one(
    db,
    q
      .selectFrom('job_start_claims')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('user_id', '=', userId)
      .where('at', '>', olderThanSecs(maxAgeSec)),
  );
  return Number(r.n);
}

export async function insertJobStartClaim(db: Db, userId: string, maxAgeSec: number): Promise<string> {
  await run(db, q.deleteFrom('job_start_claims').where('user_id', '=', userId).where('at', '<=', olderThanSecs(maxAgeSec)));
  const r = await one(db, q.insertInto('job_start_claims').values({ user_id: userId }).returning('id'));
  return r.id;
}

export async function deleteJobStartClaim(db: Db, id: string): Promise<void> {
  await run(db, q.deleteFrom('job_start_claims').where('id', '=', id));
}

// ------------------------------------------------------------------ Idempotency-Key

export interface IdempotencyRow {
  request_hash: string;
  state: 'pending' | 'done';
  status: number | null;
  response: unknown;
}

/** Claims the key for this request; returns null when claimed now, the existing record otherwise. */
export async function claimIdempotencyKey(db: Db, userId: string, key: string, hash: string): Promise<IdempotencyRow | null> {
  const rows = await all(
    db,
    q
      .insertInto('idempotency_keys')
      .values({ user_id: userId, key, request_hash: hash, state: 'pending' })
      .onConflict((c) => c.columns(['user_id', 'key']).doNothing())
      .returning('key'),
  );
  if (rows.length > 0) return null;
  return first(
    db,
    q
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'state', 'status', 'response'])
      .where('user_id', '=', userId)
      .where('key', '=', key)
      .$narrowType<{ state: 'pending' | 'done' }>(),
  );
}

export async function finishIdempotencyKey(db: Db, userId: string, key: string, status: number, response: unknown): Promise<void> {
  await run(
    db,
    q
      .updateTable('idempotency_keys')
      .set({ state: 'done', status, response: response == null ? null : json(response) })
      .where('user_id', '=', userId)
      .where('key', '=', key),
  );
}

export async function releaseIdempotencyKey(db: Db, userId: string, key: string): Promise<void> {
  await run(db, q.deleteFrom('idempotency_keys').where('user_id', '=', userId).where('key', '=', key).where('state', '=', 'pending'));
}

/** Records older than the retention (24 hours) are forgotten. */
export async function purgeIdempotencyKeys(db: Db, olderThanHours: number): Promise<void> {
  await run(db, q.deleteFrom('idempotency_keys').where('created_at', '<', sql<Date>`now() - make_interval(hours => ${olderThanHours})`));
}
