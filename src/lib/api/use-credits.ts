// A space's minutes (GET /api/space/{id}/credits): the one SWR hook and key every area shares.
import { apiKey, useApiGet } from './use-api-get';

const space = (id: string) => ({ params: { path: { id } } });
export const creditsKey = (spaceId: string) => apiKey('/api/space/{id}/credits', space(spaceId));

export function useCredits(spaceId: string | null) {
  return useApiGet('/api/space/{id}/credits', spaceId ? space(spaceId) : null);
}
