// All SQL of the users domain.
import type { Db } from '../../db/index';
import type { UserRow } from '../../caller';

const COLS = `id, identity_id, email, email_type, is_superuser, is_active, picture, referral_id, customer_id,
  onboarding, email_consent, feature_groups, pending_welcome_spaces, api_credentials_generated, created_date`;

export function findUserByIdentity(db: Db, identityId: string): Promise<UserRow | null> {
  return db.maybeOne<UserRow>(`SELECT ${COLS} FROM users WHERE identity_id = $1`, [identityId]);
}
export function findUserById(db: Db, id: string): Promise<UserRow | null> {
  return db.maybeOne<UserRow>(`SELECT ${COLS} FROM users WHERE id = $1`, [id]);
}
export function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  return db.maybeOne<UserRow>(`SELECT ${COLS} FROM users WHERE email = $1`, [email.toLowerCase()]);
}

/** Serialises account creation install-wide (first-superuser rule, first-sight races). */
export async function lockAccountCreation(db: Db): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(727275)');
}

export async function anyUserExists(db: Db): Promise<boolean> {
  const r = await db.one<{ e: boolean }>('SELECT EXISTS (SELECT 1 FROM users) AS e');
  return r.e;
}

export function insertUser(
  db: Db,
  u: { identityId: string; email: string; emailType: string; isSuperuser: boolean; referralId: string | null },
): Promise<UserRow> {
  return db.one<UserRow>(
    `INSERT INTO users (identity_id, email, email_type, is_superuser, referral_id)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${COLS}`,
    [u.identityId, u.email.toLowerCase(), u.emailType, u.isSuperuser, u.referralId],
  );
}

export function updateUserProfile(
  db: Db,
  id: string,
  p: { onboarding?: string[]; emailConsent?: boolean; welcomeSeenSpaceId?: string },
): Promise<UserRow | null> {
  return db.maybeOne<UserRow>(
    `UPDATE users SET
       onboarding = COALESCE($2::jsonb, onboarding),
       email_consent = COALESCE($3::boolean, email_consent),
       pending_welcome_spaces = CASE WHEN $4::text IS NULL THEN pending_welcome_spaces
                                     ELSE pending_welcome_spaces - $4::text END
     WHERE id = $1 RETURNING ${COLS}`,
    [id, p.onboarding === undefined ? null : JSON.stringify(p.onboarding), p.emailConsent ?? null, p.welcomeSeenSpaceId ?? null],
  );
}

export function updateUserFlags(db: Db, id: string, p: { isActive?: boolean; isSuperuser?: boolean }): Promise<UserRow | null> {
  return db.maybeOne<UserRow>(
    `UPDATE users SET is_active = COALESCE($2::boolean, is_active), is_superuser = COALESCE($3::boolean, is_superuser)
     WHERE id = $1 RETURNING ${COLS}`,
    [id, p.isActive ?? null, p.isSuperuser ?? null],
  );
}

/** Puts the user in an A/B group: replaces the option of a group of that name, or adds the group. */
export function setFeatureGroup(db: Db, id: string, group: { name: string; option: { id: string } }): Promise<UserRow | null> {
  return db.maybeOne<UserRow>(
    `UPDATE users SET feature_groups = (
       SELECT COALESCE(jsonb_agg(g), '[]'::jsonb) FROM jsonb_array_elements(feature_groups) g WHERE g->>'name' <> $2
     ) || jsonb_build_array($3::jsonb)
     WHERE id = $1 RETURNING ${COLS}`,
    [id, group.name, group],
  );
}

// ------------------------------------------------------------------ e-mail changes (email_changes)

export interface EmailChangeRow {
  id: string;
  user_id: string;
  new_email: string;
  expires_at: Date | string;
  confirmed_at: Date | string | null;
}

/** The new e-mail's address is taken by another account (its user or its password sign-in). */
export async function emailTaken(db: Db, email: string, exceptUserId: string): Promise<boolean> {
  const r = await db.maybeOne(
    `SELECT 1 AS x FROM users WHERE email = $1 AND id <> $2
     UNION ALL
     SELECT 1 FROM identities i WHERE i.provider = 'password' AND i.subject = $1
       AND NOT EXISTS (SELECT 1 FROM users u WHERE u.identity_id = i.id AND u.id = $2)
     LIMIT 1`,
    [email.toLowerCase(), exceptUserId],
  );
  return r !== null;
}

/** A new pending change; the user's earlier links stop working (they read as expired). */
export async function insertEmailChange(db: Db, c: { userId: string; newEmail: string; tokenHash: string; ttlSec: number }): Promise<EmailChangeRow> {
  await db.query(
    `UPDATE email_changes SET expires_at = LEAST(expires_at, now()) WHERE user_id = $1 AND confirmed_at IS NULL`,
    [c.userId],
  );
  return db.one<EmailChangeRow>(
    `INSERT INTO email_changes (user_id, new_email, token_hash, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))
     RETURNING id, user_id, new_email, expires_at, confirmed_at`,
    [c.userId, c.newEmail.toLowerCase(), c.tokenHash, c.ttlSec],
  );
}

export async function deleteEmailChange(db: Db, id: string): Promise<void> {
  await db.query(`DELETE FROM email_changes WHERE id = $1`, [id]);
}

export function pendingEmailChange(db: Db, userId: string): Promise<EmailChangeRow | null> {
  return db.maybeOne<EmailChangeRow>(
    `SELECT id, user_id, new_email, expires_at, confirmed_at FROM email_changes
     WHERE user_id = $1 AND confirmed_at IS NULL AND expires_at > now() ORDER BY created_at DESC LIMIT 1`,
    [userId],
  );
}

/** The change of a link's token, locked, with whether it has expired (by the database's clock). */
export function lockEmailChangeByToken(db: Db, tokenHash: string): Promise<(EmailChangeRow & { expired: boolean }) | null> {
  return db.maybeOne<EmailChangeRow & { expired: boolean }>(
    `SELECT id, user_id, new_email, expires_at, confirmed_at, expires_at <= now() AS expired FROM email_changes
     WHERE token_hash = $1 FOR UPDATE`,
    [tokenHash],
  );
}

/** Applies a confirmed change: the account's e-mail and, for password sign-in, the identity's. */
export async function applyEmailChange(db: Db, change: { id: string; userId: string; newEmail: string }): Promise<UserRow> {
  await db.query(`UPDATE email_changes SET confirmed_at = now() WHERE id = $1`, [change.id]);
  const user = await db.one<UserRow>(`UPDATE users SET email = $2 WHERE id = $1 RETURNING ${COLS}`, [change.userId, change.newEmail]);
  await db.query(
    `UPDATE identities SET email = $2, subject = CASE WHEN provider = 'password' THEN $2 ELSE subject END WHERE id = $1`,
    [user.identity_id, change.newEmail],
  );
  return user;
}
