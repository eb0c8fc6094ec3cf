// The user's API keys: GET/POST /api/users/settings/api/credentials, DELETE .../{id} (revoke).
import useSWR from 'swr';
import type { ApiCredentialList } from '../../../contract/schemas/api';
import { call, clientWith } from '../../lib/api/client';
import { fetcher } from '../../lib/http';

const noSpace = () => clientWith({ spaceId: false });

export const API_KEYS_KEY = '/api/users/settings/api/credentials';

export function useApiKeys() {
  return useSWR<ApiCredentialList>(API_KEYS_KEY, fetcher, { revalidateOnFocus: false });
}

export const apiKeysApi = {
  create: (name: string) =>
    call(noSpace().POST('/api/users/settings/api/credentials', { body: { name } })),
  revoke: (id: string) => call(noSpace().DELETE('/api/users/settings/api/credentials/{id}', { params: { path: { id } } })),
};
