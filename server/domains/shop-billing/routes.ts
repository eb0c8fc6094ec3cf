// /api/shop/billing: a shop Teamspace's plan and extra minutes through the platform's billing (issue 32 part 5;
// server/domains/billing/platform-billing.ts). The return from the platform's confirmation page has no session
// (the platform redirects the top window): it only re-reads the shop's subscriptions from the platform.
import { Hono } from 'hono';
import { ShopMinutesRequest, ShopSubscribeRequest } from '../../../contract/schemas/shop-billing';
import { requireUser } from '../../http/auth';
import { requireSpaceAccess, spaceIdFromQuery } from '../../http/access';
import type { AppEnv } from '../../http/env';
import { ApiError } from '../../http/errors';
import { jsonBody } from '../../http/validate';
import { billingStatus, buyMinutes, returnFromConfirmation, subscribePlan, syncFromPlatform } from '../billing/platform-billing';

const DOMAIN_RE = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/i;

export const shopBillingRoutes = new Hono<AppEnv>()
  .get('/return', async (c) => {
    const shop = c.req.query('shop') ?? '';
    if (!DOMAIN_RE.test(shop)) throw new ApiError(400, 'Unknown shop');
    return c.redirect(await returnFromConfirmation(c.get('deps'), shop.toLowerCase()), 302);
  })
  .use('*', requireUser)
  .get('/status', async (c) => {
    const space = await requireSpaceAccess(c, spaceIdFromQuery(c));
    return c.json(await billingStatus(c.get('deps'), space.id));
  })
  .post('/subscribe', async (c) => {
    const space = await requireSpaceAccess(c, spaceIdFromQuery(c));
    const b = await jsonBody(c, ShopSubscribeRequest);
    return c.json(await subscribePlan(c.get('deps'), c.get('user'), space.id, b.tier, new URL(c.req.url).origin));
  })
  .post('/sync', async (c) => {
    const space = await requireSpaceAccess(c, spaceIdFromQuery(c));
    const deps = c.get('deps');
    await syncFromPlatform(deps, space.id);
    return c.json(await billingStatus(deps, space.id));
  })
  .post('/minutes', async (c) => {
    const space = await requireSpaceAccess(c, spaceIdFromQuery(c));
    const b = await jsonBody(c, ShopMinutesRequest);
    return c.json(await buyMinutes(c.get('deps'), c.get('user'), space.id, b));
  });
