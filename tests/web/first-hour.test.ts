// The browser-side rules of issue 34 (a customer's first hour), as pure functions: layout by width, the one
// formatter in the user's locale, the tour card kept on screen and pointing at its element, the sidebar without
// operator links, claims from the configured engines, what Generate spends, upload mistakes named, the payment
// confirmation, and the status words.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createStore } from 'jotai';
import { statusLabel } from '../../contract/statuses';
import type { User } from '../../contract/schemas/user';
import { sidebarBanners, sidebarItems, type SidebarInput } from '../../src/app/sidebar-items';
import { paymentConfirmation } from '../../src/app/payment-return';
import { generateCost } from '../../src/features/editor/components/EditorView';
import { placeCard } from '../../src/features/onboarding/Tour';
import { uploadErrorText, UPLOAD_TEXTS } from '../../src/features/projects/hooks/useVideoUpload';
import { languagesClaim } from '../../src/lib/claims';
import { deviceTypeFromWidth, watchDeviceType } from '../../src/lib/device';
import { formatDate, formatDateTime, formatMinutes, formatMoney, formatNumber } from '../../src/lib/format';
import { deviceTypeAtom } from '../../src/lib/state';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('layout by width, not the user agent', () => {
  it('classes widths: phone under 640, tablet under 1024, desktop from 1024', () => {
    expect([360, 390, 639, 640, 820, 1023, 1024, 1440].map(deviceTypeFromWidth)).toEqual(
      ['mobile', 'mobile', 'mobile', 'tablet', 'tablet', 'tablet', 'desktop', 'desktop'],
    );
  });

  it('follows a resize of the window while the app reads it', () => {
    const store = createStore();
    const seen: string[] = [];
    const unsub = store.sub(deviceTypeAtom, () => seen.push(store.get(deviceTypeAtom)));
    const width = vi.spyOn(window, 'innerWidth', 'get');
    width.mockReturnValue(390);
    window.dispatchEvent(new Event('resize'));
    width.mockReturnValue(1440);
    window.dispatchEvent(new Event('resize'));
    unsub();
    expect(seen).toEqual(['mobile', 'desktop']);
    const calls: string[] = [];
    const stop = watchDeviceType((d) => calls.push(d));
    width.mockReturnValue(820);
    window.dispatchEvent(new Event('resize'));
    stop();
    width.mockReturnValue(390);
    window.dispatchEvent(new Event('resize'));
    expect(calls).toEqual(['tablet']);
  });
});

describe('one formatter in the user\'s locale', () => {
  const locale = (l: string) => {
    vi.spyOn(navigator, 'languages', 'get').mockReturnValue([l]);
    vi.spyOn(navigator, 'language', 'get').mockReturnValue(l);
  };
  it('writes dates, numbers and money as the locale does', () => {
    locale('de-DE');
    expect(formatDate('2026-11-27T10:00:00Z')).toBe(new Intl.DateTimeFormat('de-DE', { year: 'numeric', month: 'short', day: 'numeric' }).format(new Date('2026-11-27T10:00:00Z')));
    expect(formatNumber(2003)).toBe('2.003');
    expect(formatMoney(49, 'usd')).toBe(new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 }).format(49));
    expect(formatMoney(49, 'usd')).toMatch(/^49\s\$$/);
    expect(formatMinutes(2003)).toBe('2.003 minutes');
    locale('en-US');
    expect(formatDate('2026-11-27T10:00:00Z')).toBe('Nov 27, 2026');
    expect(formatNumber(2003)).toBe('2,003');
    expect(formatMoney(5000, 'usd')).toBe('$5,000');
    expect(formatMoney(1.5, 'usd')).toBe('$1.50');
    expect(formatMinutes(1)).toBe('1 minute');
    expect(formatMinutes(0.25, { short: true })).toBe('0.2 min');
    expect(formatDateTime('not a date')).toBe('');
  });
});

describe('the tour card', () => {
  const rect = (top: number, left: number, width: number, height: number) => ({ top, left, width, height, right: left + width, bottom: top + height });
  it('stays inside the window and flips to the side with room; its arrow points at the element', () => {
    // The timeline at the bottom of a 820x1180 window asks to be explained from above: there is room there.
    const above = placeCard(rect(900, 20, 780, 200), 'above', { w: 300, h: 180 }, 820, 1180);
    expect(above.placement).toBe('above');
    expect(above.top + 180).toBeLessThanOrEqual(900);
    expect(above.left + above.arrow).toBeCloseTo(20 + 390, 0);
    // An element at the very top: no room above, the card goes below it.
    const flipped = placeCard(rect(10, 10, 100, 30), 'above', { w: 300, h: 180 }, 820, 1180);
    expect(flipped.placement).toBe('below');
    expect(flipped.top).toBeGreaterThanOrEqual(40);
    // Right of an element near the right edge of a phone: flips, and never leaves the 390 px window.
    const phone = placeCard(rect(100, 300, 80, 40), 'right', { w: 300, h: 180 }, 390, 844);
    expect(phone.left).toBeGreaterThanOrEqual(8);
    expect(phone.left + 300).toBeLessThanOrEqual(390 - 8);
  });
});

describe('the sidebar shows customers no operator links', () => {
  const base: SidebarInput = {
    spaceId: 's1', features: undefined, plan: 'trial', device: 'desktop', whiteLabel: false, hasTeamspaceDialog: true,
    supportEmail: '', helpCenterUrl: '', videoAdsUrl: 'https://ads.example', email: 'a@example.com',
  };
  it('hides Help Center and Get help when not configured, and Get help inside the platform', () => {
    const ids = (i: SidebarInput) => sidebarItems(i).map((x) => x.id);
    expect(ids(base)).not.toContain('help_center');
    expect(ids(base)).not.toContain('get_help');
    expect(ids({ ...base, supportEmail: 'help@example.com', helpCenterUrl: 'https://help.example' })).toEqual(
      expect.arrayContaining(['help_center', 'get_help']),
    );
    expect(ids({ ...base, supportEmail: 'help@example.com', embedded: true })).not.toContain('get_help');
    expect(sidebarItems({ ...base, embedded: true }).find((x) => x.id === 'profile')?.label).toBe('Account');
  });
  it('links the admin area for superusers only', () => {
    expect(sidebarItems({ ...base, superuser: true }).find((x) => x.id === 'admin')?.href).toBe('/admin');
    expect(sidebarItems(base).some((x) => x.id === 'admin')).toBe(false);
  });
  it('promises the languages this install offers, never a fixed number', () => {
    const trial = sidebarBanners({ features: undefined, plan: 'trial', whiteLabel: false, dismissed: [], videoAdsUrl: '', languageCount: 3 });
    expect(trial[0].text).toBe('Translate any video length into 3 languages. Upgrade for more minutes.');
    expect(languagesClaim(1)).toBe('Translate any video length into another language.');
    expect(languagesClaim(undefined)).not.toMatch(/\d/);
  });
});

describe('money and minutes', () => {
  it('Generate spends the whole video first, then the changed segments, rounded up to a minute', () => {
    const segs = [{ start: 0, end: 30, status: 'done' }, { start: 30, end: 75, status: 'updated' }, { start: 75, end: 80, status: 'done' }];
    expect(generateCost({ duration: 90, translated_video: null }, segs, new Set(), (i) => `s${i}`)).toBe(2);
    expect(generateCost({ duration: 90, translated_video: 'v.mp4' }, segs, new Set(), (i) => `s${i}`)).toBe(1);
    expect(generateCost({ duration: 90, translated_video: 'v.mp4' }, segs, new Set(['s0', 's2']), (i) => `s${i}`)).toBe(2);
    expect(generateCost({ duration: 90, translated_video: 'v.mp4' }, segs.map((s) => ({ ...s, status: 'done' })), new Set(), (i) => `s${i}`)).toBe(0);
  });
  it('confirms a plan change by its name, and a minutes purchase as such', () => {
    const plan = { id: 'price_pro', product_id: 'prod', interval: 'month', recurring: true, tier: 'creator_pro', name: 'Creator Pro' } as const;
    const sub = { id: 'sub', status: 'active', current_period_end: null, payments_collection_paused: false, cancel_at_period_end: false, plan } as const;
    const before = { subscription: null } as unknown as User;
    const after = { subscription: sub } as unknown as User;
    expect(paymentConfirmation(before, after)).toBe('You are now on the Creator Pro plan. Its minutes are in your Teamspace.');
    expect(paymentConfirmation(after, after)).toBe('Payment received: your minutes are updated.');
    // The plan's webhooks arrived before the browser came back: the latest payment names the plan.
    expect(paymentConfirmation(after, after, ['Creator Pro Monthly'])).toMatch(/^You are now on the Creator Pro plan/);
    expect(paymentConfirmation(after, after, ['Extra minutes'])).toBe('Payment received: your minutes are updated.');
  });
});

describe('words', () => {
  it('names the user\'s upload mistakes, not "Server error"', () => {
    expect(uploadErrorText(new Error('The file is empty (0 bytes)'))).toBe(UPLOAD_TEXTS.empty);
    expect(uploadErrorText(new Error('This file is empty'))).toBe(UPLOAD_TEXTS.empty);
    expect(uploadErrorText(new Error('The file is not a readable video or audio file (it may be damaged or not a media file)'))).toBe(UPLOAD_TEXTS.notMedia);
    expect(uploadErrorText(new Error('Upload failed: the connection was lost'))).toBe('Upload failed: the connection was lost');
  });
  it('says "Transcribing video"', () => {
    expect(statusLabel('transcription_started')).toBe('Transcribing video');
  });
});
