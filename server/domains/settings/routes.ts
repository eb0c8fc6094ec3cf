// /api/settings (public): space settings for a member (not a superuser) with ?space_id, else user settings
// when signed in, else app settings with the trial defaults.
import { Hono } from 'hono';
import { optionalUser } from '../../http/auth';
import type { AppEnv } from '../../http/env';
import { effectiveTierOf, getUserSubscriptionCached } from '../billing/plan';
import { optionalSpaceIdFromQuery, requireSpaceAccess } from '../spaces/guard';
import { buildSettings } from './service';

export const settingsRoutes = new Hono<AppEnv>().get('/', async (c) => {
  const deps = c.get('deps');
  const user = await optionalUser(c);
  if (!user) return c.json(await buildSettings(deps, 'app', 'trial'));
  const spaceId = optionalSpaceIdFromQuery(c);
  if (spaceId !== null && !user.is_superuser) {
    const space = await requireSpaceAccess(c, spaceId);
    const tier = effectiveTierOf(await getUserSubscriptionCached(deps.db, space.owner_id));
    return c.json(await buildSettings(deps, 'space', tier));
  }
  const tier = effectiveTierOf(await getUserSubscriptionCached(deps.db, user.id));
  return c.json(await buildSettings(deps, 'user', tier));
});
