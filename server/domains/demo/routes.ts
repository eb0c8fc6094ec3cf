// /api/project/demo: the demo project of spec section 7 (POST demo {dst_lang}; GET demo/covers).
import { Hono } from 'hono';
import { DemoRequest } from '../../../contract/schemas/onboarding';
import { requireUser } from '../../http/auth';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { demoCovers, openDemo } from './service';

export const demoRoutes = new Hono<AppEnv>()
  .get('/covers', requireUser, async (c) => c.json(await demoCovers(c.get('deps'), c.get('user'))))
  .post('/', requireUser, async (c) => {
    const body = await jsonBody(c, DemoRequest);
    const r = await openDemo(c.get('deps'), c.get('user'), body.dst_lang);
    return c.json(r.project, r.created ? 201 : 200);
  });
