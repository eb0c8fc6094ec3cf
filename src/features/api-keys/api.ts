// The user's API keys: GET/POST /api/users/settings/api/credentials, DELETE .../{id} (revoke).
import useSWR from 'swr';
import type { ApiCredential, ApiCredentialList, CreatedApiCredential } from '../../../contract/schemas/api';
import { fetcher, request } from '../../lib/http';

export const API_KEYS_KEY = '/api/users/settings/api/credentials';

export function useApiKeys() {
  return useSWR<ApiCredentialList>(API_KEYS_KEY, fetcher, { revalidateOnFocus: false });
}

export const apiKeysApi = {
  create: (name: string) =>
    request((c) => c.post('users/settings/api/credentials', { json: { name }, context: { spaceId: false } }).json<CreatedApiCredential>()),
  revoke: (id: string) => request((c) => c.delete(`users/settings/api/credentials/${id}`, { context: { spaceId: false } }).json<ApiCredential>()),
};
