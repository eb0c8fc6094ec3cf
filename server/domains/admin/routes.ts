// /api/admin (superusers): user search, CSV export, user PATCH, app flags.
import { Hono } from 'hono';
import { AdminSettingsUpdate } from '../../../contract/schemas/settings';
import { AdminUpdateUserRequest, AdminUsersQuery } from '../../../contract/schemas/user';
import { requireSuperuser, requireUser } from '../../http/auth';
import type { AppEnv } from '../../http/env';
import { jsonBody, queryWith } from '../../http/validate';
import { writeAppFlags } from '../settings/service';
import { CSV_COLUMNS, listUsers, updateUser, usersCsvPage } from './service';
import { CSV_PAGE_ROWS, csvHeaders, csvStream } from '../../csv';
import { AdminMinutesGrant, AdminPaymentsSettings } from '../../../contract/schemas/payments';
import { grantMinutes, paymentsSettings, setLocalCheckout } from '../billing/payments-service';

export const adminRoutes = new Hono<AppEnv>()
  .use('*', requireUser, requireSuperuser)
  .get('/users', async (c) => {
    const q = queryWith(c, AdminUsersQuery);
    return c.json(await listUsers(c.get('deps').db, q));
  })
  .get('/users/csv', async (c) => {
    const q = queryWith(c, AdminUsersQuery);
    const db = c.get('deps').db;
    // Streams: one page of rows at a time.
    const body = csvStream(CSV_COLUMNS, (cursor: Parameters<typeof usersCsvPage>[2]) => usersCsvPage(db, q, cursor, CSV_PAGE_ROWS));
    return c.body(body, 200, csvHeaders('users.csv'));
  })
  .patch('/users/:id', async (c) => {
    const body = await jsonBody(c, AdminUpdateUserRequest);
    return c.json(await updateUser(c.get('deps').db, c.get('user'), c.req.param('id'), body));
  })
  .post('/users/:id/minutes', async (c) => {
    // A minute pack granted by a superuser (the local provider's purchase): once per request_id.
    const body = await jsonBody(c, AdminMinutesGrant);
    return c.json(await grantMinutes(c.get('deps'), c.get('user'), c.req.param('id'), body));
  })
  .get('/payments', async (c) => c.json(await paymentsSettings(c.get('deps'))))
  .put('/payments', async (c) => {
    const body = await jsonBody(c, AdminPaymentsSettings);
    return c.json(await setLocalCheckout(c.get('deps'), body.local_checkout));
  })
  .put('/settings', async (c) => {
    const body = await jsonBody(c, AdminSettingsUpdate);
    return c.json(await writeAppFlags(c.get('deps').db, body));
  });
