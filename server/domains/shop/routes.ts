// /api/shop/webhooks: the platform's webhooks, one URL for every topic (the topic is in X-Shopify-Topic), verified
// by the library (shopify.webhooks.validate: HMAC-SHA256 of the raw body with the app secret, and the headers).
import { Hono } from 'hono';
import { ApiError } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { shopifyOf } from './library';
import { handleShopWebhook } from './webhooks';
import { DATABASE_DOWN, routeFacts } from '../../http/route-facts';

const MAX_WEBHOOK_BYTES = 1024 * 1024;

export const shopRoutes = new Hono<AppEnv>().post('/webhooks', routeFacts({
  summary: "The platform's webhooks (app/uninstalled, customers/data_request, customers/redact, shop/redact), verified by HMAC with the app secret",
  public: true,
  errors: {
    400: 'A malformed webhook (its headers or body)',
    401: 'Invalid webhook signature',
    404: 'The embedded app is not configured on this server',
    503: DATABASE_DOWN,
  },
}), async (c) => {
  const deps = c.get('deps');
  const shopify = shopifyOf(deps);
  if (!shopify) throw new ApiError(404, 'The embedded app is not configured on this server');
  if (Number(c.req.header('content-length') ?? '0') > MAX_WEBHOOK_BYTES) throw new ApiError(413, 'Request body too large');
  const rawBody = await c.req.text();
  if (rawBody.length > MAX_WEBHOOK_BYTES) throw new ApiError(413, 'Request body too large');
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const check = await shopify.webhooks.validate({
    rawBody,
    rawRequest: { headers, method: 'POST', url: new URL(c.req.url).pathname },
  });
  if (!check.valid) {
    // A bad or missing signature is 401 (the platform's documented answer); missing headers 400.
    if (check.reason === 'invalid_hmac' || check.reason === 'missing_hmac') throw new ApiError(401, 'Invalid webhook signature');
    throw new ApiError(400, 'Malformed webhook');
  }
  await handleShopWebhook(deps, { topic: check.topic, domain: check.domain, webhookId: check.webhookId, rawBody });
  return c.json({ ok: true });
});
