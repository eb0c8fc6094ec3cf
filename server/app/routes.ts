// Every domain router, mounted under /api by server/app/app.ts. Add one import and one line per router.
// The facts the routes state (routeFacts: plan gates, creating calls, OpenAPI) are collected from these routers.
import { Hono } from 'hono';
import type { AppEnv } from '../http/env';
import { assertAllDeclared, declaredRoutes } from '../http/route-facts';
import { healthRoutes } from './health';
import { spacesRoutes } from '../domains/spaces/routes';
import { authRoutes } from '../domains/auth/routes';
import { usersRoutes } from '../domains/users/routes';
import { settingsRoutes } from '../domains/settings/routes';
import { adminRoutes } from '../domains/admin/routes';
import { projectsRoutes } from '../domains/projects/routes';
import { peaksRoutes } from '../domains/projects/peaks/routes';
import { deliverablesRoutes, hlsRoutes } from '../domains/deliverables/routes';
import { demoRoutes } from '../domains/demo/routes';
import { libraryRoutes } from '../domains/library/routes';
import { filesRoutes } from './files';
import { toolsRoutes } from '../domains/tools/routes';
import { paymentsRoutes } from '../domains/billing/routes';
import { glossaryRoutes } from '../domains/glossaries/routes';
import { supportAdminRoutes, supportRoutes } from '../domains/support/routes';
import { feedbackAdminRoutes, surveyAdminRoutes, surveyRoutes } from '../domains/feedback/routes';
import { apiKeyRoutes } from '../domains/apikeys/routes';
import { webhookRoutes } from '../domains/webhooks/routes';
import { castRoutes } from '../domains/cast/routes';
import { shopRoutes } from '../domains/shop/routes';
import { shopBillingRoutes } from '../domains/shop-billing/routes';
import { shopProductsRoutes } from '../domains/shop/import/routes';
import { shopPublishRoutes } from '../domains/shop/publish/routes';
import { batchRoutes } from '../domains/batches/routes';
import { extractAudioRoutes, voicePresetRoutes, voiceTutorialRoutes } from '../domains/voices/routes';

export type Mount = { path: string; router: Hono<AppEnv> };

export const MOUNTS: Mount[] = [
  { path: '/health', router: healthRoutes },
  { path: '/space', router: spacesRoutes },
  { path: '/space', router: webhookRoutes },
  { path: '/space', router: castRoutes },
  { path: '/auth', router: authRoutes },
  { path: '/shop/publish', router: shopPublishRoutes },
  { path: '/shop', router: shopRoutes },
  { path: '/shop/billing', router: shopBillingRoutes },
  { path: '/shop', router: shopProductsRoutes },
  { path: '/users', router: usersRoutes },
  { path: '/users/settings/api', router: apiKeyRoutes },
  { path: '/settings', router: settingsRoutes },
  { path: '/admin', router: adminRoutes },
  { path: '/project/demo', router: demoRoutes },
  { path: '/project', router: projectsRoutes },
  { path: '/project', router: peaksRoutes },
  { path: '/project', router: deliverablesRoutes },
  { path: '/deliverables', router: hlsRoutes },
  { path: '/batch', router: batchRoutes },
  { path: '/library', router: libraryRoutes },
  { path: '/files', router: filesRoutes },
  { path: '/tools', router: toolsRoutes },
  { path: '/payments', router: paymentsRoutes },
  { path: '/glossary', router: glossaryRoutes },
  { path: '/voice_preset', router: voicePresetRoutes },
  { path: '/library', router: extractAudioRoutes },
  { path: '/users', router: voiceTutorialRoutes },
  { path: '/support', router: supportRoutes },
  { path: '/admin/support', router: supportAdminRoutes },
  { path: '/survey', router: surveyRoutes },
  { path: '/admin/feedback', router: feedbackAdminRoutes },
  { path: '/admin/survey', router: surveyAdminRoutes },
];

/** Every route of the mounted routers that states its facts (paths under /api, in Hono's syntax), in order. */
export const DECLARED_ROUTES = (() => {
  const mounted = new Hono<AppEnv>();
  for (const m of MOUNTS) mounted.route(m.path, m.router);
  const declared = declaredRoutes(mounted.routes);
  assertAllDeclared(declared);
  return declared;
})();
