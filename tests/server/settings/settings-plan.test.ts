// The plan model (server/domains/billing/plan.ts): pure rules, no database.
import { describe, expect, it } from 'vitest';
import { FEATURE_KEYS } from '../../../contract/features';
import { entitlementsOf } from '../../../server/domains/billing/entitlements';
import {
  effectiveTierOf, isSubscriptionActive, isSubscriptionExpired,
  isSubscriptionPaused, planNameOf, planOf, planTierOf, subscriptionView, type SubscriptionRow,
} from '../../../server/domains/billing/plan';
import { csvCell as csvField } from '../../../server/csv';
import { addMonths } from '../../../server/domains/billing/subscriptions';

const NOW = new Date('2026-03-15T12:00:00Z');
const sub = (o: Partial<SubscriptionRow> = {}): SubscriptionRow => ({
  id: 'sub_1', user_id: 'u1', tier: 'creator_pro', status: 'active', interval: 'month', price_id: null, product_id: null,
  current_period_end: new Date('2026-04-15T12:00:00Z'), payments_collection_paused: false, cancel_at_period_end: false, ...o,
});

describe('isSubscriptionActive', () => {
  it('is active for active, incomplete, incomplete_expired and trialing within the period', () => {
    for (const status of ['active', 'incomplete', 'incomplete_expired', 'trialing']) {
      expect(isSubscriptionActive(sub({ status }), NOW), status).toBe(true);
    }
  });
  it('is not active for other statuses, after the period, when collection is paused, or without a subscription', () => {
    for (const status of ['canceled', 'past_due', 'paused', 'unpaid']) expect(isSubscriptionActive(sub({ status }), NOW), status).toBe(false);
    expect(isSubscriptionActive(sub({ current_period_end: '2026-03-15T11:59:59Z' }), NOW)).toBe(false);
    expect(isSubscriptionActive(sub({ current_period_end: NOW }), NOW)).toBe(false);
    expect(isSubscriptionActive(sub({ payments_collection_paused: true }), NOW)).toBe(false);
    expect(isSubscriptionActive(null, NOW)).toBe(false);
  });
  it('treats an open-ended period as not ended', () => {
    expect(isSubscriptionActive(sub({ current_period_end: null }), NOW)).toBe(true);
  });
  it('expired = period end in the past; paused = collection paused or status paused', () => {
    expect(isSubscriptionExpired(sub({ current_period_end: '2026-01-01T00:00:00Z' }), NOW)).toBe(true);
    expect(isSubscriptionExpired(sub(), NOW)).toBe(false);
    expect(isSubscriptionExpired(null, NOW)).toBe(false);
    expect(isSubscriptionPaused(sub({ payments_collection_paused: true }))).toBe(true);
    expect(isSubscriptionPaused(sub({ status: 'paused' }))).toBe(true);
    expect(isSubscriptionPaused(sub())).toBe(false);
  });
});

describe('tiers and names', () => {
  it('no subscription is the trial plan; free_sub ids are the free plan', () => {
    expect(planTierOf(null)).toBe('trial');
    expect(planTierOf(sub({ tier: 'business' }))).toBe('business');
    expect(planTierOf(sub({ id: 'free_sub_abc', tier: 'starter' }))).toBe('free');
    expect(planTierOf(sub({ tier: 'mystery' }))).toBe('free');
  });
  it('the effective tier drops to free once the subscription is not active', () => {
    expect(effectiveTierOf(null, NOW)).toBe('trial');
    expect(effectiveTierOf(sub(), NOW)).toBe('creator_pro');
    expect(effectiveTierOf(sub({ status: 'canceled' }), NOW)).toBe('free');
  });
  it('planName: the plan name if found, else Free Plan for free/trial, else Archive Plan', () => {
    expect(planNameOf(sub({ tier: 'creator_pro' }))).toBe('Creator Pro');
    expect(planNameOf(sub({ tier: 'business' }))).toBe('Business');
    expect(planNameOf(null)).toBe('Free Plan');
    expect(planNameOf(sub({ id: 'free_sub_1', tier: 'free' }))).toBe('Free Plan');
    expect(planNameOf(sub({ tier: 'legacy_gold' }))).toBe('Archive Plan');
    expect(planOf(sub(), NOW)).toMatchObject({ tier: 'creator_pro', effectiveTier: 'creator_pro', active: true, name: 'Creator Pro' });
  });
  it('subscriptionView gives the contract shape', () => {
    expect(subscriptionView(null)).toBeNull();
    expect(subscriptionView(sub({ interval: 'year', price_id: 'price_9', product_id: 'prod_9' }))).toEqual({
      id: 'sub_1', status: 'active', current_period_end: '2026-04-15T12:00:00.000Z', payments_collection_paused: false,
      cancel_at_period_end: false,
      plan: { id: 'price_9', product_id: 'prod_9', interval: 'year', recurring: true, tier: 'creator_pro', name: 'Creator Pro' },
      provider: 'local', payment_issue: null,
    });
  });
});

describe('features by plan', () => {
  const plan = (tier: string) => entitlementsOf(tier === 'trial' ? null : sub({ tier }), { now: NOW }).features;
  const isFeatureEnabled = (tier: string, k: (typeof FEATURE_KEYS)[number]) => plan(tier)[k].enabled;
  it('gates Creator Pro and Business features as the spec says', () => {
    for (const k of ['lipsync', 'srt_upload', 'srt_download', 'subtitles', 'voice_presets', 'ai_rewrite'] as const) {
      expect(isFeatureEnabled('creator', k), k).toBe(false);
      expect(isFeatureEnabled('creator_pro', k), k).toBe(true);
    }
    for (const k of ['glossary', 'multilanguage', 'api'] as const) {
      expect(isFeatureEnabled('creator_pro', k), k).toBe(false);
      expect(isFeatureEnabled('business', k), k).toBe(true);
    }
    expect(isFeatureEnabled('trial', 'audio_download')).toBe(true);
  });
  it('lists every feature key, with the spaces limits in metadata', () => {
    const t = plan('trial');
    expect(Object.keys(t).sort()).toEqual([...FEATURE_KEYS].sort());
    expect(t.spaces).toEqual({ enabled: false, visible: true, metadata: { user_limit: 1, limit: 1 } });
    expect(plan('business').spaces.metadata).toEqual({ user_limit: 5, limit: 2 });
    expect(plan('enterprise').spaces).toEqual({ enabled: true, visible: true, metadata: { user_limit: null, limit: null } });
  });
});

describe('admin helpers', () => {
  it('one month ahead clamps to the end of shorter months', () => {
    expect(addMonths(new Date('2026-01-31T10:00:00Z'), 1).toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(addMonths(new Date('2026-12-15T00:00:00Z'), 1).toISOString()).toBe('2027-01-15T00:00:00.000Z');
  });
  it('CSV fields are quoted when needed and formulas neutralised', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('=1+1')).toBe(`"'=1+1"`);
    expect(csvField('-5')).toBe(`"'-5"`);
    expect(csvField(null)).toBe('');
    expect(csvField(12.5)).toBe('12.5');
  });
});
