// THE entitlements function: may this user, in this space, use feature X now, and how much of it.
// Inputs: the subscription that applies (in a space, its owner's; for user-level features, the user's own),
// its state (spec section 4: active, expired, paused, enterprise matching), the plan table of spec section 6
// (contract/features.ts) and the feature metadata of spec section 3. Settings' available_features, every gated
// route (server/app/gates.ts) and the limits of spaces, members and voice clones all read it.
import {
  FEATURE_DEVICE_METADATA, FEATURE_KEYS, FEATURE_LOCKED_VISIBILITY, FEATURE_MIN_PLAN, featureRefusalText,
  planAtLeast, spacesLimitFor, voiceCloneLimit,
  type AvailableFeature, type FeatureKey, type FeatureRefusal, type PlanTier,
} from '../../../contract/features';
import type { Db } from '../../db/index';
import { DomainError } from '../../errors';
import { findSubscriptionByUser, spaceOwnerId, type SubscriptionRow } from './repository';
import { enterpriseProductIds, isEnterpriseTier } from './catalogue';
import { isFreeSubscription, isSubscriptionActive, isSubscriptionExpired, isSubscriptionPaused, planTierOf } from './plan';

/** Where a subscription stands, for entitlements and for the UI. */
export type PlanState = 'trial' | 'free' | 'active' | 'paused' | 'expired' | 'inactive';

export interface Limits {
  /** Spaces the owner may own (null = unlimited). */
  spaces: number | null;
  /** Members + pending invites per space (null = unlimited). */
  spaceMembers: number | null;
  /** Custom voice clones per space (null = unlimited). */
  voiceClones: number | null;
  /** Jobs running at once for API callers (null = unlimited). */
  concurrentJobs: number | null;
}

export interface Entitlements {
  /** The subscribed tier ('trial' without a subscription). */
  tier: PlanTier;
  /** The tier whose features apply now: the subscribed one while active, 'free' otherwise. */
  effectiveTier: PlanTier;
  state: PlanState;
  features: Record<FeatureKey, AvailableFeature>;
  limits: Limits;
}

export interface EntitlementOptions {
  now?: Date;
  /** The AI rewrite tool needs an LLM engine: without one it is off whatever the plan. */
  llmConfigured?: boolean;
  /**
   * Product ids of the catalogue's plans of category enterprise. When given, an enterprise subscription applies
   * only if exactly one of them matches it (spec section 4); otherwise it counts as inactive.
   */
  enterpriseProductIds?: readonly string[];
}

const CONCURRENT_JOBS: Record<PlanTier, number | null> = {
  trial: 1, free: 1, starter: 1, creator: 2, creator_pro: 2, business: 4, enterprise: null, custom: null,
};

export function planState(sub: SubscriptionRow | null, now: Date = new Date()): PlanState {
  if (!sub) return 'trial';
  if (isFreeSubscription(sub)) return 'free';
  if (isSubscriptionPaused(sub)) return 'paused';
  if (isSubscriptionActive(sub, now)) return 'active';
  if (isSubscriptionExpired(sub, now)) return 'expired';
  return 'inactive';
}

function enterpriseMatches(sub: SubscriptionRow, ids: readonly string[] | undefined): boolean {
  if (!ids) return true;
  return ids.filter((id) => id === sub.product_id).length === 1;
}

/** Pure: the entitlements of a subscription (null = trial). */
export function entitlementsOf(sub: SubscriptionRow | null, o: EntitlementOptions = {}): Entitlements {
  const now = o.now ?? new Date();
  const tier = planTierOf(sub);
  let state = planState(sub, now);
  if (state === 'active' && sub && (tier === 'enterprise' || tier === 'custom') && !enterpriseMatches(sub, o.enterpriseProductIds)) {
    state = 'inactive';
  }
  const effectiveTier: PlanTier = state === 'active' ? tier : state === 'trial' ? 'trial' : 'free';
  const paying = effectiveTier !== 'trial' && effectiveTier !== 'free';
  const spaces = spacesLimitFor(effectiveTier);
  const limits: Limits = {
    spaces: spaces.spaces,
    spaceMembers: spaces.userLimit,
    voiceClones: voiceCloneLimit(effectiveTier),
    concurrentJobs: CONCURRENT_JOBS[effectiveTier],
  };
  const features = {} as Record<FeatureKey, AvailableFeature>;
  for (const key of FEATURE_KEYS) {
    let enabled = planAtLeast(effectiveTier, FEATURE_MIN_PLAN[key]);
    const notConfigured = key === 'ai_rewrite' && o.llmConfigured === false && enabled;
    if (key === 'ai_rewrite' && o.llmConfigured === false) enabled = false;
    const rule = FEATURE_LOCKED_VISIBILITY[key];
    const visible = enabled || rule === 'upsell' || (rule === 'paid' && paying);
    const metadata: AvailableFeature['metadata'] = { ...(FEATURE_DEVICE_METADATA[key] ?? {}) };
    if (notConfigured) metadata.not_configured = true;
    if (key === 'spaces') Object.assign(metadata, { user_limit: limits.spaceMembers, limit: limits.spaces });
    if (key === 'voice_presets') metadata.limit = limits.voiceClones;
    features[key] = { enabled, visible, metadata };
  }
  return { tier, effectiveTier, state, features, limits };
}

/** Staff (superusers) are not limited by a plan: every feature on (AI rewrite still needs its engine). */
export function staffEntitlements(e: Entitlements, o: EntitlementOptions = {}): Entitlements {
  const features = { ...e.features };
  for (const key of FEATURE_KEYS) {
    const enabled = key === 'ai_rewrite' && o.llmConfigured === false ? false : true;
    const metadata = key === 'ai_rewrite' && !enabled ? { ...features[key].metadata, not_configured: true } : features[key].metadata;
    features[key] = { ...features[key], enabled, visible: true, metadata };
  }
  return { ...e, features };
}

export interface Decision {
  allowed: boolean;
  /** Set when refused: the body of the 403. */
  refusal?: FeatureRefusal;
}

/** Pure: may these entitlements use `key` now? */
export function decide(e: Entitlements, key: FeatureKey): Decision {
  if (e.features[key].enabled) return { allowed: true };
  return {
    allowed: false,
    refusal: { detail: featureRefusalText(key), code: 'feature_not_in_plan', feature: key, required_plan: FEATURE_MIN_PLAN[key] },
  };
}

/** The error refusing a feature: 403 with {detail, code, feature, required_plan}. */
export function featureRefused(r: FeatureRefusal): DomainError {
  return new DomainError('forbidden', r.detail, { extra: { code: r.code, feature: r.feature, required_plan: r.required_plan } });
}

// ------------------------------------------------------------------------------------------------ loaders

/**
 * The entitlements of a subscription with the product catalogue's enterprise plans (spec: an enterprise
 * subscription applies when exactly one plan of category enterprise matches it); loaded only when it matters.
 */
export async function entitlementsOfSubscription(db: Db, sub: SubscriptionRow | null, o: EntitlementOptions = {}): Promise<Entitlements> {
  const needs = !!sub && isEnterpriseTier(sub.tier) && o.enterpriseProductIds === undefined;
  return entitlementsOf(sub, needs ? { ...o, enterpriseProductIds: await enterpriseProductIds(db) } : o);
}

/** The entitlements of a user's own plan (user-level features: API keys). */
export async function userEntitlements(db: Db, userId: string, o: EntitlementOptions = {}): Promise<Entitlements> {
  return entitlementsOfSubscription(db, await findSubscriptionByUser(db, userId), o);
}

/** The entitlements that apply in a space: its owner's plan, for every member. */
export async function spaceEntitlements(db: Db, spaceId: string, o: EntitlementOptions = {}): Promise<Entitlements> {
  const owner = await spaceOwnerId(db, spaceId);
  if (!owner) throw new DomainError('not_found', 'Teamspace not found');
  return userEntitlements(db, owner, o);
}

export type Scope = { spaceId: string } | { userId: string };

export async function entitlementsFor(db: Db, scope: Scope, o: EntitlementOptions = {}): Promise<Entitlements> {
  return 'spaceId' in scope ? spaceEntitlements(db, scope.spaceId, o) : userEntitlements(db, scope.userId, o);
}

/** @public Throws the 403 refusal unless the plan that applies in `scope` includes `key`; returns the entitlements. */
export async function requireFeature(db: Db, scope: Scope, key: FeatureKey, o: EntitlementOptions = {}): Promise<Entitlements> {
  const e = await entitlementsFor(db, scope, o);
  const d = decide(e, key);
  if (!d.allowed) throw featureRefused(d.refusal!);
  return e;
}
