// THE shared membership guard for every space-scoped endpoint (spaces, projects, voices, glossaries...).
// Routes reach it through ./access.ts (which takes the caller from the request).
import { TEXT } from '../../../contract/errors';
import { forbidden } from '../../errors';
import type { Db } from '../../db/index';
import type { UserRow } from '../../caller';
import { findSpaceWithRole, type SpaceFacts, type SpaceRow } from './repository';

export type { SpaceRow } from './repository';

/** The space row plus the caller's role in it (null: a superuser who is not a member). */
export type SpaceAccess = SpaceRow & { role: 'owner' | 'editor' | null };

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (s: unknown): s is string => typeof s === 'string' && UUID_RE.test(s);

export const ONLY_OWNER = 'Only the owner can do this';
export const SPACE_DISABLED = `${TEXT.noAccess}: this Teamspace is disabled`;

/**
 * Resolves a space the caller may enter, or throws 403 'You have no access to this resource' (unknown id,
 * malformed id, not a member, or a disabled space for a non-owner). Superusers may enter any space.
 * With {owner: true}, a caller other than the owner gets 403 'Only the owner can do this'.
 */
export async function spaceAccess(
  db: Db,
  user: UserRow,
  spaceId: string | null | undefined,
  opts: { owner?: boolean } = {},
): Promise<SpaceAccess> {
  if (!isUuid(spaceId)) throw forbidden(TEXT.noAccess);
  const found = await findSpaceWithRole(db, spaceId, user.id);
  const { space } = found ?? {};
  const role = checkSpaceFacts(user, space ? { id: space.id, owner_id: space.owner_id, is_active: space.is_active, role: found!.role } : null, opts);
  return { ...space!, role };
}

/**
 * The rule of spaceAccess over facts already read (reads that check access in their own query, spaceFactColumns):
 * the caller's role in the space, or the same 403s.
 */
export function checkSpaceFacts(user: UserRow, facts: SpaceFacts | null, opts: { owner?: boolean } = {}): SpaceAccess['role'] {
  if (!facts) throw forbidden(TEXT.noAccess);
  const isOwner = facts.owner_id === user.id;
  if (!facts.role && !user.is_superuser) throw forbidden(TEXT.noAccess);
  if (!facts.is_active && !isOwner && !user.is_superuser) throw forbidden(SPACE_DISABLED);
  if (opts.owner && !isOwner) throw forbidden(ONLY_OWNER);
  return isOwner ? 'owner' : facts.role;
}
