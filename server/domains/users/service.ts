// Product accounts: creation (first account = superuser, default Teamspace, pending invites), the User view,
// profile updates and deletion.
import { createHmac } from 'node:crypto';
import type { User } from '../../../contract/schemas/user';
import type { Db } from '../../db/index';
import { isUniqueViolation } from '../../db/index';
import { DomainError, conflict } from '../../errors';
import type { UserRow } from '../../caller';
import { deleteIdentity, findIdentity, revokeAllOfIdentity } from '../auth/repository';
import type { SubscriptionRow } from '../billing/repository';
import { getUserSubscriptionCached, subscriptionView } from '../billing/plan';
import { claimInvites, ensureDefaultSpace } from '../spaces/service';
import { invalidateAccount } from './cache';
import * as repo from './repository';

export const TEXTS = {
  userExists: 'User already exists',
  emailTaken: 'An account with this email already exists',
  emailMismatch: 'Email does not match the signed-in account',
  identityGone: 'Not authenticated',
} as const;

export interface AccountIdentity {
  id: string;
  email: string;
  provider: string;
}

/** 'password', 'oidc' or 'embed': how the account signs in (users.email_type). */
export function emailTypeOf(provider: string): string {
  return provider.startsWith('oidc:') ? 'oidc' : provider;
}

/** What a new account starts with, from the operator's settings. */
export interface NewAccountOptions {
  /** New accounts are put in the demo_project group (their first screen offers the demo). Default true. */
  demoGroup?: boolean;
}
/** The demo group and option a new trial user is put in (DEMO_FOR_NEW_USERS). */
export const DEMO_GROUP_DEFAULT = { name: 'demo_project', option: { id: 'demo' } } as const;

async function createInTx(
  t: Db,
  identity: AccountIdentity,
  email: string,
  referralId: string | null,
  o: NewAccountOptions = {},
): Promise<UserRow> {
  const first = !(await repo.anyUserExists(t));
  const user = await repo.insertUser(t, {
    identityId: identity.id,
    email,
    emailType: emailTypeOf(identity.provider),
    isSuperuser: first,
    referralId,
  });
  await ensureDefaultSpace(t, { id: user.id, email: user.email });
  await claimInvites(t, { id: user.id, email: user.email });
  if (o.demoGroup !== false) await repo.setFeatureGroup(t, user.id, { name: DEMO_GROUP_DEFAULT.name, option: { id: DEMO_GROUP_DEFAULT.option.id } });
  const fresh = await repo.findUserById(t, user.id);
  if (!fresh) throw new Error('Account vanished after creation');
  return fresh;
}

/**
 * POST /api/users: creates the product account of a signed-in identity, in one transaction with its default
 * Teamspace and joined invites. 409 when the identity already has one or the e-mail is taken.
 */
export async function createAccount(
  db: Db,
  identityId: string,
  req: { email: string; referral_id?: string | null },
  o: NewAccountOptions = {},
): Promise<UserRow> {
  try {
    const user = await db.tx(async (t) => {
      await repo.lockAccountCreation(t);
      const identity = await findIdentity(t, identityId);
      if (!identity) throw new DomainError('unauthenticated', TEXTS.identityGone);
      if (identity.email.toLowerCase() !== req.email.toLowerCase()) throw new DomainError('bad_request', TEXTS.emailMismatch);
      if (await repo.findUserByIdentity(t, identityId)) throw conflict(TEXTS.userExists);
      if (await repo.findUserByEmail(t, req.email)) throw conflict(TEXTS.emailTaken);
      return createInTx(t, identity, req.email.toLowerCase(), req.referral_id ?? null, o);
    });
    invalidateAccount(db, identityId);
    return user;
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(TEXTS.emailTaken);
    throw e;
  }
}

/**
 * The account of an identity, created on first sight (embedded sessions). Idempotent under concurrent first
 * requests. When `email` belongs to another account, `fallbackEmail` is used instead.
 */
export async function ensureAccount(db: Db, identity: AccountIdentity, fallbackEmail: string, o: NewAccountOptions = {}): Promise<UserRow> {
  const existing = await repo.findUserByIdentity(db, identity.id);
  if (existing) return existing;
  try {
    return await db.tx(async (t) => {
      await repo.lockAccountCreation(t);
      const again = await repo.findUserByIdentity(t, identity.id);
      if (again) return again;
      const taken = await repo.findUserByEmail(t, identity.email);
      return createInTx(t, identity, taken ? fallbackEmail : identity.email, null, o);
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw conflict(TEXTS.emailTaken);
    throw e;
  }
}

/** Spec churnkey_hmac: HMAC-SHA256 of the user id (JWT secret) for accounts with a billing customer. */
export function churnkeyHmac(user: Pick<UserRow, 'id' | 'customer_id'>, secret: string): string | null {
  if (!user.customer_id) return null;
  return createHmac('sha256', secret).update(user.id).digest('hex');
}

function iso(d: Date | string): string {
  return new Date(d).toISOString();
}

/** The contract's User view. */
export function userView(user: UserRow, sub: SubscriptionRow | null, secret: string): User {
  return {
    id: user.id,
    email: user.email,
    email_type: user.email_type,
    is_superuser: user.is_superuser,
    is_active: user.is_active,
    picture: user.picture,
    created_date: iso(user.created_date),
    cognitoId: user.identity_id,
    api_credentials_generated: user.api_credentials_generated,
    customer_id: user.customer_id,
    churnkey_hmac: churnkeyHmac(user, secret),
    onboarding: user.onboarding ?? [],
    email_consent: user.email_consent,
    feature_groups: user.feature_groups ?? [],
    subscription: subscriptionView(sub),
    pending_welcome_spaces: user.pending_welcome_spaces ?? [],
  };
}

/** The caller's User view; the subscription comes through the short-lived account cache. */
export async function currentUserView(db: Db, user: UserRow, secret: string): Promise<User> {
  return userView(user, await getUserSubscriptionCached(db, user.id), secret);
}

export async function updateProfile(
  db: Db,
  user: UserRow,
  p: { onboarding?: string[]; email_consent?: boolean; welcome_seen_space_id?: string },
): Promise<UserRow> {
  const onboarding = p.onboarding === undefined ? undefined : [...new Set(p.onboarding)];
  const updated = await repo.updateUserProfile(db, user.id, {
    onboarding,
    emailConsent: p.email_consent,
    welcomeSeenSpaceId: p.welcome_seen_space_id,
  });
  invalidateAccount(db, user.identity_id);
  if (!updated) throw new DomainError('not_found', 'User not found');
  return updated;
}

/** Deletes the account, its owned spaces (cascade), its sessions and its identity. */
export async function deleteAccount(db: Db, user: UserRow): Promise<void> {
  await db.tx(async (t) => {
    await revokeAllOfIdentity(t, user.identity_id);
    await deleteIdentity(t, user.identity_id);
  });
  invalidateAccount(db, user.identity_id);
}

/** POST /api/users/feature_group: the user's option in an A/B group (kept on the user; drives the demo view). */
export async function joinFeatureGroup(db: Db, user: UserRow, group: { name: string; option: { id: string } }): Promise<UserRow['feature_groups']> {
  const updated = await repo.setFeatureGroup(db, user.id, group);
  invalidateAccount(db, user.identity_id);
  if (!updated) throw new DomainError('not_found', 'User not found');
  return updated.feature_groups;
}
