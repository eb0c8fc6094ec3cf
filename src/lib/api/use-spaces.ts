// The caller's Teamspaces (GET /api/space/list): the one SWR hook and key shared by the shell (routing, first
// space, access checks) and the Teamspaces feature. Cached 5 minutes (spec section 7).
import useSWR from 'swr';
import type { Space } from '../../../contract/schemas/space';
import { fetcher, type ApiError } from '../http';
import { CACHED_5_MIN } from '../swr';

export const SPACE_LIST_KEY = '/api/space/list';

export function useSpaces(enabled = true) {
  return useSWR<Space[], ApiError>(enabled ? SPACE_LIST_KEY : null, fetcher, CACHED_5_MIN);
}

/** The first space: the default one (the list comes sorted default first, then by name). */
export function firstSpace(spaces: Space[] | undefined): Space | null {
  if (!spaces || spaces.length === 0) return null;
  return spaces.find((s) => s.is_default) ?? spaces[0];
}
