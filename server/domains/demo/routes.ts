// /api/project/demo: the demo project of spec section 7 (POST demo {dst_lang}; GET demo/covers).
import { Hono } from 'hono';
import { DemoRequest } from '../../../contract/schemas/onboarding';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { demoCovers, openDemo } from './service';
import { routeFacts } from '../../http/route-facts';

export const demoRoutes = new Hono<AppEnv>()
  .get('/covers', routeFacts({
    summary: 'The demo video and the languages it can be opened in (trial users in the demo_project group)',
    response: 'DemoCovers',
    errors: { 503: "The demo's speech model is not installed on this server" },
  }), async (c) => c.json(await demoCovers(c.get('deps'), c.get('user'))))
  .post('/', routeFacts({
    summary: 'Open the demo project in a language: made (201), transcribed, translated and dubbed at no cost, or the one made before (200)',
    body: 'DemoRequest',
    response: 'Project',
    status: 201,
    example: { dst_lang: 'es' },
    errors: { 400: 'The demo cannot be dubbed into this language on this server', 503: "The demo's speech model is not installed on this server" },
  }), async (c) => {
    const body = await jsonBody(c, DemoRequest);
    const r = await openDemo(c.get('deps'), c.get('user'), body.dst_lang);
    return c.json(r.project, r.created ? 201 : 200);
  });
