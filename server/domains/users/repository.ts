// All SQL of the users domain.
import type { Db } from '../../db/index';
import { first, json, one, q, run, sql } from '../../db/sql';
import type { UserRow } from '../../caller';

const COLS = [
  'id', 'identity_id', 'email', 'email_type', 'is_superuser', 'is_active', 'picture', 'referral_id', 'customer_id',
  'onboarding', 'email_consent', 'feature_groups', 'pending_welcome_spaces', 'api_credentials_generated', 'created_date',
] as const;
/** The jsonb columns of a user, as the domain reads them. */
type UserJson = Pick<UserRow, 'onboarding' | 'feature_groups' | 'pending_welcome_spaces'>;

const users = () => q.selectFrom('users').select(COLS).$narrowType<UserJson>();

export function findUserByIdentity(db: Db, identityId: string): Promise<UserRow | null> {
  return first(db, users().where('identity_id', '=', identityId));
}
export function findUserById(db: Db, id: string): Promise<UserRow | null> {
  return first(db, users().where('id', '=', id));
}
export function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  return first(db, users().where('email', '=', email.toLowerCase()));
}

/** Serialises account creation install-wide (first-superuser rule, first-sight races). */
export async function lockAccountCreation(db: Db): Promise<void> {
  await run(db, q.selectNoFrom(sql`pg_advisory_xact_lock(727275)`.as('locked')));
}

export async function anyUserExists(db: Db): Promise<boolean> {
  const r = await one(db, q.selectNoFrom((e) => e.exists(e.selectFrom('users').select(sql`1`.as('one'))).as('e')));
  return r.e === true;
}

export function insertUser(
  db: Db,
  u: { identityId: string; email: string; emailType: string; isSuperuser: boolean; referralId: string | null },
): Promise<UserRow> {
  return one(
    db,
    q
      .insertInto('users')
      .values({ identity_id: u.identityId, email: u.email.toLowerCase(), email_type: u.emailType, is_superuser: u.isSuperuser, referral_id: u.referralId })
      .returning(COLS)
      .$narrowType<UserJson>(),
  );
}

export function updateUserProfile(
  db: Db,
  id: string,
  p: { onboarding?: string[]; emailConsent?: boolean; welcomeSeenSpaceId?: string },
): Promise<UserRow | null> {
  const onboarding = p.onboarding === undefined ? null : JSON.stringify(p.onboarding);
  const welcomeSeen = p.welcomeSeenSpaceId ?? null;
  return first(
    db,
    q
      .updateTable('users')
      .set({
        onboarding: sql`COALESCE(${onboarding}::jsonb, onboarding)`,
        email_consent: sql`COALESCE(${p.emailConsent ?? null}::boolean, email_consent)`,
        pending_welcome_spaces: sql`CASE WHEN ${welcomeSeen}::text IS NULL THEN pending_welcome_spaces ELSE pending_welcome_spaces - ${welcomeSeen}::text END`,
      })
      .where('id', '=', id)
      .returning(COLS)
      .$narrowType<UserJson>(),
  );
}

export function updateUserFlags(db: Db, id: string, p: { isActive?: boolean; isSuperuser?: boolean }): Promise<UserRow | null> {
  return first(
    db,
    q
      .updateTable('users')
      .set({
        is_active: sql`COALESCE(${p.isActive ?? null}::boolean, is_active)`,
        is_superuser: sql`COALESCE(${p.isSuperuser ?? null}::boolean, is_superuser)`,
      })
      .where('id', '=', id)
      .returning(COLS)
      .$narrowType<UserJson>(),
  );
}

/** Puts the user in an A/B group: replaces the option of a group of that name, or adds the group. */
export function setFeatureGroup(db: Db, id: string, group: { name: string; option: { id: string } }): Promise<UserRow | null> {
  return first(
    db,
    q
      .updateTable('users')
      .set({
        feature_groups: sql`(
          SELECT COALESCE(jsonb_agg(g), '[]'::jsonb) FROM jsonb_array_elements(feature_groups) g WHERE g->>'name' <> ${group.name}
        ) || jsonb_build_array(${json(group)})`,
      })
      .where('id', '=', id)
      .returning(COLS)
      .$narrowType<UserJson>(),
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
const CHANGE_COLS = ['id', 'user_id', 'new_email', 'expires_at', 'confirmed_at'] as const;

/** The new e-mail's address is taken by another account (its user or its password sign-in). */
export async function emailTaken(db: Db, email: string, exceptUserId: string): Promise<boolean> {
  const address = email.toLowerCase();
  const r = await first(
    db,
    q
      .selectFrom('users')
      .select(sql<number>`1`.as('x'))
      .where('email', '=', address)
      .where('id', '<>', exceptUserId)
      .unionAll(
        q
          .selectFrom('identities as i')
          .select(sql<number>`1`.as('x'))
          .where('i.provider', '=', 'password')
          .where('i.subject', '=', address)
          .where((e) =>
            e.not(e.exists(e.selectFrom('users as u').select(sql`1`.as('one')).whereRef('u.identity_id', '=', 'i.id').where('u.id', '=', exceptUserId))),
          ),
      )
      .limit(1),
  );
  return r !== null;
}

/** A new pending change; the user's earlier links stop working (they read as expired). */
export async function insertEmailChange(db: Db, c: { userId: string; newEmail: string; tokenHash: string; ttlSec: number }): Promise<EmailChangeRow> {
  await run(
    db,
    q
      .updateTable('email_changes')
      .set({ expires_at: sql`LEAST(expires_at, now())` })
      .where('user_id', '=', c.userId)
      .where('confirmed_at', 'is', null),
  );
  return one(
    db,
    q
      .insertInto('email_changes')
      .values({ user_id: c.userId, new_email: c.newEmail.toLowerCase(), token_hash: c.tokenHash, expires_at: sql`now() + make_interval(secs => ${c.ttlSec})` })
      .returning(CHANGE_COLS),
  );
}

export async function deleteEmailChange(db: Db, id: string): Promise<void> {
  await run(db, q.deleteFrom('email_changes').where('id', '=', id));
}

export function pendingEmailChange(db: Db, userId: string): Promise<EmailChangeRow | null> {
  return first(
    db,
    q
      .selectFrom('email_changes')
      .select(CHANGE_COLS)
      .where('user_id', '=', userId)
      .where('confirmed_at', 'is', null)
      .where('expires_at', '>', sql<Date>`now()`)
      .orderBy('created_at', 'desc')
      .limit(1),
  );
}

/** The change of a link's token, locked, with whether it has expired (by the database's clock). */
export function lockEmailChangeByToken(db: Db, tokenHash: string): Promise<(EmailChangeRow & { expired: boolean }) | null> {
  return first(
    db,
    q
      .selectFrom('email_changes')
      .select([...CHANGE_COLS, sql<boolean>`expires_at <= now()`.as('expired')])
      .where('token_hash', '=', tokenHash)
      .forUpdate(),
  );
}

/** Applies a confirmed change: the account's e-mail and, for password sign-in, the identity's. */
export async function applyEmailChange(db: Db, change: { id: string; userId: string; newEmail: string }): Promise<UserRow> {
  await run(db, q.updateTable('email_changes').set({ confirmed_at: sql`now()` }).where('id', '=', change.id));
  const user = await one(db, q.updateTable('users').set({ email: change.newEmail }).where('id', '=', change.userId).returning(COLS).$narrowType<UserJson>());
  await run(
    db,
    q
      .updateTable('identities')
      .set((e) => ({
        email: change.newEmail,
        subject: e.case().when('provider', '=', 'password').then(change.newEmail).else(e.ref('subject')).end(),
      }))
      .where('id', '=', user.identity_id),
  );
  return user;
}
