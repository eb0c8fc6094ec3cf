// /api/users/settings/api/credentials: a user's API keys (spec section 7: POST and GET settings/api/credentials;
// DELETE revokes one). Creating needs the `api` feature (its gate below); listing and revoking do not, so
// a user whose plan lapsed can still see and revoke their keys.
import { Hono } from 'hono';
import { CreateApiCredentialRequest } from '../../../contract/schemas/api';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { createKey, listKeys, revokeKey } from './service';
import { routeFacts } from '../../http/route-facts';

export const apiKeyRoutes = new Hono<AppEnv>()
  .post('/credentials', routeFacts({
    summary: 'Create an API key (the key is answered only here)',
    body: 'CreateApiCredentialRequest',
    response: 'CreatedApiCredential',
    status: 201,
    example: { name: 'Production server' },
    gates: [
      { feature: 'api', scope: 'user', note: 'creating API keys' },
    ],
    creates: { startsJob: false },
  }), async (c) => {
    const body = await jsonBody(c, CreateApiCredentialRequest);
    return c.json(await createKey(c.get('deps').db, c.get('user'), body.name), 201);
  })
  .get('/credentials', routeFacts({ summary: 'List your API keys (never the secret)', response: 'ApiCredentialList' }), async (c) => c.json(await listKeys(c.get('deps').db, c.get('user'))))
  .delete('/credentials/:id', routeFacts({ summary: 'Revoke an API key', response: 'ApiCredential' }), async (c) => c.json(await revokeKey(c.get('deps').db, c.get('user'), c.req.param('id'))));
