// GET /api/space/{id}/settings: the space's settings (kind 'space'), built by the settings service from the
// tier that applies to the space's owner.
import type { Context } from 'hono';
import type { Settings } from '../../../contract/schemas/settings';
import type { AppEnv } from '../../http/env';
import { buildSettings } from '../settings/service';
import type { SpaceRow } from './repository';
import { ownerPlan } from './service';

export async function spaceSettings(c: Context<AppEnv>, space: SpaceRow): Promise<Settings> {
  const deps = c.get('deps');
  const plan = await ownerPlan(deps.db, space.owner_id);
  return buildSettings(deps, 'space', plan.tier);
}
