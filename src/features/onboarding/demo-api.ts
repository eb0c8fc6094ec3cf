// The demo project calls (spec section 7: GET /api/project/demo/covers, POST /api/project/demo {dst_lang}) and
// who is offered it (spec section 4: trial users in the demo_project group).
import type { ScopedMutator } from 'swr';
import type { Project } from '../../../contract/schemas/project';
import { call, clientWith } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';
import { inDemoGroup, type TourUser } from './steps';

export const DEMO_COVERS_KEY = apiKey('/api/project/demo/covers');

/** The demo view shows to users in the demo_project group (not its control option) on the trial plan. */
export function demoOffered(user: Pick<TourUser, 'feature_groups' | 'subscription'> & { subscription: { plan: { tier: string } } | null }): boolean {
  if (!inDemoGroup(user)) return false;
  const tier = user.subscription?.plan.tier ?? 'trial';
  return tier === 'trial' || tier === 'free';
}

export function useDemoCovers(enabled: boolean) {
  return useApiGet('/api/project/demo/covers', enabled ? {} : null);
}

/** Opens (makes, or finds again) the user's demo project in `dstLang`. */
export async function openDemo(dstLang: string, mutate: ScopedMutator): Promise<Project> {
  const p = await call(clientWith({ spaceId: false }).POST('/api/project/demo', { body: { dst_lang: dstLang } }));
  void mutate(DEMO_COVERS_KEY);
  return p;
}
