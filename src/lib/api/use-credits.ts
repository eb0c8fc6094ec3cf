// A space's minutes (GET /api/space/{id}/credits): the one SWR hook and key every area shares.
import useSWR from 'swr';
import type { Credits } from '../../../contract/schemas/space';
import { fetcher, type ApiError } from '../http';

export const creditsKey = (spaceId: string) => `/api/space/${spaceId}/credits`;

export function useCredits(spaceId: string | null) {
  return useSWR<Credits, ApiError>(spaceId ? creditsKey(spaceId) : null, fetcher);
}
