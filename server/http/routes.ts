// Every domain router, mounted under /api by server/http/app.ts. Add one import and one line per router.
import type { Hono } from 'hono';
import type { AppEnv } from './env';
import { healthRoutes } from './health';

export type Mount = { path: string; router: Hono<AppEnv> };

export const MOUNTS: Mount[] = [
  { path: '/health', router: healthRoutes },
];
