// UI state of the Teamspaces feature: which Teamspace dialog or create modal is open.
import { atom, useAtomValue, useSetAtom } from 'jotai';
import { useLocation } from 'wouter';
import { currentSpaceIdAtom } from '../../lib/state';

export type TeamspaceTab = 'settings' | 'usage' | 'webhooks';
export const teamspaceDialogAtom = atom<{ spaceId: string; tab: TeamspaceTab } | null>(null);
export const createTeamspaceOpenAtom = atom(false);

/** Opens the Teamspace dialog (Settings & members) of a space. */
export function useOpenTeamspaceDialog(): (spaceId: string, tab?: TeamspaceTab) => void {
  const set = useSetAtom(teamspaceDialogAtom);
  return (spaceId, tab = 'settings') => set({ spaceId, tab });
}
export function useOpenCreateTeamspace(): () => void {
  const set = useSetAtom(createTeamspaceOpenAtom);
  return () => set(true);
}

/** The space id of the current route (/spaces/{spaceId}/...), or null. */
export function spaceIdFromPath(path: string): string | null {
  const m = /^\/spaces\/([^/?#]+)/.exec(path);
  return m ? decodeURIComponent(m[1]) : null;
}
export function useRouteSpaceId(): string | null {
  const [location] = useLocation();
  return spaceIdFromPath(location);
}

/** The current space: the app's current space (set by the /spaces/:spaceId routes), else the route's. */
export function useCurrentSpaceId(): string | null {
  const fromApp = useAtomValue(currentSpaceIdAtom);
  const fromRoute = useRouteSpaceId();
  return fromRoute ?? fromApp;
}

/** Navigation helpers: to a space's home, home, and pricing (with the previous path as router state). */
export function useSpaceNavigation() {
  const [location, navigate] = useLocation();
  return {
    toSpace: (id: string) => navigate(`/spaces/${id}`),
    toHome: () => navigate('/'),
    toPricing: () => navigate('/pricing', { state: { from: location } }),
  };
}
