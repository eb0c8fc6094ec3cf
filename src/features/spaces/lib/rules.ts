// The client's mirror of the server's Teamspace rules (spec sections 4-6). The server decides; these only
// enable or disable controls and pre-validate forms.
import * as v from 'valibot';
import { TEXT } from '../../../../contract/errors';
import { Email } from '../../../../contract/schemas/common';
import type { Space } from '../../../../contract/schemas/space';
import type { AvailableFeature } from '../../../../contract/features';


export function isOwner(space: Pick<Space, 'owner_id'>, userId: string | null | undefined): boolean {
  return !!userId && space.owner_id === userId;
}

/** A non-active space is disabled for non-owners. */
export function isSpaceDisabledFor(space: Pick<Space, 'owner_id' | 'is_active'>, userId: string | null | undefined): boolean {
  return !space.is_active && !isOwner(space, userId);
}

/** A non-owner member may leave a non-default space. */
export function canLeave(space: Pick<Space, 'owner_id' | 'is_default'>, userId: string | null | undefined): boolean {
  return !!userId && !isOwner(space, userId) && !space.is_default;
}

/** Spec section 5: owner, non-default, more than one owned, owned above the limit (or limit unset). */
export function canDelete(
  space: Pick<Space, 'owner_id' | 'is_default'>,
  userId: string | null | undefined,
  ownedSpaces: number,
  spacesLimit: number | null | undefined,
): boolean {
  if (!isOwner(space, userId) || space.is_default || ownedSpaces <= 1) return false;
  return spacesLimit == null ? ownedSpaces > 1 : ownedSpaces > spacesLimit;
}

export interface Capacity {
  /** Members + pending invites. */
  used: number;
  /** null: no limit applies. */
  limit: number | null;
  atLimit: boolean;
}
/** Members plus pending invites against the spaces feature's user_limit, only when enabled and active. */
export function capacityOf(used: number, feature: AvailableFeature | undefined, subscriptionActive: boolean): Capacity {
  const limit = feature?.enabled && subscriptionActive ? (feature.metadata.user_limit ?? null) : null;
  return { used, limit, atLimit: limit !== null && used >= limit };
}

/** Invite e-mail: '' -> no error; invalid -> 'Incorrect email'; taken -> 'This email is already added'. */
export function inviteEmailError(value: string, taken: Iterable<string>): string | null {
  const email = value.trim().toLowerCase();
  if (email === '') return null;
  if (!v.safeParse(Email, email).success) return TEXT.incorrectEmail;
  for (const t of taken) if (t.toLowerCase() === email) return TEXT.emailAlreadyAdded;
  return null;
}

