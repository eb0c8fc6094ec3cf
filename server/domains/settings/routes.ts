// /api/settings (public): space settings for a member (not a superuser) with ?space_id, else user settings
// when signed in, else app settings with the trial defaults.
import { Hono } from 'hono';
import { optionalUser } from '../../http/auth';
import type { AppEnv } from '../../http/env';
import { entitlementsOf, entitlementsOfSubscription, staffEntitlements } from '../billing/entitlements';
import { getUserSubscriptionCached } from '../billing/plan';
import { isAiRewriteConfigured } from '../tools/service';
import { optionalSpaceIdFromQuery } from '../../http/access';
import { requireSpaceAccess } from '../spaces/access';
import { buildSettings } from './service';
import { pendingSurveys } from '../feedback/service';
import { DATABASE_DOWN, routeFacts } from '../../http/route-facts';

export const settingsRoutes = new Hono<AppEnv>().get('/', routeFacts({
  summary: 'Settings of the app, the user or a space (features, languages, limits)',
  response: 'Settings',
  query: [{ name: 'space_id', description: 'The Teamspace' }],
  public: true,
  errors: {
    400: 'The account of the bearer token is deactivated (Inactive user)',
    401: 'A bearer token was sent that does not hold (without one, the app\'s settings are answered)',
    503: DATABASE_DOWN,
  },
}), async (c) => {
  const deps = c.get('deps');
  const user = await optionalUser(c);
  const o = { llmConfigured: isAiRewriteConfigured(deps) };
  if (!user) return c.json(await buildSettings(deps, 'app', entitlementsOf(null, o)));
  const spaceId = optionalSpaceIdFromQuery(c);
  if (spaceId !== null && !user.is_superuser) {
    const space = await requireSpaceAccess(c, spaceId);
    const s = await buildSettings(deps, 'space', await entitlementsOfSubscription(deps.db, await getUserSubscriptionCached(deps.db, space.owner_id), o));
    return c.json({ ...s, surveys: await pendingSurveys(deps.db, user.id) });
  }
  const own = await entitlementsOfSubscription(deps.db, await getUserSubscriptionCached(deps.db, user.id), o);
  // Staff are not limited by a plan (server/app/gates.ts lets them through): their settings say so.
  const s = await buildSettings(deps, 'user', user.is_superuser ? staffEntitlements(own, o) : own);
  // The active surveys this user has neither answered nor dismissed.
  return c.json({ ...s, surveys: await pendingSurveys(deps.db, user.id) });
});
