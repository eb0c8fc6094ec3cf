// Settings (spec section 7): GET /api/settings as space settings when a space id exists and the user is not a
// superuser, otherwise user settings when signed in, else app settings. Cached 5 minutes; every load is retried
// 3 times with a delay growing 1 s per attempt (1 s, 2 s, 3 s) before it counts as failed.
import { useAtomValue } from 'jotai';
import useSWR, { type SWRResponse } from 'swr';
import { SETTINGS_CACHE_MS, SETTINGS_RETRIES } from '../../../contract/constants';
import { isFeatureAvailable, type FeatureKey } from '../../../contract/features';
import type { Settings } from '../../../contract/schemas/settings';
import { useCurrentUser } from './use-current-user';
import { toApiError, type ApiError } from '../http';
import { call, clientWith } from './client';
import type { GetAnswer } from './use-api-get';
import { useIsAuthenticated } from '../auth/context';
import { currentSpaceIdAtom, deviceTypeAtom } from '../state';

export type SettingsKind = Settings['kind'];
export interface SettingsChoice {
  kind: SettingsKind;
  spaceId: string | null;
}

export function chooseSettings(input: { spaceId: string | null; isSuperuser: boolean | undefined; authenticated: boolean }): SettingsChoice {
  if (input.authenticated && input.spaceId && input.isSuperuser === false) return { kind: 'space', spaceId: input.spaceId };
  if (input.authenticated) return { kind: 'user', spaceId: null };
  return { kind: 'app', spaceId: null };
}

export const SETTINGS_RETRY_STEP_MS = 1000;
export interface LoadSettingsOptions {
  retries?: number;
  sleep?: (ms: number) => Promise<void>;
}
/** How settings retries wait (tests shorten it). */
export const settingsTiming = {
  sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
};

/** One settings load with the spec's retries (4xx answers are final at once). */
export async function loadSettings(choice: SettingsChoice, opts: LoadSettingsOptions = {}): Promise<GetAnswer<'/api/settings'>> {
  const retries = opts.retries ?? SETTINGS_RETRIES;
  const sleep = opts.sleep ?? settingsTiming.sleep;
  for (let attempt = 0; ; attempt++) {
    try {
      const query = choice.kind === 'space' && choice.spaceId ? { space_id: choice.spaceId } : undefined;
      return await call(clientWith({ spaceId: false, auth: choice.kind !== 'app' }).GET('/api/settings', { params: { query } }));
    } catch (e) {
      const err = toApiError(e);
      const final = (err.status >= 400 && err.status < 500) || err.kind === 'auth';
      if (final || attempt >= retries) throw err;
      await sleep((attempt + 1) * SETTINGS_RETRY_STEP_MS);
    }
  }
}

/** The key names the user too: another account in the same tab (sign-out, sign-up) never reads the last one's settings. */
export type SettingsKey = readonly ['settings', SettingsKind, string, string];
export function settingsKey(choice: SettingsChoice, userId: string | null = null): SettingsKey {
  return ['settings', choice.kind, choice.spaceId ?? '', userId ?? ''] as const;
}

/** The settings that apply to the current page. */
export function useSettings() {
  const authenticated = useIsAuthenticated();
  const spaceId = useAtomValue(currentSpaceIdAtom);
  const { data: user } = useCurrentUser(authenticated);
  const choice = chooseSettings({ spaceId, isSuperuser: user?.is_superuser, authenticated });
  const key = settingsKey(choice, user?.id ?? null);
  // The key is not the path: it names the user and the kind of settings (the loader picks the query and the token).
  const swr: SWRResponse<GetAnswer<'/api/settings'>, ApiError> = useSWR(key, ([, kind, id]: SettingsKey) => loadSettings({ kind, spaceId: id || null }), {
    dedupingInterval: SETTINGS_CACHE_MS,
    focusThrottleInterval: SETTINGS_CACHE_MS,
    shouldRetryOnError: false,
    keepPreviousData: true,
    revalidateOnFocus: false,
  });
  return { ...swr, settings: swr.data, key, choice };
}

/** An available feature entry of the current settings. */
export function useFeature(key: FeatureKey) {
  const { settings } = useSettings();
  return settings?.scope_settings.available_features[key];
}

/** Feature availability (enabled + device rule of spec section 5). */
export function useFeatureAvailable(key: FeatureKey): boolean {
  const feature = useFeature(key);
  const device = useAtomValue(deviceTypeAtom);
  return isFeatureAvailable(feature, device);
}

