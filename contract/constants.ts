// Business constants and limits of spec section 9. Shared by browser and server.
export const TOASTS_MAX = 3;
export const TOAST_HIDE_MS = 5000;
export const SNACKBARS_MAX = 2;
export const SEGMENT_SAVE_ERROR_MS = 6000;
export const ADMIN_LIST_LIMIT = 20;
export const PROJECT_PAGE_SIZE = 24;
export const SEGMENT_BATCH_SIZE = 50;
export const SETTINGS_CACHE_MS = 5 * 60 * 1000;
export const SPACE_CACHE_MS = 5 * 60 * 1000;
export const SETTINGS_RETRIES = 3;
/** @public Spec section 9; no screen of this build uses it yet (billing, support chat). */
export const PRODUCT_RETRY_BASE_MS = 5000;
/** @public Spec section 9; no screen of this build uses it yet (billing, support chat). */
export const PRODUCT_RETRY_CAP_MS = 30000;
export const UPLOAD_RECORD_TTL_MS = 5184000000;
export const EMBED_TOKEN_EXPIRY_MARGIN_MS = 10_000;
export const PARENT_FRAME_TIMEOUT_MS = 3000;
/** @public Spec section 9; no screen of this build uses it yet (billing, support chat). */
export const PLAN_CHANGE_RELOAD_MS = 1000;
export const PAYMENT_RETURN_LOADER_MS = 2000;
export const MAINTENANCE_WINDOW_MINUTES = 30;
/** @public Spec section 9; no screen of this build uses it yet (billing, support chat). */
export const BUY_MINUTES_MAX = 10000;
/** @public Spec section 9; no screen of this build uses it yet (billing, support chat). */
export const BUY_MINUTES_MARKS = [0, 2500, 5000, 7500, 10000] as const;
export const PASSWORD_MIN = 6;
export const SIDEBAR_COLLAPSED_PX = 60;
export const SIDEBAR_EXPANDED_PX = 208;
export const SIDEBAR_POPOVER_PX = 186;
/** @public Spec section 9; no screen of this build uses it yet (billing, support chat). */
export const SUPPORT_CHAT_SIZE = { width: 408, height: 638 } as const;
export const TEAMSPACE_DIALOG_SIZE = { width: 540, height: 600 } as const;
export const DEFAULT_TEAMSPACE_MINUTES = 3;
export const QUERY_CACHE_MS = 5 * 60 * 1000;
export const QUERY_RETRIES = 3;
export const QUERY_BACKOFF_BASE_MS = 1000;
export const QUERY_BACKOFF_CAP_MS = 30000;
/** @public Spec section 9; no screen of this build uses it yet (billing, support chat). */
export const COOKIE_DAYS = 365;
export const DEFAULT_TEAMSPACE_NAME = 'My Teamspace';
/**
 * A user's first Teamspace is named after them ("Alex's Teamspace"): two people sharing spaces never see two
 * identical "My Teamspace" entries. The e-mail's name part (before any +tag); DEFAULT_TEAMSPACE_NAME without one.
 */
export function defaultTeamspaceName(email: string | null | undefined): string {
  const local = (email ?? '').split('@')[0]?.split('+')[0]?.trim().slice(0, 60) ?? '';
  if (!local) return DEFAULT_TEAMSPACE_NAME;
  return `${local[0].toUpperCase()}${local.slice(1)}'s Teamspace`;
}
export const DEFAULT_TEAMSPACE_COLOR = 'midnight';
export const SPACE_NAME_MAX = 100;
export const SUPPORT_EMAIL = 'support@dubbing.studio';

/** Teamspace colour palette. The default colour of the create form is the second entry. */
export const SPACE_COLORS = [
  'midnight',
  'ocean',
  'forest',
  'sunset',
  'berry',
  'sand',
  'slate',
  'coral',
] as const;
export type SpaceColor = (typeof SPACE_COLORS)[number];
export const SPACE_COLOR_HEX: Record<SpaceColor, string> = {
  midnight: '#1f2a44',
  ocean: '#1c6dd0',
  forest: '#2e7d4f',
  sunset: '#e0702b',
  berry: '#a23b72',
  sand: '#c9a227',
  slate: '#5b6770',
  coral: '#e25c5c',
};
export const CREATE_FORM_DEFAULT_COLOR: SpaceColor = SPACE_COLORS[1];

/** Enough minutes to dub: available minutes >= ceil(seconds / 60). */
export function minutesNeeded(durationSec: number): number {
  return Math.ceil(Math.max(0, durationSec) / 60);
}
export function hasEnoughMinutes(availableMinutes: number, durationSec: number): boolean {
  return availableMinutes >= minutesNeeded(durationSec);
}
/** Analytics duration in minutes is max(1, round(duration/60)). */
export function analyticsDurationMin(durationSec: number | null | undefined): number | 'NA' {
  if (durationSec == null || !Number.isFinite(durationSec)) return 'NA';
  return Math.max(1, Math.round(durationSec / 60));
}
