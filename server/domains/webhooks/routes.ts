// /api/space/{id}/webhooks: the webhook endpoints of a space and their delivery log, for the space owner.
import { Hono } from 'hono';
import { CreateWebhookRequest, UpdateWebhookRequest } from '../../../contract/schemas/api';
import { requireSpaceAccess } from '../../http/access';
import { requireUser } from '../../http/auth';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import * as svc from './service';

const owned = async (c: Parameters<typeof requireSpaceAccess>[0]) => (await requireSpaceAccess(c, c.req.param('id'), { owner: true })).id;

export const webhookRoutes = new Hono<AppEnv>()
  .use('/:id/webhooks', requireUser)
  .use('/:id/webhooks/*', requireUser)
  .post('/:id/webhooks', async (c) => {
    const spaceId = await owned(c);
    const body = await jsonBody(c, CreateWebhookRequest);
    return c.json(await svc.createEndpoint(c.get('deps'), c.get('user'), spaceId, body), 201);
  })
  .get('/:id/webhooks', async (c) => c.json({ data: await svc.listEndpoints(c.get('deps').db, await owned(c)) }))
  .get('/:id/webhooks/:wid', async (c) => c.json(await svc.getEndpoint(c.get('deps').db, await owned(c), c.req.param('wid'))))
  .patch('/:id/webhooks/:wid', async (c) => {
    const spaceId = await owned(c);
    const body = await jsonBody(c, UpdateWebhookRequest);
    return c.json(await svc.updateEndpoint(c.get('deps'), spaceId, c.req.param('wid'), body));
  })
  .delete('/:id/webhooks/:wid', async (c) => {
    await svc.deleteEndpoint(c.get('deps').db, await owned(c), c.req.param('wid'));
    return c.body(null, 204);
  })
  .get('/:id/webhooks/:wid/deliveries', async (c) =>
    c.json({ data: await svc.listDeliveries(c.get('deps').db, await owned(c), c.req.param('wid')) }),
  );
