// Teamspace rules (spec sections 4-6). Routes parse and shape; this file decides.
import { createHash, randomBytes } from 'node:crypto';
import { LOUDNESS_TARGETS, SUBTITLE_LIMITS_DEFAULT, type SubtitleLimits, type Credits, type LoudnessTargetKey, type Space, type SpaceLimits, type UsagePage } from '../../../contract/schemas/space';
import type { SpaceColor } from '../../../contract/constants';
import { DEFAULT_TEAMSPACE_COLOR, DEFAULT_TEAMSPACE_MINUTES, defaultTeamspaceName } from '../../../contract/constants';
import { TEXT } from '../../../contract/errors';
import type { PlanTier } from '../../../contract/features';
import type { Db } from '../../db/index';
import { DomainError } from '../../errors';
import { userEntitlements } from '../billing/entitlements';
import * as ledger from '../billing/ledger';
import { invalidateAccount } from '../users/cache';
import { isUuid, ONLY_OWNER } from './guard';
import * as repo from './repository';
import { shopsOfSpaces } from '../shop/repository';

/**
 * Makes sure the user owns a default space (named after them, midnight, the trial minutes) and is its owner
 * member. Idempotent and safe under concurrency (partial unique index on the default space per owner).
 */
export async function ensureDefaultSpace(db: Db, user: { id: string; email: string }): Promise<{ id: string }> {
  return db.tx(async (t) => {
    const created = await repo.insertDefaultSpaceIfMissing(t, {
      name: defaultTeamspaceName(user.email),
      color: DEFAULT_TEAMSPACE_COLOR,
      ownerId: user.id,
    });
    const space = created ?? (await repo.findDefaultSpace(t, user.id));
    if (!space) throw new Error('Default space missing after insert');
    // The trial minutes: one ledger row, once per space.
    await ledger.post(t, { spaceId: space.id, kind: 'grant', minutes: DEFAULT_TEAMSPACE_MINUTES, ref: 'trial', userId: user.id, note: 'trial minutes' });
    await repo.addMember(t, space.id, user.id, 'owner');
    return { id: space.id };
  });
}

/**
 * Turns every pending invite for the user's e-mail into an editor membership, deletes the invites, queues
 * the Welcome-to-Teamspace modal for each space (users.pending_welcome_spaces) and returns the space ids.
 */
export async function claimInvites(db: Db, user: { id: string; email: string }): Promise<string[]> {
  return db.tx(async (t) => {
    const invites = await repo.takeInvitesFor(t, user.email);
    const joined: string[] = [];
    for (const inv of invites) {
      if (await repo.addMember(t, inv.space_id, user.id, 'editor')) joined.push(inv.space_id);
    }
    const identity = await repo.appendPendingWelcome(t, user.id, joined);
    return { joined, identity };
  }).then(({ joined, identity }) => {
    if (identity) invalidateAccount(db, identity);
    return joined;
  });
}

// ---------------------------------------------------------------------------------------------------------
// Space JSON (contract Space schema)

// The API shapes are the contract's: one copy for browser and server.
export type SpaceJson = Space;
export type CreditsJson = Credits;

/** A space's credits: minutes from the ledger (server/domains/billing/ledger.ts), videos from the space row. */
export async function creditsOf(db: Db, s: repo.SpaceRow): Promise<CreditsJson> {
  return ledger.creditsView(await ledger.balances(db, s.id), { total: Number(s.video_total), used: Number(s.video_used) });
}

async function shape(db: Db, spaces: repo.SpaceRow[]): Promise<SpaceJson[]> {
  const ids = spaces.map((s) => s.id);
  const [members, invites, balances, shops] = await Promise.all([
    repo.membersOf(db, ids), repo.invitesOf(db, ids), ledger.balancesOf(db, ids), shopsOfSpaces(db, ids),
  ]);
  return spaces.map((s) => {
    const own = members.filter((m) => m.space_id === s.id);
    // The owner is always the first member.
    own.sort((a, b) => Number(b.user_id === s.owner_id) - Number(a.user_id === s.owner_id));
    return {
      id: s.id,
      name: s.name,
      color: s.color as SpaceColor,
      owner_id: s.owner_id,
      is_active: s.is_active,
      is_default: s.is_default,
      members: own.map((m) => ({ user_id: m.user_id, email: m.email, role: m.user_id === s.owner_id ? 'owner' : 'editor' })),
      invites: invites.filter((i) => i.space_id === s.id).map((i) => ({ id: i.id, email: i.email })),
      credits: ledger.creditsView(balances.get(s.id)!, { total: Number(s.video_total), used: Number(s.video_used) }),
      loudness_target: (LOUDNESS_TARGETS as readonly string[]).includes(s.loudness_target) ? (s.loudness_target as LoudnessTargetKey) : 'source',
      subtitle_limits: subtitleLimitsOf(s),
      shop_domain: shops.get(s.id) ?? null,
    };
  });
}

export async function spaceJson(db: Db, spaceId: string): Promise<SpaceJson> {
  const s = await repo.findSpace(db, spaceId);
  if (!s) throw new DomainError('not_found', 'Teamspace not found');
  return (await shape(db, [s]))[0];
}

/** The caller's spaces: default first, then by name. */
export async function listSpaces(db: Db, userId: string): Promise<SpaceJson[]> {
  return shape(db, await repo.listSpacesOfUser(db, userId));
}

// ---------------------------------------------------------------------------------------------------------
// Plan limits (spec section 6): from the owner's subscription.

export interface OwnerPlan {
  tier: PlanTier;
  active: boolean;
  /** The spaces feature is enabled for the plan (creator_pro and above). */
  spacesEnabled: boolean;
  /** How many spaces the owner may own (null = unlimited). */
  spacesLimit: number | null;
  /** Members + pending invites per space (null = unlimited). */
  userLimit: number | null;
}

export async function ownerPlan(db: Db, ownerId: string): Promise<OwnerPlan> {
  // The entitlements of the owner's plan: an inactive subscription (expired, paused...) falls back to free.
  const e = await userEntitlements(db, ownerId);
  return {
    tier: e.effectiveTier, active: e.state === 'active', spacesEnabled: e.features.spaces.enabled,
    spacesLimit: e.limits.spaces, userLimit: e.limits.spaceMembers,
  };
}

export async function spaceLimits(db: Db, userId: string): Promise<SpaceLimits> {
  const plan = await ownerPlan(db, userId);
  const owned = await repo.countOwnedSpaces(db, userId);
  return {
    plan: plan.tier,
    subscription_active: plan.active,
    spaces_enabled: plan.spacesEnabled,
    spaces_limit: plan.spacesLimit,
    user_limit: plan.userLimit,
    owned_spaces: owned,
    can_create: plan.spacesEnabled && (plan.spacesLimit === null || owned < plan.spacesLimit),
  };
}

export const TEXTS = {
  createNotInPlan: 'Your plan does not include more Teamspaces. Upgrade your plan to create a new Teamspace',
  createLimit: 'You have reached the Teamspace limit of your plan. Upgrade to the Enterprise plan for more Teamspaces',
  inviteNotInPlan: 'Your plan does not include Teamspace members. Upgrade your plan to invite members',
  memberLimit: (n: number) => `The member limit of your plan is reached (${n} members). Upgrade your plan to invite more members`,
  defaultNotDeleted: 'The default Teamspace cannot be deleted',
  defaultNotLeft: 'The default Teamspace cannot be left',
  ownerCannotLeave: 'The owner cannot leave the Teamspace',
  notAMember: 'You are not a member of this Teamspace',
  deleteNotAllowed:
    'A Teamspace can be deleted only when you own more Teamspaces than your plan allows',
  ownerNotRemoved: 'The owner cannot be removed',
  memberNotFound: 'Member not found',
  inviteNotFound: 'Invite not found',
} as const;

// ---------------------------------------------------------------------------------------------------------
// Invitations

export interface NewInvite {
  spaceId: string;
  email: string;
  /** true: the person already had an account and became an editor at once. */
  joined: boolean;
  /** Identity of that account (its cached account row is refreshed after commit). */
  identityId?: string | null;
}

/** Drops cached account rows whose pending_welcome_spaces changed (after commit, on the root handle). */
function refreshAccounts(db: Db, identityIds: (string | null | undefined)[]): void {
  for (const id of identityIds) if (id) invalidateAccount(db, id);
}

/**
 * Invites e-mails into a space the caller owns. Runs inside a transaction that holds the space row lock,
 * so two concurrent invites at the limit cannot both pass. Whole request or nothing.
 */
async function inviteLocked(t: Db, space: repo.SpaceRow, owner: { id: string }, emailsIn: string[]): Promise<NewInvite[]> {
  const emails = emailsIn.map((e) => e.trim().toLowerCase());
  if (emails.length === 0) return [];
  const plan = await ownerPlan(t, space.owner_id);
  if (!plan.spacesEnabled) throw new DomainError('forbidden', TEXTS.inviteNotInPlan);
  const taken = await repo.takenEmails(t, space.id);
  const seen = new Set<string>();
  for (const e of emails) {
    if (taken.has(e) || seen.has(e)) throw new DomainError('conflict', TEXT.emailAlreadyAdded);
    seen.add(e);
  }
  // Capacity: members + pending invites against the spaces feature's user_limit (enforced while active).
  if (plan.active && plan.userLimit !== null) {
    const used = (await repo.countMembers(t, space.id)) + (await repo.countInvites(t, space.id));
    if (used + emails.length > plan.userLimit) throw new DomainError('forbidden', TEXTS.memberLimit(plan.userLimit));
  }
  const out: NewInvite[] = [];
  for (const email of emails) {
    const existing = await repo.findUserIdByEmail(t, email);
    if (existing) {
      // Someone with an account joins as an editor right away and sees the welcome modal once.
      await repo.addMember(t, space.id, existing.id, 'editor');
      const identityId = await repo.appendPendingWelcome(t, existing.id, [space.id]);
      out.push({ spaceId: space.id, email, joined: true, identityId });
    } else {
      await repo.insertInvite(t, space.id, email, owner.id);
      out.push({ spaceId: space.id, email, joined: false });
    }
  }
  return out;
}

export async function inviteMembers(db: Db, owner: { id: string }, spaceId: string, emails: string[]): Promise<NewInvite[]> {
  const out = await db.tx(async (t) => {
    const space = await repo.lockSpace(t, spaceId);
    if (!space) throw new DomainError('forbidden', TEXT.noAccess);
    if (space.owner_id !== owner.id) throw new DomainError('forbidden', ONLY_OWNER);
    return inviteLocked(t, space, owner, emails);
  });
  refreshAccounts(db, out.map((i) => i.identityId));
  return out;
}

export async function removeInvite(db: Db, spaceId: string, inviteId: string): Promise<void> {
  await db.tx(async (t) => {
    await repo.lockSpace(t, spaceId);
    const inv = isUuid(inviteId) ? await repo.findInvite(t, spaceId, inviteId) : null;
    if (!inv) throw new DomainError('not_found', TEXTS.inviteNotFound);
    await repo.deleteInvite(t, inv.id);
  });
}

export async function removeMember(db: Db, space: repo.SpaceRow, memberId: string): Promise<void> {
  if (memberId === space.owner_id) throw new DomainError('bad_request', TEXTS.ownerNotRemoved);
  const identity = await db.tx(async (t) => {
    await repo.lockSpace(t, space.id);
    const removed = isUuid(memberId) ? await repo.removeMember(t, space.id, memberId) : false;
    if (!removed) throw new DomainError('not_found', TEXTS.memberNotFound);
    return repo.removePendingWelcome(t, memberId, space.id);
  });
  refreshAccounts(db, [identity]);
}

// ---------------------------------------------------------------------------------------------------------
// Create / update / delete / leave

export async function createSpace(
  db: Db,
  owner: { id: string; email: string },
  data: { name: string; color: string },
  emails: string[],
): Promise<{ space: SpaceJson; invites: NewInvite[] }> {
  const { spaceId, invites } = await db.tx(async (t) => {
    // Serialise creations per owner, so two parallel creates cannot exceed the limit.
    await repo.lockUser(t, owner.id);
    const plan = await ownerPlan(t, owner.id);
    if (!plan.spacesEnabled) throw new DomainError('forbidden', TEXTS.createNotInPlan);
    const owned = await repo.countOwnedSpaces(t, owner.id);
    if (plan.spacesLimit !== null && owned >= plan.spacesLimit) throw new DomainError('forbidden', TEXTS.createLimit);
    const s = await repo.insertSpace(t, { name: data.name, color: data.color, ownerId: owner.id, isDefault: false });
    await repo.addMember(t, s.id, owner.id, 'owner');
    const locked = await repo.lockSpace(t, s.id);
    const inv = await inviteLocked(t, locked ?? s, owner, emails);
    return { spaceId: s.id, invites: inv };
  });
  refreshAccounts(db, invites.map((i) => i.identityId));
  return { space: await spaceJson(db, spaceId), invites };
}

/** The Teamspace's subtitle limits: its overrides over the defaults (common subtitle guidelines). */
export function subtitleLimitsOf(s: Pick<repo.SpaceRow, 'subtitle_limits'> | null | undefined): SubtitleLimits {
  const out: SubtitleLimits = { ...SUBTITLE_LIMITS_DEFAULT };
  const v = s?.subtitle_limits;
  const kept: Record<string, unknown> = v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  for (const k of Object.keys(out) as Array<keyof SubtitleLimits>) {
    const x = kept[k];
    if (typeof x === 'number' && Number.isFinite(x)) out[k] = x;
  }
  // the hard limit never under the aim, a cue's longest never under its shortest
  out.max_cps = Math.max(out.max_cps, out.target_cps);
  out.max_duration_sec = Math.max(out.max_duration_sec, out.min_duration_sec);
  return out;
}

export async function updateSpace(
  db: Db,
  spaceId: string,
  patch: { name?: string; color?: string; loudness_target?: LoudnessTargetKey; subtitle_limits?: Partial<SubtitleLimits> | null },
): Promise<SpaceJson> {
  await repo.updateSpace(db, spaceId, patch);
  return spaceJson(db, spaceId);
}

/** Spec section 5: owner, non-default, more than one owned, and owned above the limit (or limit unset). */
export async function deleteSpace(db: Db, owner: { id: string; email: string }, spaceId: string): Promise<{ default_space_id: string }> {
  await db.tx(async (t) => {
    await repo.lockUser(t, owner.id);
    const space = await repo.lockSpace(t, spaceId);
    if (!space) throw new DomainError('forbidden', TEXT.noAccess);
    if (space.owner_id !== owner.id) throw new DomainError('forbidden', ONLY_OWNER);
    if (space.is_default) throw new DomainError('bad_request', TEXTS.defaultNotDeleted);
    const owned = await repo.countOwnedSpaces(t, owner.id);
    const plan = await ownerPlan(t, owner.id);
    const allowed = owned > 1 && (plan.spacesLimit === null ? owned > 1 : owned > plan.spacesLimit);
    if (!allowed) throw new DomainError('conflict', TEXTS.deleteNotAllowed);
    await repo.deleteSpace(t, space.id);
  });
  return { default_space_id: (await ensureDefaultSpace(db, owner)).id };
}

/** A non-owner leaves a non-default space and goes to their own default space. */
export async function leaveSpace(db: Db, user: { id: string; email: string }, space: repo.SpaceRow): Promise<{ default_space_id: string }> {
  if (space.owner_id === user.id) throw new DomainError('bad_request', TEXTS.ownerCannotLeave);
  if (space.is_default) throw new DomainError('bad_request', TEXTS.defaultNotLeft);
  const identity = await db.tx(async (t) => {
    const removed = await repo.removeMember(t, space.id, user.id);
    if (!removed) throw new DomainError('bad_request', TEXTS.notAMember);
    return repo.removePendingWelcome(t, user.id, space.id);
  });
  refreshAccounts(db, [identity]);
  return { default_space_id: (await ensureDefaultSpace(db, user)).id };
}


// ---------------------------------------------------------------------------------------------------------
// Invite links: when no e-mail goes out, the owner hands the invitee a link (single use, expiring).

/** How long an invite link may be used. */
export const INVITE_LINK_TTL_MS = 7 * 24 * 3600_000;
const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export const LINK_TEXTS = {
  unknown: 'This invite link is not valid. Ask the owner of the Teamspace for a new one.',
  used: 'This invite link was already used. Ask the owner of the Teamspace for a new one.',
  expired: 'This invite link has expired. Ask the owner of the Teamspace for a new one.',
  noInvite: 'This invite was removed or already accepted.',
};

/** A new link for a pending invite of a space the caller owns: the token (shown once) and when it expires. */
export async function createInviteLink(db: Db, owner: { id: string }, spaceId: string, inviteId: string, now = new Date()): Promise<{ token: string; expires_at: string }> {
  return db.tx(async (t) => {
    const space = await repo.lockSpace(t, spaceId);
    if (!space) throw new DomainError('forbidden', TEXT.noAccess);
    if (space.owner_id !== owner.id) throw new DomainError('forbidden', ONLY_OWNER);
    if (!isUuid(inviteId) || !(await repo.findInvite(t, spaceId, inviteId))) throw new DomainError('not_found', LINK_TEXTS.noInvite);
    const token = randomBytes(24).toString('base64url');
    const row = await repo.insertInviteLink(t, { spaceId, inviteId, tokenHash: hashToken(token), createdBy: owner.id, expiresAt: new Date(now.getTime() + INVITE_LINK_TTL_MS) });
    return { token, expires_at: new Date(row.expires_at).toISOString() };
  });
}

/**
 * The signed-in user opens an invite link: they become an editor of its space (nothing changes for a member),
 * the e-mail invite it was made for goes, and the link is spent. Unknown 404, used or expired 410.
 */
export async function joinByLink(db: Db, user: { id: string }, token: string, now = new Date()): Promise<{ space_id: string }> {
  const out = await db.tx(async (t) => {
    const link = token && token.length <= 200 ? await repo.lockInviteLink(t, hashToken(token)) : null;
    if (!link) throw new DomainError('not_found', LINK_TEXTS.unknown);
    if (link.used_at) throw new DomainError('gone', LINK_TEXTS.used);
    if (new Date(link.expires_at).getTime() <= now.getTime()) throw new DomainError('gone', LINK_TEXTS.expired);
    await repo.addMember(t, link.space_id, user.id, 'editor');
    if (link.invite_id) await repo.deleteInvite(t, link.invite_id);
    await repo.markInviteLinkUsed(t, link.id, user.id);
    const identity = await repo.appendPendingWelcome(t, user.id, [link.space_id]);
    return { space_id: link.space_id, identity };
  });
  if (out.identity) invalidateAccount(db, out.identity);
  return { space_id: out.space_id };
}

/** Rows of the minute history per page. */
export const USAGE_PAGE_SIZE = 20;

/** One page (1-based) of the space's minute history, newest first. */
export async function usagePage(db: Db, spaceId: string, page: number): Promise<UsagePage> {
  const p = Math.max(1, Math.floor(page) || 1);
  const { total, rows } = await ledger.history(db, spaceId, { limit: USAGE_PAGE_SIZE, offset: (p - 1) * USAGE_PAGE_SIZE });
  return {
    entries: rows.map((r) => ({
      id: r.id, kind: r.kind, minutes: Number(r.minutes), project_id: r.project_id, project_name: r.project_name, note: r.note,
      created_at: new Date(r.created_at).toISOString(),
    })),
    page: p,
    pages: Math.max(1, Math.ceil(total / USAGE_PAGE_SIZE)),
    total,
  };
}
