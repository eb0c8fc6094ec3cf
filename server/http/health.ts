import { Hono } from 'hono';
import type { AppEnv } from './env';

export const healthRoutes = new Hono<AppEnv>().get('/', async (c) => {
  await c.get('deps').db.query('SELECT 1');
  return c.json({ status: 'ok', database: c.get('deps').db.kind });
});
