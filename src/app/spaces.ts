// The space list as the shell needs it for routing (first space, access checks). Same SWR key as the
// Teamspaces feature uses, so both share one cached answer.
import useSWR from 'swr';
import type { Space } from '../../contract/schemas/space';
import type { ApiError } from '../lib/http';
import { CACHED_5_MIN } from './swr';

export const SPACE_LIST_KEY = '/api/space/list';

export function useSpaceList(enabled = true) {
  return useSWR<Space[], ApiError>(enabled ? SPACE_LIST_KEY : null, CACHED_5_MIN);
}

/** The first space: the default one (the list comes sorted default first, then by name). */
export function firstSpace(spaces: Space[] | undefined): Space | null {
  if (!spaces || spaces.length === 0) return null;
  return spaces.find((s) => s.is_default) ?? spaces[0];
}
