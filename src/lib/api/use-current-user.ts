// The current user (GET/PATCH /api/users/current): the one SWR hook and key every area shares.
import { mutate } from 'swr';
import type * as v from 'valibot';
import type { UpdateUserRequest, User } from '../../../contract/schemas/user';
import { call, client } from './client';
import { apiKey, useApiGet } from './use-api-get';

export const CURRENT_USER_KEY = apiKey('/api/users/current');

/** The signed-in user's account; pass enabled=false to skip (signed out). */
export function useCurrentUser(enabled = true) {
  return useApiGet('/api/users/current', enabled ? {} : null);
}

export type UserPatch = v.InferInput<typeof UpdateUserRequest>;

/** PATCH /api/users/current; the cached user becomes the answer. */
export async function updateCurrentUser(patch: UserPatch): Promise<User> {
  const user = await call(client.PATCH('/api/users/current', { body: patch }));
  await mutate(CURRENT_USER_KEY, user, { revalidate: false });
  return user;
}
