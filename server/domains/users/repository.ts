// All SQL of the users domain.
import type { Db } from '../../db/index';
import type { UserRow } from '../../http/env';

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
export { COLS as USER_COLUMNS };

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
