// All SQL of the auth domain: identities, refresh tokens, sign-in failures.
// Array parameters are passed as JSON (the Db layer serialises arrays) and unpacked with jsonb_array_elements_text.
import type { Db } from '../../db/index';

export interface IdentityRow {
  id: string;
  provider: string;
  subject: string;
  email: string;
  password_hash: string | null;
  created_at: Date | string;
}

const ID_COLS = 'id, provider, subject, email, password_hash, created_at';

export function findIdentity(db: Db, id: string): Promise<IdentityRow | null> {
  return db.maybeOne<IdentityRow>(`SELECT ${ID_COLS} FROM identities WHERE id = $1`, [id]);
}

export function findIdentityBySubject(db: Db, provider: string, subject: string): Promise<IdentityRow | null> {
  return db.maybeOne<IdentityRow>(`SELECT ${ID_COLS} FROM identities WHERE provider = $1 AND subject = $2`, [provider, subject]);
}

/** Inserts a new identity; null when (provider, subject) already exists. */
export function insertIdentity(
  db: Db,
  i: { provider: string; subject: string; email: string; passwordHash: string | null },
): Promise<IdentityRow | null> {
  return db.maybeOne<IdentityRow>(
    `INSERT INTO identities (provider, subject, email, password_hash) VALUES ($1, $2, $3, $4)
     ON CONFLICT (provider, subject) DO NOTHING RETURNING ${ID_COLS}`,
    [i.provider, i.subject, i.email, i.passwordHash],
  );
}

/** Inserts or returns the identity of (provider, subject), refreshing its e-mail. Safe under concurrency. */
export function upsertIdentity(db: Db, i: { provider: string; subject: string; email: string }): Promise<IdentityRow> {
  return db.one<IdentityRow>(
    `INSERT INTO identities (provider, subject, email) VALUES ($1, $2, $3)
     ON CONFLICT (provider, subject) DO UPDATE SET email = EXCLUDED.email
     RETURNING ${ID_COLS}`,
    [i.provider, i.subject, i.email],
  );
}

export async function deleteIdentity(db: Db, id: string): Promise<void> {
  await db.query('DELETE FROM identities WHERE id = $1', [id]);
}

// ---- refresh tokens -------------------------------------------------------------------------------------

export interface RefreshRow {
  id: string;
  identity_id: string;
  family_id: string;
  expires_at: Date | string;
  revoked_at: Date | string | null;
  replaced_by: string | null;
  expired: boolean;
}

export function insertRefreshToken(
  db: Db,
  r: { identityId: string; familyId: string | null; tokenHash: string; ttlSec: number },
): Promise<{ id: string; family_id: string }> {
  return db.one(
    `INSERT INTO refresh_tokens (identity_id, family_id, token_hash, expires_at)
     VALUES ($1, COALESCE($2::uuid, gen_random_uuid()), $3, now() + make_interval(secs => $4))
     RETURNING id, family_id`,
    [r.identityId, r.familyId, r.tokenHash, r.ttlSec],
  );
}

/** The token row, locked for the rest of the transaction. */
export function lockRefreshToken(db: Db, tokenHash: string): Promise<RefreshRow | null> {
  return db.maybeOne<RefreshRow>(
    `SELECT id, identity_id, family_id, expires_at, revoked_at, replaced_by, (expires_at <= now()) AS expired
     FROM refresh_tokens WHERE token_hash = $1 FOR UPDATE`,
    [tokenHash],
  );
}

export function findRefreshToken(db: Db, tokenHash: string): Promise<RefreshRow | null> {
  return db.maybeOne<RefreshRow>(
    `SELECT id, identity_id, family_id, expires_at, revoked_at, replaced_by, (expires_at <= now()) AS expired
     FROM refresh_tokens WHERE token_hash = $1`,
    [tokenHash],
  );
}

export async function markRefreshReplaced(db: Db, id: string, replacedBy: string): Promise<void> {
  await db.query('UPDATE refresh_tokens SET revoked_at = now(), replaced_by = $2 WHERE id = $1', [id, replacedBy]);
}

export async function revokeFamily(db: Db, familyId: string): Promise<void> {
  await db.query('UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1 AND revoked_at IS NULL', [familyId]);
}

export async function revokeAllOfIdentity(db: Db, identityId: string): Promise<void> {
  await db.query('UPDATE refresh_tokens SET revoked_at = now() WHERE identity_id = $1 AND revoked_at IS NULL', [identityId]);
}

/** Drops rows that can never be used again (expired for a day). */
export async function purgeOldRefreshTokens(db: Db): Promise<void> {
  await db.query(`DELETE FROM refresh_tokens WHERE expires_at < now() - interval '1 day'`);
}

// ---- sign-in failures ------------------------------------------------------------------------------------

/**
 * Seconds until `key` drops below `limit` failures within the window (0 = not blocked): the limit-th most
 * recent failure leaves the window at its time + window.
 */
export async function blockedForSeconds(db: Db, key: string, limit: number, windowSec: number): Promise<number> {
  if (limit <= 0) return 0;
  const row = await db.maybeOne<{ wait: number }>(
    `SELECT CEIL(EXTRACT(EPOCH FROM (at + make_interval(secs => $2)) - now()))::int AS wait
     FROM auth_failures WHERE key = $1 AND at > now() - make_interval(secs => $2)
     ORDER BY at DESC OFFSET $3 LIMIT 1`,
    [key, windowSec, limit - 1],
  );
  return row ? Math.max(1, Number(row.wait)) : 0;
}

export async function recordFailures(db: Db, keys: string[], windowSec: number): Promise<void> {
  if (keys.length === 0) return;
  await db.query('INSERT INTO auth_failures (key) SELECT jsonb_array_elements_text($1::jsonb)', [keys]);
  // Keep the table small: rows of these keys that fell out of the window.
  await db.query(
    `DELETE FROM auth_failures WHERE key IN (SELECT jsonb_array_elements_text($1::jsonb))
       AND at < now() - make_interval(secs => $2)`,
    [keys, windowSec],
  );
}

export async function clearFailures(db: Db, key: string): Promise<void> {
  await db.query('DELETE FROM auth_failures WHERE key = $1', [key]);
}

export async function purgeOldFailures(db: Db, windowSec: number): Promise<void> {
  await db.query('DELETE FROM auth_failures WHERE at < now() - make_interval(secs => $1)', [windowSec]);
}
