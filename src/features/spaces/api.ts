// SWR hooks and calls of the Teamspaces feature. Keys are the API paths as the browser sees them.
import type { LoudnessTargetKey, SubtitleLimits } from '../../../contract/schemas/space';
import { useCallback, useEffect, useMemo } from 'react';
import { useSWRConfig, type ScopedMutator } from 'swr';
import { SPACE_CACHE_MS } from '../../../contract/constants';
import { TEXT } from '../../../contract/errors';
import { CURRENT_USER_KEY } from '../../lib/api/use-current-user';
import { SPACE_LIST_KEY } from '../../lib/api/use-spaces';
import { call, client, clientWith } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';
import { onApiError } from '../../lib/http';

const space = (id: string) => ({ params: { path: { id } } });

export const SPACE_KEYS = {
  list: SPACE_LIST_KEY,
  limits: apiKey('/api/space/limits'),
  one: (id: string) => apiKey('/api/space/{id}', space(id)),
  settings: (id: string) => apiKey('/api/space/{id}/settings', space(id)),
} as const;

/** Space queries are cached for 5 minutes (spec section 7). */
const SPACE_SWR = { dedupingInterval: SPACE_CACHE_MS, revalidateOnFocus: false } as const;

export function useSpace(id: string | null) {
  return useApiGet('/api/space/{id}', id ? space(id) : null, SPACE_SWR);
}
export function useSpaceSettings(id: string | null) {
  return useApiGet('/api/space/{id}/settings', id ? space(id) : null, SPACE_SWR);
}
export function useSpaceLimits() {
  return useApiGet('/api/space/limits', {}, SPACE_SWR);
}

/** True for every key of the spaces API (list, one space, credits, settings, limits). */
export const isSpaceKey = (key: unknown): boolean => typeof key === 'string' && key.startsWith('/api/space/');

/** Refetches every spaces query (after a mutation). */
export function invalidateSpaces(mutate: ScopedMutator): Promise<unknown> {
  return mutate(isSpaceKey);
}

/** What PATCH /api/space/{id} changes (subtitle_limits: some limits, or null for the defaults). */
export type SpacePatch = { name?: string; color?: string; loudness_target?: LoudnessTargetKey; subtitle_limits?: Partial<SubtitleLimits> | null };

/** Calls of the spaces API (typed from the OpenAPI document). Each returns the server's answer; errors are ApiError. */
export const spacesApi = {
  create: (body: { data: { name: string; color: string }; emails: string[] }) => call(client.POST('/api/space/create', { body })),
  update: (id: string, patch: SpacePatch) => call(client.PATCH('/api/space/{id}', { params: { path: { id } }, body: patch })),
  remove: (id: string) => call(client.DELETE('/api/space/{id}', { params: { path: { id } } })),
  leave: (id: string) => call(client.GET('/api/space/{id}/leave', { params: { path: { id } } })),
  invite: (id: string, emails: string[]) => call(client.POST('/api/space/{id}/invite', { params: { path: { id } }, body: { emails } })),
  /** A single-use, expiring link for a pending invite (owner only). */
  inviteLink: (id: string, inviteId: string) =>
    call(client.POST('/api/space/{id}/invite_link', { params: { path: { id } }, body: { invite_id: inviteId } })),
  /** Joins the space of an invite link. */
  join: (token: string) => call(clientWith({ spaceId: false }).POST('/api/space/join', { body: { token } })),
  removeInvite: (id: string, inviteId: string) =>
    call(client.DELETE('/api/space/{id}/invite/remove', { params: { path: { id }, query: { invite_id: inviteId } } })),
  removeMember: (id: string, memberId: string) =>
    call(client.DELETE('/api/space/{id}/members/remove', { params: { path: { id }, query: { member_id: memberId } } })),
  welcomeSeen: (spaceId: string) =>
    call(clientWith({ spaceId: false }).PATCH('/api/users/current', { body: { welcome_seen_space_id: spaceId } })),
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
/** @internal Used by tests only. */
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
