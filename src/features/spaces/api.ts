// SWR hooks and calls of the Teamspaces feature. Keys are the API paths as the browser sees them.
import type { LoudnessTargetKey, SpaceLimits, SubtitleLimits } from '../../../contract/schemas/space';
import { useCallback, useEffect, useMemo } from 'react';
import useSWR, { useSWRConfig, type ScopedMutator } from 'swr';
import { SPACE_CACHE_MS } from '../../../contract/constants';
import { TEXT } from '../../../contract/errors';
import type { Settings } from '../../../contract/schemas/settings';
import type { Space } from '../../../contract/schemas/space';
import type { User } from '../../../contract/schemas/user';
import { CURRENT_USER_KEY } from '../../lib/api/use-current-user';
import { SPACE_LIST_KEY } from '../../lib/api/use-spaces';
import { fetcher, onApiError, request } from '../../lib/http';

export const SPACE_KEYS = {
  list: SPACE_LIST_KEY,
  limits: '/api/space/limits',
  one: (id: string) => `/api/space/${id}`,
  settings: (id: string) => `/api/space/${id}/settings`,
} as const;

/** What the server reports of the caller's plan for Teamspaces (GET /api/space/limits). */
export type { SpaceLimits };
/** GET /api/space/{id}/settings: the Settings document of the space (kind 'space'). */
export type SpaceSettings = Settings;

/** Space queries are cached for 5 minutes (spec section 7). */
const SPACE_SWR = { dedupingInterval: SPACE_CACHE_MS, revalidateOnFocus: false } as const;

export function useSpace(id: string | null) {
  return useSWR<Space>(id ? SPACE_KEYS.one(id) : null, fetcher, SPACE_SWR);
}
export function useSpaceSettings(id: string | null) {
  return useSWR<SpaceSettings>(id ? SPACE_KEYS.settings(id) : null, fetcher, SPACE_SWR);
}
export function useSpaceLimits() {
  return useSWR<SpaceLimits>(SPACE_KEYS.limits, fetcher, SPACE_SWR);
}

/** True for every key of the spaces API (list, one space, credits, settings, limits). */
export const isSpaceKey = (key: unknown): boolean => typeof key === 'string' && key.startsWith('/api/space/');

/** Refetches every spaces query (after a mutation). */
export function invalidateSpaces(mutate: ScopedMutator): Promise<unknown> {
  return mutate(isSpaceKey);
}

/** What PATCH /api/space/{id} changes (subtitle_limits: some limits, or null for the defaults). */
export type SpacePatch = { name?: string; color?: string; loudness_target?: LoudnessTargetKey; subtitle_limits?: Partial<SubtitleLimits> | null };

/** Calls of the spaces API. Each returns the server's answer; errors are ApiError. */
export const spacesApi = {
  create: (body: { data: { name: string; color: string }; emails: string[] }) =>
    request((c) => c.post('space/create', { json: body }).json<Space>()),
  update: (id: string, patch: SpacePatch) =>
    request((c) => c.patch(`space/${id}`, { json: patch }).json<Space>()),
  remove: (id: string) => request((c) => c.delete(`space/${id}`).json<{ default_space_id: string }>()),
  leave: (id: string) => request((c) => c.get(`space/${id}/leave`).json<{ default_space_id: string }>()),
  invite: (id: string, emails: string[]) => request((c) => c.post(`space/${id}/invite`, { json: { emails } }).json<Space>()),
  /** A single-use, expiring link for a pending invite (owner only). */
  inviteLink: (id: string, inviteId: string) =>
    request((c) => c.post(`space/${id}/invite_link`, { json: { invite_id: inviteId } }).json<{ token: string; expires_at: string }>()),
  /** Joins the space of an invite link. */
  join: (token: string) => request((c) => c.post('space/join', { json: { token }, context: { spaceId: false } }).json<{ space_id: string }>()),
  removeInvite: (id: string, inviteId: string) =>
    request((c) => c.delete(`space/${id}/invite/remove`, { searchParams: { invite_id: inviteId } }).json<Space>()),
  removeMember: (id: string, memberId: string) =>
    request((c) => c.delete(`space/${id}/members/remove`, { searchParams: { member_id: memberId } }).json<Space>()),
  welcomeSeen: (spaceId: string) =>
    request((c) => c.patch('users/current', { json: { welcome_seen_space_id: spaceId }, context: { spaceId: false } }).json<User>()),
};

/** The mutations, each followed by the refetch of what it changed. */
export function useSpaceActions() {
  const { mutate } = useSWRConfig();
  const after = useCallback(
    async <T,>(p: Promise<T>, also: string[] = []): Promise<T> => {
      const out = await p;
      await Promise.all([invalidateSpaces(mutate), ...also.map((k) => mutate(k))]);
      return out;
    },
    [mutate],
  );
  return useMemo(
    () => ({
      create: (body: Parameters<typeof spacesApi.create>[0]) => after(spacesApi.create(body)),
      update: (id: string, patch: SpacePatch) => after(spacesApi.update(id, patch)),
      remove: (id: string) => after(spacesApi.remove(id)),
      leave: (id: string) => after(spacesApi.leave(id)),
      invite: (id: string, emails: string[]) => after(spacesApi.invite(id, emails)),
      inviteLink: (id: string, inviteId: string) => spacesApi.inviteLink(id, inviteId),
      join: (token: string) => after(spacesApi.join(token)),
      removeInvite: (id: string, inviteId: string) => after(spacesApi.removeInvite(id, inviteId)),
      removeMember: (id: string, memberId: string) => after(spacesApi.removeMember(id, memberId)),
      welcomeSeen: (spaceId: string) => after(spacesApi.welcomeSeen(spaceId), [CURRENT_USER_KEY]),
    }),
    [after],
  );
}

/** Spec section 8: a response text starting 'You have no access to this resource' refetches the spaces list. */
export function isNoAccessText(text: unknown): boolean {
  return typeof text === 'string' && text.startsWith(TEXT.noAccess);
}
export function useNoAccessRefetch(): void {
  const { mutate } = useSWRConfig();
  useEffect(
    () =>
      onApiError(({ error }) => {
        if (isNoAccessText(error.message) || isNoAccessText(error.detail)) void mutate(SPACE_KEYS.list);
      }),
    [mutate],
  );
}
