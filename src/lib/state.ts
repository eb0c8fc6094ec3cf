// App-wide state atoms. Feature-local state lives in each feature.
import { atom } from 'jotai';
import type { FeatureKey } from '../../contract/features';
import { atomWithStorage } from 'jotai/utils';
import { getDeviceType, watchDeviceType, type DeviceType } from './device';
import { STORAGE_KEYS } from './storage';

/** The space of the current route (/spaces/:spaceId/...), null outside a space. Added as space_id to API calls. */
export const currentSpaceIdAtom = atom<string | null>(null);

/** Global error state of spec section 4: none, inactiveUser or paymentRequired. */
export type GlobalError = 'none' | 'inactiveUser' | 'paymentRequired';
export const globalErrorAtom = atom<GlobalError>('none');

/** The Unknown Error modal ('Please contact the support chat or email us at ...'). */
export const unknownErrorOpenAtom = atom(false);

/** Request to open the Buy additional minutes modal (a 402 for a subscriber who can buy minutes). */
export const buyMinutesOpenAtom = atom(false);

/**
 * "Get more minutes" asked from a balance or a disabled action: opens, in place, the buy-minutes modal for a
 * subscriber who can buy them, or the plans (and "Ask my administrator" where plans are granted) otherwise.
 */
export const getMoreMinutesAtom = atom(false);

/** Device class from the window's width (src/lib/device.ts), followed on resize while the app reads it. */
export const deviceTypeAtom = atom<DeviceType>(getDeviceType());
deviceTypeAtom.onMount = (set) => watchDeviceType(set);

/** Sidebar locked open (208 px) or collapsed (60 px, expands on hover). Remembered. */
export const sidebarLockedAtom = atomWithStorage<boolean>(
  STORAGE_KEYS.sidebarLocked,
  true,
  undefined,
  { getOnInit: true },
);

/** Ids of sidebar banners the user closed ('api', 'video_ads', 'trial'). Remembered. */
export const dismissedBannersAtom = atomWithStorage<string[]>(
  STORAGE_KEYS.dismissedBanners,
  [],
  undefined,
  { getOnInit: true },
);

/** The upgrade modal of one feature: opened by a 403 feature refusal or a visible-but-locked item; null = closed. */
export interface UpgradeRequest {
  feature: FeatureKey;
  /** Teamspace content (members, spaces): the space-owner check is off there (spec section 6). */
  teamspaceContent?: boolean;
}
export const upgradeModalAtom = atom<UpgradeRequest | null>(null);
