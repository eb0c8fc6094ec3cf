// All SQL of the spaces (Teamspaces) domain.
import type { Expression, Selectable } from 'kysely';
import type { Db } from '../../db/index';
import { all, first, json, one, q, run, sql } from '../../db/sql';
import type { SpaceInviteLinks, SpaceInvites, Spaces } from '../../db/schema';

export type SpaceRow = Selectable<Spaces>;
export interface MemberRow {
  space_id: string;
  user_id: string;
  email: string;
  role: 'owner' | 'editor';
}
export type InviteRow = Pick<Selectable<SpaceInvites>, 'id' | 'space_id' | 'email'>;

const SPACE_COLS = [
  's.id', 's.name', 's.color', 's.owner_id', 's.is_active', 's.is_default', 's.video_total', 's.video_used', 's.created_at',
  's.loudness_target', 's.subtitle_limits',
] as const;
const SPACE_RETURNING = SPACE_COLS.map((c) => c.slice(2) as StripS<typeof c>);
type StripS<C> = C extends `s.${infer N}` ? N : never;
const INVITE_COLS = ['id', 'space_id', 'email'] as const;
type Role = 'owner' | 'editor';
/** A uuid[] parameter for `= any(...)` (one statement text whatever the number of ids). */
const anyUuid = (ids: string[]) => sql<string>`any(${`{${ids.join(',')}}`}::uuid[])`;

const spaces = () => q.selectFrom('spaces as s').select(SPACE_COLS);

export function findSpace(db: Db, id: string): Promise<SpaceRow | null> {
  return first(db, spaces().where('s.id', '=', id));
}
/** The space and the user's membership role in it, in one query (the guard of every space-scoped request). */
export async function findSpaceWithRole(db: Db, id: string, userId: string): Promise<{ space: SpaceRow; role: Role | null } | null> {
  const row = await first(
    db,
    spaces()
      .select((eb) =>
        eb.selectFrom('space_members as m').select('m.role').whereRef('m.space_id', '=', 's.id').where('m.user_id', '=', userId).$narrowType<{ role: Role }>().as('member_role'),
      )
      .where('s.id', '=', id),
  );
  if (!row) return null;
  const { member_role: role, ...space } = row;
  return { space, role };
}
/** What the space guard decides on (spaces/guard.ts checkSpaceFacts): the space's owner and state, the user's role. */
export interface SpaceFacts {
  id: string;
  owner_id: string;
  is_active: boolean;
  role: Role | null;
}

/**
 * Select-list columns giving the SpaceFacts of space `spaceId` for user `userId` (an expression, e.g. a column
 * reference, and a value), so a read can check access in its own query: space_fact_id (null: no such space),
 * space_fact_owner, space_fact_active, space_fact_role. Read them back with spaceFactsOf.
 */
export function spaceFactColumns(spaceId: Expression<string>, userId: string) {
  const space = () => q.selectFrom('spaces as f').where('f.id', '=', spaceId);
  return [
    space().select('f.id').as('space_fact_id'),
    space().select('f.owner_id').as('space_fact_owner'),
    space().select('f.is_active').as('space_fact_active'),
    q.selectFrom('space_members as m').select('m.role').where('m.space_id', '=', spaceId).where('m.user_id', '=', userId).$narrowType<{ role: Role }>().as('space_fact_role'),
  ] as const;
}

export interface SpaceFactRow {
  space_fact_id: string | null;
  space_fact_owner: string | null;
  space_fact_active: boolean | null;
  space_fact_role: Role | null;
}

export function spaceFactsOf(row: SpaceFactRow): SpaceFacts | null {
  if (!row.space_fact_id || !row.space_fact_owner) return null;
  return { id: row.space_fact_id, owner_id: row.space_fact_owner, is_active: row.space_fact_active === true, role: row.space_fact_role };
}

/** Locks the space row until the end of the transaction (serialises invites/limits on one space). */
export function lockSpace(db: Db, id: string): Promise<SpaceRow | null> {
  return first(db, spaces().where('s.id', '=', id).forUpdate());
}
/** Locks the owner's user row: serialises space creation per owner. */
export async function lockUser(db: Db, userId: string): Promise<void> {
  await run(db, q.selectFrom('users').select('id').where('id', '=', userId).forUpdate());
}
export function findDefaultSpace(db: Db, ownerId: string): Promise<SpaceRow | null> {
  return first(db, spaces().where('s.owner_id', '=', ownerId).where('s.is_default', '=', sql.lit(true)));
}
export async function countOwnedSpaces(db: Db, ownerId: string): Promise<number> {
  const r = await one(db, q.selectFrom('spaces').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).where('owner_id', '=', ownerId));
  return Number(r.n);
}
export function insertSpace(
  db: Db,
  s: { name: string; color: string; ownerId: string; isDefault: boolean },
): Promise<SpaceRow> {
  return one(db, q.insertInto('spaces').values({ name: s.name, color: s.color, owner_id: s.ownerId, is_default: s.isDefault }).returning(SPACE_RETURNING));
}
/** Inserts the default space unless the owner already has one; returns the new row or null. */
export function insertDefaultSpaceIfMissing(
  db: Db,
  s: { name: string; color: string; ownerId: string },
): Promise<SpaceRow | null> {
  return first(
    db,
    q
      .insertInto('spaces')
      .values({ name: s.name, color: s.color, owner_id: s.ownerId, is_default: true })
      .onConflict((c) => c.column('owner_id').where(sql<boolean>`is_default`).doNothing())
      .returning(SPACE_RETURNING),
  );
}
export function updateSpace(
  db: Db,
  id: string,
  patch: { name?: string; color?: string; loudness_target?: string; subtitle_limits?: Partial<Record<string, number>> | null },
): Promise<SpaceRow> {
  // subtitle_limits: merged into the kept overrides (one statement: two owners' changes do not lose each other's); null resets.
  const limits = patch.subtitle_limits;
  return one(
    db,
    q
      .updateTable('spaces as s')
      .set((eb) => ({
        name: patch.name ?? eb.ref('s.name'),
        color: patch.color ?? eb.ref('s.color'),
        loudness_target: patch.loudness_target ?? eb.ref('s.loudness_target'),
        subtitle_limits:
          limits === null ? null : limits === undefined ? eb.ref('s.subtitle_limits') : sql`coalesce(s.subtitle_limits, '{}'::jsonb) || ${json(limits)}`,
      }))
      .where('s.id', '=', id)
      .returning(SPACE_COLS),
  );
}
export async function deleteSpace(db: Db, id: string): Promise<void> {
  await run(db, q.deleteFrom('spaces').where('id', '=', id));
}

export async function addMember(db: Db, spaceId: string, userId: string, role: Role): Promise<boolean> {
  const rows = await all(
    db,
    q.insertInto('space_members').values({ space_id: spaceId, user_id: userId, role }).onConflict((c) => c.doNothing()).returning('user_id'),
  );
  return rows.length > 0;
}
export function findMembership(db: Db, spaceId: string, userId: string): Promise<{ role: Role } | null> {
  return first(db, q.selectFrom('space_members').select('role').where('space_id', '=', spaceId).where('user_id', '=', userId).$narrowType<{ role: Role }>());
}
export async function removeMember(db: Db, spaceId: string, userId: string): Promise<boolean> {
  const rows = await all(db, q.deleteFrom('space_members').where('space_id', '=', spaceId).where('user_id', '=', userId).returning('user_id'));
  return rows.length > 0;
}
export async function countMembers(db: Db, spaceId: string): Promise<number> {
  const r = await one(db, q.selectFrom('space_members').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).where('space_id', '=', spaceId));
  return Number(r.n);
}
export async function countInvites(db: Db, spaceId: string): Promise<number> {
  const r = await one(db, q.selectFrom('space_invites').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('n')).where('space_id', '=', spaceId));
  return Number(r.n);
}

/** Spaces the user is a member of: default first, then by name (case-insensitive), then id. */
export function listSpacesOfUser(db: Db, userId: string): Promise<SpaceRow[]> {
  return all(
    db,
    spaces()
      .innerJoin('space_members as m', (j) => j.onRef('m.space_id', '=', 's.id').on('m.user_id', '=', userId))
      .orderBy(sql`(s.is_default and s.owner_id = ${userId})`, 'desc')
      .orderBy(sql`lower(s.name)`)
      .orderBy('s.name').orderBy('s.created_at').orderBy('s.id'),
  );
}
/** Members of the given spaces, owner first, then by join time and e-mail. */
export function membersOf(db: Db, spaceIds: string[]): Promise<MemberRow[]> {
  if (spaceIds.length === 0) return Promise.resolve([]);
  return all(
    db,
    q
      .selectFrom('space_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select(['m.space_id', 'm.user_id', 'u.email', 'm.role'])
      .$narrowType<{ role: Role }>()
      .where('m.space_id', '=', anyUuid(spaceIds))
      .orderBy('m.space_id')
      .orderBy(sql`(m.role = 'owner')`, 'desc')
      .orderBy('m.joined_at').orderBy('u.email'),
  );
}
export function invitesOf(db: Db, spaceIds: string[]): Promise<InviteRow[]> {
  if (spaceIds.length === 0) return Promise.resolve([]);
  return all(db, q.selectFrom('space_invites').select(INVITE_COLS).where('space_id', '=', anyUuid(spaceIds)).orderBy('space_id').orderBy('created_at').orderBy('email'));
}
/** E-mails already taken in a space: members' and pending invites'. */
export async function takenEmails(db: Db, spaceId: string): Promise<Set<string>> {
  const rows = await all(
    db,
    q
      .selectFrom('space_members as m')
      .innerJoin('users as u', 'u.id', 'm.user_id')
      .select('u.email')
      .where('m.space_id', '=', spaceId)
      .union(q.selectFrom('space_invites').select('email').where('space_id', '=', spaceId)),
  );
  return new Set(rows.map((r) => r.email.toLowerCase()));
}
export function insertInvite(db: Db, spaceId: string, email: string, invitedBy: string): Promise<InviteRow> {
  return one(db, q.insertInto('space_invites').values({ space_id: spaceId, email, invited_by: invitedBy }).returning(INVITE_COLS));
}
export function findInvite(db: Db, spaceId: string, inviteId: string): Promise<InviteRow | null> {
  return first(db, q.selectFrom('space_invites').select(INVITE_COLS).where('space_id', '=', spaceId).where('id', '=', inviteId));
}
export async function deleteInvite(db: Db, inviteId: string): Promise<void> {
  await run(db, q.deleteFrom('space_invites').where('id', '=', inviteId));
}
/** Takes (deletes and returns) every pending invite for an e-mail. */
export function takeInvitesFor(db: Db, email: string): Promise<InviteRow[]> {
  return all(db, q.deleteFrom('space_invites').where('email', '=', email.toLowerCase()).returning(INVITE_COLS));
}
/** Queues welcome modals; returns the user's identity id (for the account cache) or null. */
export async function appendPendingWelcome(db: Db, userId: string, spaceIds: string[]): Promise<string | null> {
  if (spaceIds.length === 0) return null;
  // Keeps the existing order and drops duplicates.
  const row = await first(
    db,
    q
      .updateTable('users')
      .set({
        pending_welcome_spaces: sql`(
          SELECT COALESCE(jsonb_agg(q.x ORDER BY q.o), '[]'::jsonb)
          FROM (SELECT t.x, min(t.o) AS o
                FROM jsonb_array_elements_text(users.pending_welcome_spaces || ${json(spaceIds)}) WITH ORDINALITY AS t(x, o)
                GROUP BY t.x) q)`,
      })
      .where('id', '=', userId)
      .returning('identity_id'),
  );
  return row?.identity_id ?? null;
}
/** Drops one queued welcome modal; returns the user's identity id (for the account cache) or null. */
export async function removePendingWelcome(db: Db, userId: string, spaceId: string): Promise<string | null> {
  const row = await first(
    db,
    q
      .updateTable('users')
      .set({ pending_welcome_spaces: sql`pending_welcome_spaces - ${spaceId}::text` })
      .where('id', '=', userId)
      .returning('identity_id'),
  );
  return row?.identity_id ?? null;
}
export function findUserIdByEmail(db: Db, email: string): Promise<{ id: string } | null> {
  return first(db, q.selectFrom('users').select('id').where('email', '=', email.toLowerCase()));
}

// ---------------------------------------------------------------------------------------------------------
// Invite links (single use, expiring; only the token's hash is stored)

const LINK_COLS = ['id', 'space_id', 'invite_id', 'expires_at', 'used_at'] as const;
export type InviteLinkRow = Pick<Selectable<SpaceInviteLinks>, (typeof LINK_COLS)[number]>;
export function insertInviteLink(db: Db, l: { spaceId: string; inviteId: string | null; tokenHash: string; createdBy: string; expiresAt: Date }): Promise<InviteLinkRow> {
  return one(
    db,
    q
      .insertInto('space_invite_links')
      .values({ space_id: l.spaceId, invite_id: l.inviteId, token_hash: l.tokenHash, created_by: l.createdBy, expires_at: l.expiresAt.toISOString() })
      .returning(LINK_COLS),
  );
}
/** The link of a token hash, locked for the caller's transaction. */
export function lockInviteLink(db: Db, tokenHash: string): Promise<InviteLinkRow | null> {
  return first(db, q.selectFrom('space_invite_links').select(LINK_COLS).where('token_hash', '=', tokenHash).forUpdate());
}
export async function markInviteLinkUsed(db: Db, id: string, userId: string): Promise<void> {
  await run(db, q.updateTable('space_invite_links').set({ used_at: sql`now()`, used_by: userId }).where('id', '=', id));
}
