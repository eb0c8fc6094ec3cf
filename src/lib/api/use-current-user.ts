// The current user (GET/PATCH /api/users/current): the one SWR hook and key every area shares.
import useSWR, { mutate } from 'swr';
import type * as v from 'valibot';
import type { UpdateUserRequest, User } from '../../../contract/schemas/user';
import { fetcher, type ApiError } from '../http';
import { call, client } from './client';

export const CURRENT_USER_KEY = '/api/users/current';

/** The signed-in user's account; pass enabled=false to skip (signed out). */
export function useCurrentUser(enabled = true) {
  return useSWR<User, ApiError>(enabled ? CURRENT_USER_KEY : null, fetcher);
}

export type UserPatch = v.InferInput<typeof UpdateUserRequest>;

/** PATCH /api/users/current; the cached user becomes the answer. */
export async function updateCurrentUser(patch: UserPatch): Promise<User> {
  const user = await call(client.PATCH('/api/users/current', { body: patch }));
  await mutate(CURRENT_USER_KEY, user, { revalidate: false });
  return user;
}
