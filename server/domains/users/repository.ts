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
