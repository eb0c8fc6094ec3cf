// The cast of a Teamspace (/api/space/{id}/cast): the list and its edits. Keys are the API paths.
import useSWR, { mutate } from 'swr';
import type { CastList, CastMember } from '../../../contract/schemas/cast';
import { request, type ApiError } from '../../lib/http';

const castKey = (spaceId: string) => `/api/space/${encodeURIComponent(spaceId)}/cast`;

export function useCast(spaceId: string | null, enabled: boolean) {
  return useSWR<CastList, ApiError>(spaceId && enabled ? castKey(spaceId) : null);
}

async function then<T>(spaceId: string, p: Promise<T>): Promise<T> {
  const out = await p;
  await mutate(castKey(spaceId));
  return out;
}

export const renameMember = (spaceId: string, id: string, name: string) =>
  then(spaceId, request((c) => c.patch(`space/${spaceId}/cast/${id}`, { json: { name } }).json<CastMember>()));
export const removeMember = (spaceId: string, id: string) => then(spaceId, request((c) => c.delete(`space/${spaceId}/cast/${id}`).json()));
export const mergeMember = (spaceId: string, into: string, other: string) =>
  then(spaceId, request((c) => c.post(`space/${spaceId}/cast/${into}/merge`, { json: { member_id: other } }).json<CastMember>()));
