// All SQL of API keys: the keys (hashed), their per-minute request windows, Idempotency-Key records.
import type { Db } from '../../db/index';

export interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  created_at: Date | string;
  last_used_at: Date | string | null;
  revoked_at: Date | string | null;
}

const COLS = 'id, user_id, name, prefix, created_at, last_used_at, revoked_at';

export function insertKey(db: Db, k: { userId: string; name: string; prefix: string; hash: string }): Promise<ApiKeyRow> {
  return db.one<ApiKeyRow>(
    `INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES ($1, $2, $3, $4) RETURNING ${COLS}`,
    [k.userId, k.name, k.prefix, k.hash],
  );
}

export function listKeys(db: Db, userId: string): Promise<ApiKeyRow[]> {
  return db.query<ApiKeyRow>(`SELECT ${COLS} FROM api_keys WHERE user_id = $1 ORDER BY created_at DESC, id`, [userId]);
}

export function revokeKey(db: Db, userId: string, id: string): Promise<ApiKeyRow | null> {
  return db.maybeOne<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = $1 AND user_id = $2 RETURNING ${COLS}`,
    [id, userId],
  );
}

export async function markGenerated(db: Db, userId: string): Promise<void> {
  await db.query(`UPDATE users SET api_credentials_generated = true WHERE id = $1`, [userId]);
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
  return db.maybeOne<KeyOwnerRow>(
    `SELECT k.id, k.user_id, k.revoked_at, u.identity_id, u.email, u.is_superuser
     FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.key_hash = $1`,
    [hash],
  );
}

/**
 * Counts one request of a key in the minute that starts at `windowStart`; returns the count so far. Marks the
 * key as used. Rows of earlier minutes are removed when a new minute starts.
 */
export async function countRequest(db: Db, keyId: string, windowStart: Date): Promise<number> {
  const r = await db.one<{ count: number }>(
    `INSERT INTO api_key_windows (key_id, window_start, count) VALUES ($1, $2, 1)
     ON CONFLICT (key_id, window_start) DO UPDATE SET count = api_key_windows.count + 1 RETURNING count`,
    [keyId, windowStart],
  );
  const count = Number(r.count);
  if (count === 1) {
    await db.query(`DELETE FROM api_key_windows WHERE key_id = $1 AND window_start < $2`, [keyId, windowStart]);
  }
  await db.query(`UPDATE api_keys SET last_used_at = now() WHERE id = $1`, [keyId]);
  return count;
}

/** Projects of a user with a pipeline job queued or running (the jobs an API caller runs at once). */
export async function runningJobsOf(db: Db, userId: string): Promise<number> {
  const r = await db.one<{ n: number }>(
    `SELECT count(DISTINCT j.project_id)::int AS n FROM pipeline_jobs j JOIN projects p ON p.id = j.project_id
     WHERE p.user_id = $1 AND j.state IN ('queued', 'running') AND NOT j.cancel_requested`,
    [userId],
  );
  return Number(r.n);
}

/** Locks the user's row for the rest of the transaction (claims of job slots are made one at a time per user). */
export async function lockUserForJobStart(db: Db, userId: string): Promise<void> {
  await db.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
}

/** Claims of job slots the user holds (calls that start a job, still being answered), newer than `maxAgeSec`. */
export async function jobStartClaimsOf(db: Db, userId: string, maxAgeSec: number): Promise<number> {
  const r = await db.one<{ n: number }>(
    `SELECT count(*)::int AS n FROM job_start_claims WHERE user_id = $1 AND at > now() - make_interval(secs => $2)`,
    [userId, maxAgeSec],
  );
  return Number(r.n);
}

export async function insertJobStartClaim(db: Db, userId: string, maxAgeSec: number): Promise<string> {
  await db.query(`DELETE FROM job_start_claims WHERE user_id = $1 AND at <= now() - make_interval(secs => $2)`, [userId, maxAgeSec]);
  const r = await db.one<{ id: string }>('INSERT INTO job_start_claims (user_id) VALUES ($1) RETURNING id', [userId]);
  return r.id;
}

export async function deleteJobStartClaim(db: Db, id: string): Promise<void> {
  await db.query('DELETE FROM job_start_claims WHERE id = $1', [id]);
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
  const rows = await db.query(
    `INSERT INTO idempotency_keys (user_id, key, request_hash, state) VALUES ($1, $2, $3, 'pending')
     ON CONFLICT (user_id, key) DO NOTHING RETURNING key`,
    [userId, key, hash],
  );
  if (rows.length > 0) return null;
  return db.maybeOne<IdempotencyRow>(`SELECT request_hash, state, status, response FROM idempotency_keys WHERE user_id = $1 AND key = $2`, [userId, key]);
}

export async function finishIdempotencyKey(db: Db, userId: string, key: string, status: number, response: unknown): Promise<void> {
  await db.query(`UPDATE idempotency_keys SET state = 'done', status = $3, response = $4 WHERE user_id = $1 AND key = $2`, [userId, key, status, response as object]);
}

export async function releaseIdempotencyKey(db: Db, userId: string, key: string): Promise<void> {
  await db.query(`DELETE FROM idempotency_keys WHERE user_id = $1 AND key = $2 AND state = 'pending'`, [userId, key]);
}

/** Records older than the retention (24 hours) are forgotten. */
export async function purgeIdempotencyKeys(db: Db, olderThanHours: number): Promise<void> {
  await db.query(`DELETE FROM idempotency_keys WHERE created_at < now() - make_interval(hours => $1)`, [olderThanHours]);
}
