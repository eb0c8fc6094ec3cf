// /api/space/{id}/webhooks: the webhook endpoints of a space and their delivery log, for the space owner.
import { Hono, type Context } from 'hono';
import { CreateWebhookRequest, UpdateWebhookRequest } from '../../../contract/schemas/api';
import { requireSpaceAccess } from '../spaces/access';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import * as svc from './service';
import { routeFacts } from '../../http/route-facts';

const owned = async (c: Context<AppEnv>) => (await requireSpaceAccess(c, c.req.param('id'), { owner: true })).id;

export const webhookRoutes = new Hono<AppEnv>()
  .post('/:id/webhooks', routeFacts({
    summary: 'Add a webhook endpoint (owner; answers its signing secret)',
    body: 'CreateWebhookRequest',
    response: 'WebhookEndpointWithSecret',
    status: 201,
    example: { url: 'https://example.com/hooks/dubbing', events: ['transcript.ready', 'dub.ready', 'job.failed'] },
    creates: { startsJob: false },
  }), async (c) => {
    const spaceId = await owned(c);
    const body = await jsonBody(c, CreateWebhookRequest);
    return c.json(await svc.createEndpoint(c.get('deps'), c.get('user'), spaceId, body), 201);
  })
  .get('/:id/webhooks', routeFacts({ summary: 'Webhook endpoints of a Teamspace (owner)', response: 'WebhookList' }), async (c) => c.json({ data: await svc.listEndpoints(c.get('deps').db, await owned(c)) }))
  .get('/:id/webhooks/:wid', routeFacts({
    summary: 'One webhook endpoint with its secret (owner)',
    response: 'WebhookEndpointWithSecret',
  }), async (c) => c.json(await svc.getEndpoint(c.get('deps').db, await owned(c), c.req.param('wid'))))
  .patch('/:id/webhooks/:wid', routeFacts({
    summary: 'Update a webhook endpoint; {"enabled": true} re-enables a disabled one',
    body: 'UpdateWebhookRequest',
    response: 'WebhookEndpointWithSecret',
  }), async (c) => {
    const spaceId = await owned(c);
    const body = await jsonBody(c, UpdateWebhookRequest);
    return c.json(await svc.updateEndpoint(c.get('deps'), spaceId, c.req.param('wid'), body));
  })
  .delete('/:id/webhooks/:wid', routeFacts({ summary: 'Delete a webhook endpoint', status: 204 }), async (c) => {
    await svc.deleteEndpoint(c.get('deps').db, await owned(c), c.req.param('wid'));
    return c.body(null, 204);
  })
  .get('/:id/webhooks/:wid/deliveries', routeFacts({
    summary: 'Latest deliveries of an endpoint with every attempt (status, latency)',
    response: 'WebhookDeliveryList',
  }), async (c) =>
    c.json({ data: await svc.listDeliveries(c.get('deps').db, await owned(c), c.req.param('wid')) }),
  );
