// /api/shop/billing: a shop Teamspace's plan and extra minutes through the platform's billing (issue 32 part 5;
// server/domains/billing/platform-billing.ts). The return from the platform's confirmation page has no session
// (the platform redirects the top window): it only re-reads the shop's subscriptions from the platform.
import { Hono } from 'hono';
import { ShopMinutesRequest, ShopSubscribeRequest } from '../../../contract/schemas/shop-billing';
import { spaceIdFromQuery } from '../../http/access';
import { requireSpaceAccess } from '../spaces/access';
import type { AppEnv } from '../../http/env';
import { ApiError } from '../../http/errors';
import { jsonBody } from '../../http/validate';
import { billingStatus, buyMinutes, returnFromConfirmation, subscribePlan, syncFromPlatform } from '../billing/platform-billing';
import { routeFacts, SPACE_Q } from '../../http/route-facts';

const NOT_CONFIGURED = 'Platform billing is not configured on this server';
const REFUSED = 'The platform refused it (its user_errors are answered)';
const PLATFORM_FAILED = 'The platform answered without the expected result';

const DOMAIN_RE = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/i;

export const shopBillingRoutes = new Hono<AppEnv>()
  .get('/return', routeFacts({
    summary: "The return from the platform's confirmation page of a plan (shop=<domain>): re-checks the shop's subscriptions, then redirects to the app",
    status: 302,
    public: true,
    errors: { 400: 'Not a shop domain', 404: 'Unknown shop', 503: `${NOT_CONFIGURED}, or the database is not reachable right now (see Retry-After)` },
  }), async (c) => {
    const shop = c.req.query('shop') ?? '';
    if (!DOMAIN_RE.test(shop)) throw new ApiError(400, 'Unknown shop');
    return c.redirect(await returnFromConfirmation(c.get('deps'), shop.toLowerCase()), 302);
  })
  .get('/status', routeFacts({
    summary: 'The platform billing of a shop Teamspace',
    response: 'ShopBillingStatus',
    query: [SPACE_Q],
    errors: { 503: NOT_CONFIGURED },
  }), async (c) => {
    const space = await requireSpaceAccess(c, spaceIdFromQuery(c));
    return c.json(await billingStatus(c.get('deps'), space.id));
  })
  .post('/subscribe', routeFacts({
    summary: 'Subscribe the shop to a plan (answers the platform\'s confirmation page)',
    body: 'ShopSubscribeRequest',
    response: 'ShopSubscribeResponse',
    query: [SPACE_Q],
    errors: { 400: REFUSED, 502: PLATFORM_FAILED, 503: NOT_CONFIGURED },
  }), async (c) => {
    const space = await requireSpaceAccess(c, spaceIdFromQuery(c));
    const b = await jsonBody(c, ShopSubscribeRequest);
    return c.json(await subscribePlan(c.get('deps'), c.get('user'), space.id, b.tier, new URL(c.req.url).origin));
  })
  .post('/sync', routeFacts({
    summary: 'Re-check the shop\'s subscriptions on the platform, then the status',
    response: 'ShopBillingStatus',
    query: [SPACE_Q],
    errors: { 503: NOT_CONFIGURED },
  }), async (c) => {
    const space = await requireSpaceAccess(c, spaceIdFromQuery(c));
    const deps = c.get('deps');
    await syncFromPlatform(deps, space.id);
    return c.json(await billingStatus(deps, space.id));
  })
  .post('/minutes', routeFacts({
    summary: 'Buy minutes as a usage charge of the shop\'s subscription (once per request_id)',
    body: 'ShopMinutesRequest',
    response: 'ShopMinutesResponse',
    query: [SPACE_Q],
    errors: {
      400: REFUSED,
      402: 'The shop has no plan, or the charge would pass the usage cap (code usage_cap_reached, with raise_cap_url)',
      502: PLATFORM_FAILED,
      503: NOT_CONFIGURED,
    },
  }), async (c) => {
    const space = await requireSpaceAccess(c, spaceIdFromQuery(c));
    const b = await jsonBody(c, ShopMinutesRequest);
    return c.json(await buyMinutes(c.get('deps'), c.get('user'), space.id, b));
  });
