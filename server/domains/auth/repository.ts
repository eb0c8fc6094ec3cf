// All SQL of the auth domain: identities, refresh tokens, sign-in failures.
// Array parameters are passed as JSON text and unpacked with jsonb_array_elements_text.
import type { Db } from '../../db/index';
import { first, one, q, run, sql } from '../../db/sql';

export interface IdentityRow {
  id: string;
  provider: string;
  subject: string;
  email: string;
  password_hash: string | null;
  created_at: Date | string;
}

const ID_COLS = ['id', 'provider', 'subject', 'email', 'password_hash', 'created_at'] as const;

export function findIdentity(db: Db, id: string): Promise<IdentityRow | null> {
  return first(db, q.selectFrom('identities').select(ID_COLS).where('id', '=', id));
}

export function findIdentityBySubject(db: Db, provider: string, subject: string): Promise<IdentityRow | null> {
  return first(db, q.selectFrom('identities').select(ID_COLS).where('provider', '=', provider).where('subject', '=', subject));
}

/** Inserts a new identity; null when (provider, subject) already exists. */
export function insertIdentity(
  db: Db,
  i: { provider: string; subject: string; email: string; passwordHash: string | null },
): Promise<IdentityRow | null> {
  return first(
    db,
    q
      .insertInto('identities')
      .values({ provider: i.provider, subject: i.subject, email: i.email, password_hash: i.passwordHash })
      .onConflict((c) => c.columns(['provider', 'subject']).doNothing())
      .returning(ID_COLS),
  );
}

/** Inserts or returns the identity of (provider, subject), refreshing its e-mail. Safe under concurrency. */
export function upsertIdentity(db: Db, i: { provider: string; subject: string; email: string }): Promise<IdentityRow> {
  return one(
    db,
    q
      .insertInto('identities')
      .values({ provider: i.provider, subject: i.subject, email: i.email })
      .onConflict((c) => c.columns(['provider', 'subject']).doUpdateSet({ email: (e) => e.ref('excluded.email') }))
      .returning(ID_COLS),
  );
}

export async function deleteIdentity(db: Db, id: string): Promise<void> {
  await run(db, q.deleteFrom('identities').where('id', '=', id));
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
  return one(
    db,
    q
      .insertInto('refresh_tokens')
      .values({
        identity_id: r.identityId,
        family_id: sql`COALESCE(${r.familyId}::uuid, gen_random_uuid())`,
        token_hash: r.tokenHash,
        expires_at: sql`now() + make_interval(secs => ${r.ttlSec})`,
      })
      .returning(['id', 'family_id']),
  );
}

const refreshTokens = () =>
  q
    .selectFrom('refresh_tokens')
    .select(['id', 'identity_id', 'family_id', 'expires_at', 'revoked_at', 'replaced_by', sql<boolean>`(expires_at <= now())`.as('expired')]);

/** The token row, locked for the rest of the transaction. */
export function lockRefreshToken(db: Db, tokenHash: string): Promise<RefreshRow | null> {
  return first(db, refreshTokens().where('token_hash', '=', tokenHash).forUpdate());
}

export function findRefreshToken(db: Db, tokenHash: string): Promise<RefreshRow | null> {
  return first(db, refreshTokens().where('token_hash', '=', tokenHash));
}

export async function markRefreshReplaced(db: Db, id: string, replacedBy: string): Promise<void> {
  await run(db, q.updateTable('refresh_tokens').set({ revoked_at: sql`now()`, replaced_by: replacedBy }).where('id', '=', id));
}

export async function revokeFamily(db: Db, familyId: string): Promise<void> {
  await run(db, q.updateTable('refresh_tokens').set({ revoked_at: sql`now()` }).where('family_id', '=', familyId).where('revoked_at', 'is', null));
}

export async function revokeAllOfIdentity(db: Db, identityId: string): Promise<void> {
  await run(db, q.updateTable('refresh_tokens').set({ revoked_at: sql`now()` }).where('identity_id', '=', identityId).where('revoked_at', 'is', null));
}

/** Drops rows that can never be used again (expired for a day). */
export async function purgeOldRefreshTokens(db: Db): Promise<void> {
  await run(db, q.deleteFrom('refresh_tokens').where('expires_at', '<', sql<Date>`now() - interval '1 day'`));
}

// ---- sign-in failures ------------------------------------------------------------------------------------

/** The start of a window of `windowSec` seconds ending now. */
const windowStart = (windowSec: number) => sql<Date>`now() - make_interval(secs => ${windowSec})`;
/** The keys of a JSON array parameter, one row each. */
const keysIn = (keys: string[]) => sql<boolean>`key IN (SELECT jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb))`;

/**
 * Seconds until `key` drops below `limit` failures within the window (0 = not blocked): the limit-th most
 * recent failure leaves the window at its time + window.
 */
export async function blockedForSeconds(db: Db, key: string, limit: number, windowSec: number): Promise<number> {
  if (limit <= 0) return 0;
  const row = await first(
    db,
    q
      .selectFrom('auth_failures')
      .select(sql<number>`CEIL(EXTRACT(EPOCH FROM (at + make_interval(secs => ${windowSec})) - now()))::int`.as('wait'))
      .where('key', '=', key)
      .where('at', '>', windowStart(windowSec))
      .orderBy('at', 'desc')
      .limit(1)
      .offset(limit - 1),
  );
  return row ? Math.max(1, Number(row.wait)) : 0;
}

export async function recordFailures(db: Db, keys: string[], windowSec: number): Promise<void> {
  if (keys.length === 0) return;
  await run(
    db,
    q
      .insertInto('auth_failures')
      .columns(['key'])
      .expression(q.selectNoFrom(sql<string>`jsonb_array_elements_text(${JSON.stringify(keys)}::jsonb)`.as('key'))),
  );
  // Keep the table small: rows of these keys that fell out of the window.
  await run(db, q.deleteFrom('auth_failures').where(keysIn(keys)).where('at', '<', windowStart(windowSec)));
}

export async function clearFailures(db: Db, key: string): Promise<void> {
  await run(db, q.deleteFrom('auth_failures').where('key', '=', key));
}

export async function purgeOldFailures(db: Db, windowSec: number): Promise<void> {
  await run(db, q.deleteFrom('auth_failures').where('at', '<', windowStart(windowSec)));
}
