// The plan catalogue as the pricing page shows it, derived from the shared plan rules (contract/features.ts).
import { FEATURE_MIN_PLAN, PLAN_MONTHLY_MINUTES, planAtLeast, spacesLimitFor, voiceCloneLimit, type FeatureKey, type PlanTier } from '../../../contract/features';

export const SHOWN_PLANS = ['starter', 'creator', 'creator_pro', 'business', 'enterprise'] as const satisfies readonly PlanTier[];
export type ShownPlan = (typeof SHOWN_PLANS)[number];

export const PLAN_LABELS: Record<ShownPlan, string> = {
  starter: 'Starter',
  creator: 'Creator',
  creator_pro: 'Creator Pro',
  business: 'Business',
  enterprise: 'Enterprise',
};

const FEATURE_LABELS: Partial<Record<FeatureKey, string>> = {
  lipsync: 'Lip-sync',
  srt_upload: 'SRT upload',
  srt_download: 'SRT download',
  subtitles: 'Captions',
  voice_presets: 'Voice clone library',
  ai_rewrite: 'AI rewrite',
  glossary: 'Dictionary',
  multilanguage: 'Multi-language translation',
  api: 'API',
};

export interface PlanCard {
  tier: ShownPlan;
  name: string;
  monthlyMinutes: number;
  features: string[];
  teamspaceMembers: string;
  voiceClones: string;
  lipsync: boolean;
}

export function planCards(): PlanCard[] {
  return SHOWN_PLANS.map((tier) => {
    const limits = spacesLimitFor(tier);
    const clones = voiceCloneLimit(tier);
    const features = (Object.keys(FEATURE_LABELS) as FeatureKey[])
      .filter((k) => planAtLeast(tier, FEATURE_MIN_PLAN[k]))
      .map((k) => FEATURE_LABELS[k] as string);
    return {
      tier,
      name: PLAN_LABELS[tier],
      monthlyMinutes: PLAN_MONTHLY_MINUTES[tier],
      features,
      teamspaceMembers: limits.userLimit === null ? 'Unlimited Teamspace members' : limits.userLimit > 1 ? `Teamspace with up to ${limits.userLimit} members` : 'Personal Teamspace',
      voiceClones: clones === null ? 'Unlimited custom voice clones' : clones > 0 ? `${clones} custom voice clones` : 'Stock voices',
      lipsync: planAtLeast(tier, FEATURE_MIN_PLAN.lipsync),
    };
  });
}
