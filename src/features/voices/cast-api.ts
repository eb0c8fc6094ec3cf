// The cast of a Teamspace (/api/space/{id}/cast): the list and its edits. Keys are the API paths.
import { mutate } from 'swr';
import { call, client } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';

const cast = (spaceId: string) => ({ params: { path: { id: spaceId } } });
const castKey = (spaceId: string) => apiKey('/api/space/{id}/cast', cast(spaceId));

export function useCast(spaceId: string | null, enabled: boolean) {
  return useApiGet('/api/space/{id}/cast', spaceId && enabled ? cast(spaceId) : null);
}

async function then<T>(spaceId: string, p: Promise<T>): Promise<T> {
  const out = await p;
  await mutate(castKey(spaceId));
  return out;
}

export const renameMember = (spaceId: string, id: string, name: string) =>
  then(spaceId, call(client.PATCH('/api/space/{id}/cast/{member}', { params: { path: { id: spaceId, member: id } }, body: { name } })));
export const removeMember = (spaceId: string, id: string) => then(spaceId, call(client.DELETE('/api/space/{id}/cast/{member}', { params: { path: { id: spaceId, member: id } } })));
export const mergeMember = (spaceId: string, into: string, other: string) =>
  then(spaceId, call(client.POST('/api/space/{id}/cast/{member}/merge', { params: { path: { id: spaceId, member: into } }, body: { member_id: other } })));
