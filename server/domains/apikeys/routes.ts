// /api/users/settings/api/credentials: a user's API keys (spec section 7: POST and GET settings/api/credentials;
// DELETE revokes one). Creating needs the `api` feature (server/http/gates.ts); listing and revoking do not, so
// a user whose plan lapsed can still see and revoke their keys.
import { Hono } from 'hono';
import { CreateApiCredentialRequest } from '../../../contract/schemas/api';
import { requireUser } from '../../http/auth';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { createKey, listKeys, revokeKey } from './service';

export const apiKeyRoutes = new Hono<AppEnv>()
  .use('*', requireUser)
  .post('/credentials', async (c) => {
    const body = await jsonBody(c, CreateApiCredentialRequest);
    return c.json(await createKey(c.get('deps').db, c.get('user'), body.name), 201);
  })
  .get('/credentials', async (c) => c.json(await listKeys(c.get('deps').db, c.get('user'))))
  .delete('/credentials/:id', async (c) => c.json(await revokeKey(c.get('deps').db, c.get('user'), c.req.param('id'))));
