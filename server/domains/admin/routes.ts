// /api/admin (superusers): user search, CSV export, user PATCH, app flags.
import { Hono } from 'hono';
import { AdminSettingsUpdate } from '../../../contract/schemas/settings';
import { AdminUpdateUserRequest, AdminUsersQuery } from '../../../contract/schemas/user';
import { requireSuperuser, requireUser } from '../../http/auth';
import type { AppEnv } from '../../http/env';
import { jsonBody, queryWith } from '../../http/validate';
import { writeAppFlags } from '../settings/service';
import { listUsers, updateUser, usersCsv } from './service';

export const adminRoutes = new Hono<AppEnv>()
  .use('*', requireUser, requireSuperuser)
  .get('/users', async (c) => {
    const q = queryWith(c, AdminUsersQuery);
    return c.json(await listUsers(c.get('deps').db, q));
  })
  .get('/users/csv', async (c) => {
    const q = queryWith(c, AdminUsersQuery);
    const csv = await usersCsv(c.get('deps').db, q);
    return c.body(csv, 200, {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': 'attachment; filename="users.csv"',
      'cache-control': 'no-store',
    });
  })
  .patch('/users/:id', async (c) => {
    const body = await jsonBody(c, AdminUpdateUserRequest);
    return c.json(await updateUser(c.get('deps').db, c.get('user'), c.req.param('id'), body));
  })
  .put('/settings', async (c) => {
    const body = await jsonBody(c, AdminSettingsUpdate);
    return c.json(await writeAppFlags(c.get('deps').db, body));
  });
