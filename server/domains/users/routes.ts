// /api/users: create the product account, read/update/delete the current one.
import { Hono } from 'hono';
import { CreateUserRequest, UpdateUserRequest } from '../../../contract/schemas/user';
import { requireIdentity, requireUser } from '../../http/auth';
import { unauthorized } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { createAccount, currentUserView, deleteAccount, updateProfile } from './service';

export const usersRoutes = new Hono<AppEnv>()
  .post('/', requireIdentity, async (c) => {
    const body = await jsonBody(c, CreateUserRequest);
    const identity = c.get('identity');
    if (!identity) throw unauthorized();
    const deps = c.get('deps');
    const user = await createAccount(deps.db, identity.identityId, body);
    return c.json(await currentUserView(deps.db, user, deps.config.jwtSecret), 201);
  })
  .get('/current', requireUser, async (c) => {
    const deps = c.get('deps');
    return c.json(await currentUserView(deps.db, c.get('user'), deps.config.jwtSecret));
  })
  .patch('/current', requireUser, async (c) => {
    const body = await jsonBody(c, UpdateUserRequest);
    const deps = c.get('deps');
    const user = await updateProfile(deps.db, c.get('user'), body);
    return c.json(await currentUserView(deps.db, user, deps.config.jwtSecret));
  })
  .delete('/current', requireUser, async (c) => {
    await deleteAccount(c.get('deps').db, c.get('user'));
    return c.body(null, 204);
  });
