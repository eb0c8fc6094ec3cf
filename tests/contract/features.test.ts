import { describe, expect, it } from 'vitest';
import {
  canCreateSpaces, isFeatureAvailable, planAtLeast, spacesLimitFor, voiceCloneLimit, type AvailableFeature,
} from '../../contract/features';

const f = (enabled: boolean, metadata: AvailableFeature['metadata'] = {}): AvailableFeature => ({ enabled, visible: true, metadata });

describe('isFeatureAvailable', () => {
  it('is false when missing or disabled', () => {
    expect(isFeatureAvailable(undefined, 'desktop')).toBe(false);
    expect(isFeatureAvailable(f(false), 'desktop')).toBe(false);
    expect(isFeatureAvailable(f(false, { mobile: true }), 'mobile')).toBe(false);
  });
  it('enabled and neither mobile-only nor desktop-only: available everywhere', () => {
    for (const d of ['mobile', 'tablet', 'desktop'] as const) {
      expect(isFeatureAvailable(f(true), d)).toBe(true);
      expect(isFeatureAvailable(f(true, { mobile: true, desktop: true }), d)).toBe(true);
    }
  });
  it('mobile-only: available on mobile and tablet', () => {
    const m = f(true, { mobile: true });
    expect(isFeatureAvailable(m, 'mobile')).toBe(true);
    expect(isFeatureAvailable(m, 'tablet')).toBe(true);
    expect(isFeatureAvailable(m, 'desktop')).toBe(false);
  });
  it('desktop-only: available when enabled', () => {
    const d = f(true, { desktop: true });
    expect(isFeatureAvailable(d, 'desktop')).toBe(true);
    expect(isFeatureAvailable(d, 'mobile')).toBe(true);
  });
});

describe('plans', () => {
  it('orders the tiers', () => {
    expect(planAtLeast('business', 'creator_pro')).toBe(true);
    expect(planAtLeast('creator', 'creator_pro')).toBe(false);
    expect(planAtLeast('trial', 'trial')).toBe(true);
    expect(planAtLeast('custom', 'enterprise')).toBe(true);
  });
  it('limits teamspaces as the spec says', () => {
    expect(spacesLimitFor('creator_pro')).toEqual({ spaces: 2, userLimit: 3 });
    expect(spacesLimitFor('business')).toEqual({ spaces: 2, userLimit: 5 });
    expect(spacesLimitFor('enterprise')).toEqual({ spaces: null, userLimit: null });
    expect(spacesLimitFor('starter')).toEqual({ spaces: 1, userLimit: 1 });
    expect(canCreateSpaces('creator')).toBe(false);
    expect(canCreateSpaces('creator_pro')).toBe(true);
  });
  it('limits custom voice clones', () => {
    expect(voiceCloneLimit('creator_pro')).toBe(10);
    expect(voiceCloneLimit('business')).toBe(10);
    expect(voiceCloneLimit('enterprise')).toBeNull();
    expect(voiceCloneLimit('starter')).toBe(0);
  });
});
