// All SQL of the spaces (Teamspaces) domain.
import type { Db } from '../../db/index';

export interface SpaceRow {
  id: string;
  name: string;
  color: string;
  owner_id: string;
  is_active: boolean;
  is_default: boolean;
  video_total: number;
  video_used: number;
  created_at: Date | string;
  loudness_target: string;
  /** Overrides of the subtitle limits (contract SubtitleLimits keys); null: the defaults. */
  subtitle_limits: Record<string, unknown> | null;
}
export interface MemberRow {
  space_id: string;
  user_id: string;
  email: string;
  role: 'owner' | 'editor';
}
export interface InviteRow {
  id: string;
  space_id: string;
  email: string;
}

const SPACE_COLS = `s.id, s.name, s.color, s.owner_id, s.is_active, s.is_default, s.video_total, s.video_used, s.created_at, s.loudness_target, s.subtitle_limits`;

export function findSpace(db: Db, id: string): Promise<SpaceRow | null> {
  return db.maybeOne<SpaceRow>(`SELECT ${SPACE_COLS} FROM spaces s WHERE s.id = $1`, [id]);
}
/** The space and the user's membership role in it, in one query (the guard of every space-scoped request). */
export async function findSpaceWithRole(db: Db, id: string, userId: string): Promise<{ space: SpaceRow; role: 'owner' | 'editor' | null } | null> {
  const row = await db.maybeOne<SpaceRow & { member_role: 'owner' | 'editor' | null }>(
    `SELECT ${SPACE_COLS}, (SELECT m.role FROM space_members m WHERE m.space_id = s.id AND m.user_id = $2) AS member_role
     FROM spaces s WHERE s.id = $1`,
    [id, userId],
  );
  if (!row) return null;
  const { member_role: role, ...space } = row;
  return { space: space as SpaceRow, role };
}
/** What the space guard decides on (spaces/guard.ts checkSpaceFacts): the space's owner and state, the user's role. */
export interface SpaceFacts {
  id: string;
  owner_id: string;
  is_active: boolean;
  role: 'owner' | 'editor' | null;
}

/**
 * Select-list columns giving the SpaceFacts of space `spaceIdSql` for user `userIdSql` (SQL expressions, e.g. a
 * column and a parameter), so a read can check access in its own query: space_fact_id (null: no such space),
 * space_fact_owner, space_fact_active, space_fact_role. Read them back with spaceFactsOf.
 */
export function spaceFactColumns(spaceIdSql: string, userIdSql: string): string {
  return `(SELECT f.id FROM spaces f WHERE f.id = ${spaceIdSql}) AS space_fact_id,
    (SELECT f.owner_id FROM spaces f WHERE f.id = ${spaceIdSql}) AS space_fact_owner,
    (SELECT f.is_active FROM spaces f WHERE f.id = ${spaceIdSql}) AS space_fact_active,
    (SELECT m.role FROM space_members m WHERE m.space_id = ${spaceIdSql} AND m.user_id = ${userIdSql}) AS space_fact_role`;
}

export interface SpaceFactRow {
  space_fact_id: string | null;
  space_fact_owner: string | null;
  space_fact_active: boolean | null;
  space_fact_role: 'owner' | 'editor' | null;
}

export function spaceFactsOf(row: SpaceFactRow): SpaceFacts | null {
  if (!row.space_fact_id || !row.space_fact_owner) return null;
  return { id: row.space_fact_id, owner_id: row.space_fact_owner, is_active: row.space_fact_active === true, role: row.space_fact_role };
}

/** Locks the space row until the end of the transaction (serialises invites/limits on one space). */
export function lockSpace(db: Db, id: string): Promise<SpaceRow | null> {
  return db.maybeOne<SpaceRow>(`SELECT ${SPACE_COLS} FROM spaces s WHERE s.id = $1 FOR UPDATE`, [id]);
}
/** Locks the owner's user row: serialises space creation per owner. */
export async function lockUser(db: Db, userId: string): Promise<void> {
  await db.query(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, [userId]);
}
export function findDefaultSpace(db: Db, ownerId: string): Promise<SpaceRow | null> {
  return db.maybeOne<SpaceRow>(`SELECT ${SPACE_COLS} FROM spaces s WHERE s.owner_id = $1 AND s.is_default`, [ownerId]);
}
export async function countOwnedSpaces(db: Db, ownerId: string): Promise<number> {
  const r = await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM spaces WHERE owner_id = $1`, [ownerId]);
  return Number(r.n);
}
export function insertSpace(
  db: Db,
  s: { name: string; color: string; ownerId: string; isDefault: boolean },
): Promise<SpaceRow> {
  return db.one<SpaceRow>(
    `INSERT INTO spaces AS s (name, color, owner_id, is_default) VALUES ($1, $2, $3, $4)
     RETURNING ${SPACE_COLS}`,
    [s.name, s.color, s.ownerId, s.isDefault],
  );
}
/** Inserts the default space unless the owner already has one; returns the new row or null. */
export function insertDefaultSpaceIfMissing(
  db: Db,
  s: { name: string; color: string; ownerId: string },
): Promise<SpaceRow | null> {
  return db.maybeOne<SpaceRow>(
    `INSERT INTO spaces AS s (name, color, owner_id, is_default) VALUES ($1, $2, $3, true)
     ON CONFLICT (owner_id) WHERE is_default DO NOTHING
     RETURNING ${SPACE_COLS}`,
    [s.name, s.color, s.ownerId],
  );
}
export function updateSpace(
  db: Db,
  id: string,
  patch: { name?: string; color?: string; loudness_target?: string; subtitle_limits?: Partial<Record<string, number>> | null },
): Promise<SpaceRow> {
  // subtitle_limits: merged into the kept overrides (one statement: two owners' changes do not lose each other's); null resets.
  return db.one<SpaceRow>(
    `UPDATE spaces AS s SET name = COALESCE($2, s.name), color = COALESCE($3, s.color),
       loudness_target = COALESCE($4, s.loudness_target),
       subtitle_limits = CASE WHEN $5::boolean THEN NULL WHEN $6::jsonb IS NULL THEN s.subtitle_limits
                              ELSE COALESCE(s.subtitle_limits, '{}'::jsonb) || $6::jsonb END
     WHERE s.id = $1
     RETURNING ${SPACE_COLS}`,
    [
      id, patch.name ?? null, patch.color ?? null, patch.loudness_target ?? null,
      patch.subtitle_limits === null, patch.subtitle_limits ? JSON.stringify(patch.subtitle_limits) : null,
    ],
  );
}
export async function deleteSpace(db: Db, id: string): Promise<void> {
  await db.query(`DELETE FROM spaces WHERE id = $1`, [id]);
}

export async function addMember(db: Db, spaceId: string, userId: string, role: 'owner' | 'editor'): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING user_id`,
    [spaceId, userId, role],
  );
  return rows.length > 0;
}
export function findMembership(db: Db, spaceId: string, userId: string): Promise<{ role: 'owner' | 'editor' } | null> {
  return db.maybeOne(`SELECT role FROM space_members WHERE space_id = $1 AND user_id = $2`, [spaceId, userId]);
}
export async function removeMember(db: Db, spaceId: string, userId: string): Promise<boolean> {
  const rows = await db.query(`DELETE FROM space_members WHERE space_id = $1 AND user_id = $2 RETURNING user_id`, [spaceId, userId]);
  return rows.length > 0;
}
export async function countMembers(db: Db, spaceId: string): Promise<number> {
  const r = await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM space_members WHERE space_id = $1`, [spaceId]);
  return Number(r.n);
}
export async function countInvites(db: Db, spaceId: string): Promise<number> {
  const r = await db.one<{ n: number }>(`SELECT count(*)::int AS n FROM space_invites WHERE space_id = $1`, [spaceId]);
  return Number(r.n);
}

/** Spaces the user is a member of: default first, then by name (case-insensitive), then id. */
export function listSpacesOfUser(db: Db, userId: string): Promise<SpaceRow[]> {
  return db.query<SpaceRow>(
    `SELECT ${SPACE_COLS} FROM spaces s JOIN space_members m ON m.space_id = s.id AND m.user_id = $1
     ORDER BY (s.is_default AND s.owner_id = $1) DESC, lower(s.name), s.name, s.created_at, s.id`,
    [userId],
  );
}
/** Members of the given spaces, owner first, then by join time and e-mail. */
export function membersOf(db: Db, spaceIds: string[]): Promise<MemberRow[]> {
  if (spaceIds.length === 0) return Promise.resolve([]);
  return db.query<MemberRow>(
    `SELECT m.space_id, m.user_id, u.email, m.role FROM space_members m JOIN users u ON u.id = m.user_id
     WHERE m.space_id = ANY($1::uuid[])
     ORDER BY m.space_id, (m.role = 'owner') DESC, m.joined_at, u.email`,
    [`{${spaceIds.join(',')}}`],
  );
}
export function invitesOf(db: Db, spaceIds: string[]): Promise<InviteRow[]> {
  if (spaceIds.length === 0) return Promise.resolve([]);
  return db.query<InviteRow>(
    `SELECT id, space_id, email FROM space_invites WHERE space_id = ANY($1::uuid[]) ORDER BY space_id, created_at, email`,
    [`{${spaceIds.join(',')}}`],
  );
}
/** E-mails already taken in a space: members' and pending invites'. */
export async function takenEmails(db: Db, spaceId: string): Promise<Set<string>> {
  const rows = await db.query<{ email: string }>(
    `SELECT u.email FROM space_members m JOIN users u ON u.id = m.user_id WHERE m.space_id = $1
     UNION SELECT email FROM space_invites WHERE space_id = $1`,
    [spaceId],
  );
  return new Set(rows.map((r) => r.email.toLowerCase()));
}
export function insertInvite(db: Db, spaceId: string, email: string, invitedBy: string): Promise<InviteRow> {
  return db.one<InviteRow>(
    `INSERT INTO space_invites (space_id, email, invited_by) VALUES ($1, $2, $3) RETURNING id, space_id, email`,
    [spaceId, email, invitedBy],
  );
}
export function findInvite(db: Db, spaceId: string, inviteId: string): Promise<InviteRow | null> {
  return db.maybeOne<InviteRow>(`SELECT id, space_id, email FROM space_invites WHERE space_id = $1 AND id = $2`, [spaceId, inviteId]);
}
export async function deleteInvite(db: Db, inviteId: string): Promise<void> {
  await db.query(`DELETE FROM space_invites WHERE id = $1`, [inviteId]);
}
/** Takes (deletes and returns) every pending invite for an e-mail. */
export function takeInvitesFor(db: Db, email: string): Promise<InviteRow[]> {
  return db.query<InviteRow>(`DELETE FROM space_invites WHERE email = $1 RETURNING id, space_id, email`, [email.toLowerCase()]);
}
/** Queues welcome modals; returns the user's identity id (for the account cache) or null. */
export async function appendPendingWelcome(db: Db, userId: string, spaceIds: string[]): Promise<string | null> {
  if (spaceIds.length === 0) return null;
  // Keeps the existing order and drops duplicates.
  const row = await db.maybeOne<{ identity_id: string }>(
    `UPDATE users SET pending_welcome_spaces = (
       SELECT COALESCE(jsonb_agg(q.x ORDER BY q.o), '[]'::jsonb)
       FROM (SELECT t.x, min(t.o) AS o
             FROM jsonb_array_elements_text(users.pending_welcome_spaces || $2::jsonb) WITH ORDINALITY AS t(x, o)
             GROUP BY t.x) q)
     WHERE id = $1 RETURNING identity_id`,
    [userId, JSON.stringify(spaceIds)],
  );
  return row?.identity_id ?? null;
}
/** Drops one queued welcome modal; returns the user's identity id (for the account cache) or null. */
export async function removePendingWelcome(db: Db, userId: string, spaceId: string): Promise<string | null> {
  const row = await db.maybeOne<{ identity_id: string }>(
    `UPDATE users SET pending_welcome_spaces = pending_welcome_spaces - $2::text WHERE id = $1 RETURNING identity_id`,
    [userId, spaceId],
  );
  return row?.identity_id ?? null;
}
export function findUserIdByEmail(db: Db, email: string): Promise<{ id: string } | null> {
  return db.maybeOne(`SELECT id FROM users WHERE email = $1`, [email.toLowerCase()]);
}

// ---------------------------------------------------------------------------------------------------------
// Invite links (single use, expiring; only the token's hash is stored)

export interface InviteLinkRow {
  id: string;
  space_id: string;
  invite_id: string | null;
  expires_at: string;
  used_at: string | null;
}
export function insertInviteLink(db: Db, l: { spaceId: string; inviteId: string | null; tokenHash: string; createdBy: string; expiresAt: Date }): Promise<InviteLinkRow> {
  return db.one<InviteLinkRow>(
    `INSERT INTO space_invite_links (space_id, invite_id, token_hash, created_by, expires_at) VALUES ($1, $2, $3, $4, $5)
     RETURNING id, space_id, invite_id, expires_at, used_at`,
    [l.spaceId, l.inviteId, l.tokenHash, l.createdBy, l.expiresAt.toISOString()],
  );
}
/** The link of a token hash, locked for the caller's transaction. */
export function lockInviteLink(db: Db, tokenHash: string): Promise<InviteLinkRow | null> {
  return db.maybeOne<InviteLinkRow>(
    `SELECT id, space_id, invite_id, expires_at, used_at FROM space_invite_links WHERE token_hash = $1 FOR UPDATE`,
    [tokenHash],
  );
}
export async function markInviteLinkUsed(db: Db, id: string, userId: string): Promise<void> {
  await db.query(`UPDATE space_invite_links SET used_at = now(), used_by = $2 WHERE id = $1`, [id, userId]);
}
