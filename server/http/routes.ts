// Every domain router, mounted under /api by server/http/app.ts. Add one import and one line per router.
import type { Hono } from 'hono';
import type { AppEnv } from './env';
import { healthRoutes } from './health';
import { spacesRoutes } from '../domains/spaces/routes';
import { authRoutes } from '../domains/auth/routes';
import { usersRoutes } from '../domains/users/routes';
import { settingsRoutes } from '../domains/settings/routes';
import { adminRoutes } from '../domains/admin/routes';
import { projectsRoutes } from '../domains/projects/routes';
import { libraryRoutes } from '../domains/library/routes';
import { filesRoutes } from '../storage/routes';
import { toolsRoutes } from '../domains/tools/routes';

export type Mount = { path: string; router: Hono<AppEnv> };

export const MOUNTS: Mount[] = [
  { path: '/health', router: healthRoutes },
  { path: '/space', router: spacesRoutes },
  { path: '/auth', router: authRoutes },
  { path: '/users', router: usersRoutes },
  { path: '/settings', router: settingsRoutes },
  { path: '/admin', router: adminRoutes },
  { path: '/project', router: projectsRoutes },
  { path: '/library', router: libraryRoutes },
  { path: '/files', router: filesRoutes },
  { path: '/tools', router: toolsRoutes },
];
