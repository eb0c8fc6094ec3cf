// The user's API keys: GET/POST /api/users/settings/api/credentials, DELETE .../{id} (revoke).
import { call, clientWith } from '../../lib/api/client';
import { useApiGet } from '../../lib/api/use-api-get';

const noSpace = () => clientWith({ spaceId: false });

export function useApiKeys() {
  return useApiGet('/api/users/settings/api/credentials', {}, { revalidateOnFocus: false });
}

export const apiKeysApi = {
  create: (name: string) =>
    call(noSpace().POST('/api/users/settings/api/credentials', { body: { name } })),
  revoke: (id: string) => call(noSpace().DELETE('/api/users/settings/api/credentials/{id}', { params: { path: { id } } })),
};
