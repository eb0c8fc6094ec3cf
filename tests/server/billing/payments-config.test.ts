// STRIPE_* and PAYMENTS_PROVIDER are validated at start-up: a bad value stops the server with a message naming it.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/config';

const base = { JWT_SECRET: 'x'.repeat(40) };
const stripe = {
  ...base, STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_WEBHOOK_SECRET: 'whsec_abc', STRIPE_PRICE_CREATOR_MONTH: 'price_c_m', STRIPE_PRICE_MINUTES: 'price_min',
};

describe('payments configuration', () => {
  it('is local by default and stripe when a secret key is set', () => {
    expect(loadConfig(base).payments).toEqual({ provider: 'local', stripe: null });
    const c = loadConfig({ ...stripe, STRIPE_API_URL: 'http://127.0.0.1:12111', STRIPE_ENTERPRISE_PRODUCTS: 'prod_a, prod_b' });
    expect(c.payments.provider).toBe('stripe');
    expect(c.payments.stripe).toMatchObject({
      secretKey: 'sk_test_abc', webhookSecret: 'whsec_abc', planPrices: { creator_month: 'price_c_m' }, minutesPrice: 'price_min',
      enterpriseProducts: ['prod_a', 'prod_b'], api: { host: '127.0.0.1', port: 12111, protocol: 'http' },
    });
    expect(loadConfig({ ...stripe, PAYMENTS_PROVIDER: 'local' }).payments.provider).toBe('local');
  });

  it.each([
    [{ ...base, PAYMENTS_PROVIDER: 'paypal' }, /PAYMENTS_PROVIDER/],
    [{ ...base, PAYMENTS_PROVIDER: 'stripe' }, /STRIPE_SECRET_KEY is required/],
    [{ ...stripe, STRIPE_SECRET_KEY: 'pk_test_abc' }, /STRIPE_SECRET_KEY must be/],
    [{ ...stripe, STRIPE_WEBHOOK_SECRET: '' }, /STRIPE_WEBHOOK_SECRET is required/],
    [{ ...stripe, STRIPE_WEBHOOK_SECRET: 'secret' }, /whsec_/],
    [{ ...stripe, STRIPE_PRICE_CREATOR_MONTH: 'prod_x' }, /STRIPE_PRICE_CREATOR_MONTH must be a Stripe price id/],
    [{ ...stripe, STRIPE_PRICE_CREATOR_MONTH: '' }, /at least one plan price/],
    [{ ...stripe, STRIPE_PRICE_BUSINESS_MONTH: 'price_c_m' }, /its own price id/],
    [{ ...stripe, STRIPE_PRICE_MINUTES: 'price_c_m' }, /STRIPE_PRICE_MINUTES must differ/],
    [{ ...stripe, STRIPE_ENTERPRISE_PRODUCTS: 'price_x' }, /STRIPE_ENTERPRISE_PRODUCTS/],
    [{ ...stripe, STRIPE_API_URL: 'ftp://x' }, /STRIPE_API_URL/],
  ])('refuses %o', (env, msg) => {
    expect(() => loadConfig(env as Record<string, string>)).toThrow(ConfigError);
    expect(() => loadConfig(env as Record<string, string>)).toThrow(msg);
  });
});
