// The caller's Teamspaces (GET /api/space/list): the one SWR hook and key shared by the shell (routing, first
// space, access checks) and the Teamspaces feature. Cached 5 minutes (spec section 7).
import type { Space } from '../../../contract/schemas/space';
import { getAuthProvider } from '../auth/active';
import { isEmbeddedProvider } from '../auth/types';
import { CACHED_5_MIN } from '../swr';
import { apiKey, useApiGet } from './use-api-get';

export const SPACE_LIST_KEY = apiKey('/api/space/list');

export function useSpaces(enabled = true) {
  return useApiGet('/api/space/list', enabled ? {} : null, CACHED_5_MIN);
}

/**
 * The first space: inside a shop's admin (the embedded app) the shop's Teamspace, else the default one (the list
 * comes sorted default first, then by name).
 */
export function firstSpace(spaces: Space[] | undefined, shop: string | null = launchShop()): Space | null {
  if (!spaces || spaces.length === 0) return null;
  return (shop ? spaces.find((s) => s.shop_domain === shop) : undefined) ?? spaces.find((s) => s.is_default) ?? spaces[0];
}

function launchShop(): string | null {
  const p = getAuthProvider();
  return isEmbeddedProvider(p) ? p.shop : null;
}
