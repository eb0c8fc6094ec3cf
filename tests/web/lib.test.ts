import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOAST_HIDE_MS, TOASTS_MAX, SNACKBARS_MAX } from '../../contract/constants';
import { ENVIRONMENT_NAMES, resolveEnvironment } from '../../src/lib/environments';
import { retryDelayMs, shouldRetry } from '../../src/lib/swr';
import { resetAppStore } from '../../src/lib/store';
import { addAnalyticsSink, analytics, projectAnalytics, track } from '../../src/lib/analytics';
import { deviceTypeFromUserAgent } from '../../src/lib/device';
import { ApiError } from '../../src/lib/http';
import { showSnackbar, snackbarsAtom } from '../../src/ui/snackbars';
import { showToast, toastsAtom } from '../../src/ui/toasts';

describe('environments', () => {
  it('has every environment with base, API and green API URLs', () => {
    for (const name of ['prod', 'prodWhite', 'qa', 'qaWhite', 'stg', 'stgWhite', 'tst', 'tstWhite']) {
      expect(ENVIRONMENT_NAMES).toContain(name);
      const env = resolveEnvironment(name, 'https://app.dubbing.studio');
      expect(env.baseUrl).toMatch(/^https:\/\//);
      expect(env.apiUrl).toMatch(/^https:\/\/.*\/api$/);
      expect(env.greenApiUrl).toMatch(/green/);
      expect(env.whiteLabel).toBe(name.endsWith('White'));
    }
  });

  it('uses the green API when the page origin contains "green"', () => {
    const blue = resolveEnvironment('prod', 'https://app.dubbing.studio');
    const green = resolveEnvironment('prod', 'https://green.app.dubbing.studio');
    expect(blue.activeApiUrl).toBe(blue.apiUrl);
    expect(green.activeApiUrl).toBe(green.greenApiUrl);
    expect(green.activeApiUrl).not.toBe(blue.activeApiUrl);
  });

  it('self-hosted default: same origin, /api', () => {
    const env = resolveEnvironment(undefined, 'http://studio.local:8080');
    expect(env).toMatchObject({ name: 'local', baseUrl: 'http://studio.local:8080', activeApiUrl: '/api' });
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(resolveEnvironment('nope', 'http://x').name).toBe('local');
    expect(err).toHaveBeenCalled();
    err.mockRestore();
  });
});

describe('query cache retry policy', () => {
  it('backs off from 1 s doubling up to 30 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000]);
  });
  it('retries 3 times, never 4xx answers or missing tokens', () => {
    const e500 = new ApiError({ status: 500, message: 'x' });
    expect([1, 2, 3, 4].map((n) => shouldRetry(e500, n))).toEqual([true, true, true, false]);
    expect(shouldRetry(new ApiError({ status: 404, message: 'x' }), 1)).toBe(false);
    expect(shouldRetry(new ApiError({ status: 504, message: 'Gateway Timeout', kind: 'network' }), 1)).toBe(true);
    expect(shouldRetry(new ApiError({ status: 0, message: 'request timeout', kind: 'auth' }), 1)).toBe(false);
  });
});

describe('device type', () => {
  it.each([
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148', 'mobile'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/120 Mobile Safari/537.36', 'mobile'],
    ['Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15', 'tablet'],
    ['Mozilla/5.0 (Linux; Android 13; SM-X200) AppleWebKit/537.36 Chrome/120 Safari/537.36', 'tablet'],
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120 Safari/537.36', 'desktop'],
    ['Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 Version/17.0 Safari/605.1.15', 'desktop'],
  ])('%s -> %s', (ua, kind) => {
    expect(deviceTypeFromUserAgent(ua)).toBe(kind);
  });
});

describe('analytics bus', () => {
  afterEach(() => {
    window.dataLayer = [];
  });

  it('pushes typed events to window.dataLayer', () => {
    window.dataLayer = [];
    analytics.registration('password');
    analytics.beginCheckout([{ item_id: 'creator_month', item_name: 'Creator Monthly', price: 20, quantity: 1 }]);
    expect(window.dataLayer).toEqual([
      { event: 'registration', method: 'password' },
      { ecommerce: null },
      {
        event: 'begin_checkout',
        ecommerce: { currency: 'USD', value: 20, items: [{ item_id: 'creator_month', item_name: 'Creator Monthly', price: 20, quantity: 1 }] },
      },
    ]);
  });

  it('never throws: a broken sink or data layer is swallowed', () => {
    const off = addAnalyticsSink(() => {
      throw new Error('sink down');
    });
    (window as unknown as { dataLayer: unknown }).dataLayer = { push: () => { throw new Error('gtm down'); } };
    expect(() => track('login', { method: 'oidc' })).not.toThrow();
    off();
  });

  it('builds the project analytics payload (duration rule max(1, round(min)))', () => {
    expect(
      projectAnalytics({
        id: 'p1', src_lang: 'en', dst_lang: 'de', duration: 20, glossary_id: null,
        src_srt_uploaded: false, dst_srt_uploaded: true, tts_provider: null,
      }),
    ).toEqual({ dictionary: false, dstLang: 'de', durationMin: 1, isSrtUploaded: true, locProjectId: 'p1', provider: 'NA', ownTts: false, srcLang: 'en' });
  });
});

describe('toasts and snackbars', () => {
  it('keeps at most 3 toasts (the newest) with the 5 s default', () => {
    const store = resetAppStore();
    for (let i = 1; i <= 5; i++) showToast(`t${i}`);
    const list = store.get(toastsAtom);
    expect(TOASTS_MAX).toBe(3);
    expect(TOAST_HIDE_MS).toBe(5000);
    expect(list.map((t) => t.content)).toEqual(['t3', 't4', 't5']);
  });

  it('keeps at most 2 snackbars, error by default', () => {
    const store = resetAppStore();
    showSnackbar('a');
    showSnackbar('b', { variant: 'success' });
    showSnackbar('c');
    const list = store.get(snackbarsAtom);
    expect(SNACKBARS_MAX).toBe(2);
    expect(list.map((s) => [s.message, s.variant])).toEqual([
      ['b', 'success'],
      ['c', 'error'],
    ]);
  });
});
