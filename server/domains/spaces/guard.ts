// THE shared membership guard for every space-scoped endpoint (spaces, projects, voices, glossaries...).
// Needs `requireUser` to have run (c.get('user')).
import type { Context } from 'hono';
import { TEXT } from '../../../contract/errors';
import { ApiError, forbidden, unprocessable } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { findMembership, findSpace, type SpaceRow } from './repository';

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
export async function requireSpaceAccess(
  c: Context<AppEnv>,
  spaceId: string | null | undefined,
  opts: { owner?: boolean } = {},
): Promise<SpaceAccess> {
  const user = c.get('user');
  if (!user) throw new ApiError(401, 'Not authenticated');
  if (!isUuid(spaceId)) throw forbidden(TEXT.noAccess);
  const db = c.get('deps').db;
  const space = await findSpace(db, spaceId);
  if (!space) throw forbidden(TEXT.noAccess);
  const membership = await findMembership(db, space.id, user.id);
  const isOwner = space.owner_id === user.id;
  if (!membership && !user.is_superuser) throw forbidden(TEXT.noAccess);
  if (!space.is_active && !isOwner && !user.is_superuser) throw forbidden(SPACE_DISABLED);
  if (opts.owner && !isOwner) throw forbidden(ONLY_OWNER);
  return { ...space, role: isOwner ? 'owner' : (membership?.role ?? null) };
}

/** The space_id query parameter; missing or blank -> 422 'Field is required'. */
export function spaceIdFromQuery(c: Context<AppEnv>): string {
  const id = optionalSpaceIdFromQuery(c);
  if (id === null) throw unprocessable([{ loc: ['query', 'space_id'], msg: TEXT.fieldRequired, type: 'missing' }]);
  return id;
}

/** The space_id query parameter, or null when absent. */
export function optionalSpaceIdFromQuery(c: Context<AppEnv>): string | null {
  const raw = c.req.query('space_id');
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}
