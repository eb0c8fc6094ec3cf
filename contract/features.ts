// Feature keys, plan tiers and plan gating (spec sections 3 and 6).
export const FEATURE_KEYS = [
  'ai_rewrite', 'api', 'audio_download', 'audio_track_editor', 'free_languages', 'glossary',
  'instant_voice_preset', 'lipsync', 'multilanguage', 'new_checkout', 'paywall', 'platform',
  'spaces', 'srt_download', 'srt_upload', 'subtitles', 'tus', 'voice_presets',
] as const;
export type FeatureKey = (typeof FEATURE_KEYS)[number];

export const PLAN_TIERS = ['trial', 'free', 'starter', 'creator', 'creator_pro', 'business', 'enterprise', 'custom'] as const;
export type PlanTier = (typeof PLAN_TIERS)[number];
/** @public The tiers sold (payments). */
export const PAID_TIERS = ['starter', 'creator', 'creator_pro', 'business', 'enterprise'] as const;

export const SUBSCRIPTION_STATUSES = [
  'active', 'canceled', 'incomplete', 'incomplete_expired', 'past_due', 'paused', 'trialing', 'unpaid',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

const RANK: Record<PlanTier, number> = {
  trial: 0, free: 0, starter: 1, creator: 2, creator_pro: 3, business: 4, enterprise: 5, custom: 5,
};
export function planAtLeast(plan: PlanTier, min: PlanTier): boolean {
  return RANK[plan] >= RANK[min];
}

/** Monthly minutes of each plan (plan copy: 25, 100, 500, 2000). */
export const PLAN_MONTHLY_MINUTES: Record<PlanTier, number> = {
  trial: 3, free: 3, starter: 25, creator: 100, creator_pro: 500, business: 2000, enterprise: 2000, custom: 2000,
};
/**
 * Free lip-sync minutes a plan credits every month, besides its minutes (Credits.lipsync_free_minutes). Only the
 * plans with lip-sync (Creator Pro and above) have them; lip-sync draws on them before the plan's minutes.
 */
export const PLAN_MONTHLY_LIPSYNC_FREE_MINUTES: Record<PlanTier, number> = {
  trial: 0, free: 0, starter: 0, creator: 0, creator_pro: 10, business: 30, enterprise: 60, custom: 60,
};

export interface SpacesLimit {
  /** How many spaces a user may own (null = unlimited). */
  spaces: number | null;
  /** Members + pending invites per space (null = unlimited). */
  userLimit: number | null;
}
/** Teamspaces: creator_pro one extra space with 3 members, business 5, enterprise unlimited. */
export function spacesLimitFor(plan: PlanTier): SpacesLimit {
  switch (plan) {
    case 'creator_pro': return { spaces: 2, userLimit: 3 };
    case 'business': return { spaces: 2, userLimit: 5 };
    case 'enterprise':
    case 'custom': return { spaces: null, userLimit: null };
    default: return { spaces: 1, userLimit: 1 };
  }
}
/** @internal Used by tests only. */
export function canCreateSpaces(plan: PlanTier): boolean {
  return planAtLeast(plan, 'creator_pro');
}

export interface FeatureMetadata {
  desktop?: boolean;
  mobile?: boolean;
  download_disabled?: boolean;
  user_limit?: number | null;
  limit?: number | null;
  /** The plan includes the feature but the server lacks what it needs (ai_rewrite without an LLM engine). */
  not_configured?: boolean;
}
export interface AvailableFeature { enabled: boolean; visible: boolean; metadata: FeatureMetadata }

/** Which plan unlocks each feature (Creator Pro: lip-sync, SRT, captions, voice clones, AI rewrite; Business: glossary, multi-language, API). */
export const FEATURE_MIN_PLAN: Record<FeatureKey, PlanTier> = {
  ai_rewrite: 'creator_pro', api: 'business', audio_download: 'trial', audio_track_editor: 'trial',
  free_languages: 'enterprise', glossary: 'business', instant_voice_preset: 'creator_pro', lipsync: 'creator_pro',
  multilanguage: 'business', new_checkout: 'trial', paywall: 'trial', platform: 'trial', spaces: 'creator_pro',
  srt_download: 'creator_pro', srt_upload: 'creator_pro', subtitles: 'creator_pro', tus: 'trial',
  voice_presets: 'creator_pro',
};

/**
 * Visibility of a feature that the plan does not enable (spec: hidden items are hidden; visible-but-locked items
 * open the upgrade modal for that feature):
 * - 'upsell': shown locked to every plan (an upgrade modal explains it where it is used);
 * - 'paid': shown locked to paying plans (starter and above), hidden on trial/free (a trial user does not land on
 *   pages of the Voice Clone Library or the Dictionary that they cannot use);
 * - 'hidden': shown only when enabled.
 * Features enabled for the plan are always visible.
 */
export const FEATURE_LOCKED_VISIBILITY: Record<FeatureKey, 'upsell' | 'paid' | 'hidden'> = {
  ai_rewrite: 'upsell', api: 'paid', audio_download: 'hidden', audio_track_editor: 'hidden', free_languages: 'hidden',
  glossary: 'paid', instant_voice_preset: 'upsell', lipsync: 'upsell', multilanguage: 'upsell', new_checkout: 'hidden',
  paywall: 'hidden', platform: 'hidden', spaces: 'upsell', srt_download: 'upsell', srt_upload: 'upsell',
  subtitles: 'upsell', tus: 'hidden', voice_presets: 'paid',
};

/** Device metadata of features (spec section 3 metadata; the Dictionary and the timeline are desktop only). */
export const FEATURE_DEVICE_METADATA: Partial<Record<FeatureKey, FeatureMetadata>> = {
  glossary: { desktop: true },
  audio_track_editor: { desktop: true },
};

/** What users call each feature (upgrade modals, refusals). */
export const FEATURE_LABELS: Record<FeatureKey, string> = {
  ai_rewrite: 'AI rewrite', api: 'The API', audio_download: 'Audio download', audio_track_editor: 'The timeline editor',
  free_languages: 'Free languages', glossary: 'The Dictionary', instant_voice_preset: 'Instant voice clones',
  lipsync: 'Lip-sync', multilanguage: 'Translation into several languages', new_checkout: 'Checkout',
  paywall: 'Paywall', platform: 'Platform', spaces: 'Teamspaces', srt_download: 'SRT download',
  srt_upload: 'SRT upload', subtitles: 'Captions and burned subtitles', tus: 'Resumable uploads',
  voice_presets: 'The Voice Clone Library',
};

/** Display names of the plans (also the planName rule of spec section 3). */
export const PLAN_DISPLAY_NAMES: Record<PlanTier, string> = {
  trial: 'Free Plan', free: 'Free Plan', starter: 'Starter', creator: 'Creator', creator_pro: 'Creator Pro',
  business: 'Business', enterprise: 'Enterprise', custom: 'Custom',
};

/**
 * The detail of a 403 refusing a feature the plan does not include. The client recognises it with
 * featureOfRefusal() and opens the upgrade modal for that feature.
 */
export function featureRefusalText(key: FeatureKey): string {
  return `${FEATURE_LABELS[key]} is not included in your plan: upgrade to ${PLAN_DISPLAY_NAMES[FEATURE_MIN_PLAN[key]]} or above`;
}
/** The feature a refusal detail names, or null for any other text. */
export function featureOfRefusal(detail: unknown): FeatureKey | null {
  if (typeof detail !== 'string') return null;
  for (const k of FEATURE_KEYS) if (detail === featureRefusalText(k)) return k;
  return null;
}
/** The machine-readable body of a feature refusal (beside `detail`). */
export interface FeatureRefusal { detail: string; code: 'feature_not_in_plan'; feature: FeatureKey; required_plan: PlanTier }

/** Custom voice clones: 10 for Creator Pro and Business, unlimited for Enterprise. */
export function voiceCloneLimit(plan: PlanTier): number | null {
  if (plan === 'enterprise' || plan === 'custom') return null;
  if (plan === 'creator_pro' || plan === 'business') return 10;
  return 0;
}

/** Feature availability rule of spec section 5. */
export function isFeatureAvailable(f: AvailableFeature | undefined, device: 'mobile' | 'tablet' | 'desktop'): boolean {
  if (!f || !f.enabled) return false;
  const mobileOnly = f.metadata.mobile === true && f.metadata.desktop !== true;
  const desktopOnly = f.metadata.desktop === true && f.metadata.mobile !== true;
  if (!mobileOnly && !desktopOnly) return true;
  if (mobileOnly) return device === 'mobile' || device === 'tablet';
  return true;
}
