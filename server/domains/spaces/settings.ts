// GET /api/space/{id}/settings: the space's settings (kind 'space'), built by the settings service from the
// entitlements of the space owner's plan.
import type { Settings } from '../../../contract/schemas/settings';
import type { AppDeps } from '../../deps';
import { userEntitlements } from '../billing/entitlements';
import { buildSettings } from '../settings/service';
import { isAiRewriteConfigured } from '../tools/service';
import type { SpaceRow } from './repository';

export async function spaceSettings(deps: AppDeps, space: SpaceRow): Promise<Settings> {
  return buildSettings(deps, 'space', await userEntitlements(deps.db, space.owner_id, { llmConfigured: isAiRewriteConfigured(deps) }));
}
