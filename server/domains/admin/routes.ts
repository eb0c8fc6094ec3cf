// /api/admin (superusers): user search, CSV export, user PATCH, app flags.
import { Hono } from 'hono';
import { ADMIN_LIST_LIMIT } from '../../../contract/constants';
import { AdminSettingsUpdate } from '../../../contract/schemas/settings';
import { AdminUpdateUserRequest, AdminUsersQuery } from '../../../contract/schemas/user';
import { requireSuperuser } from '../../http/auth';
import type { AppEnv } from '../../http/env';
import { jsonBody, queryWith } from '../../http/validate';
import { writeAppFlags } from '../settings/service';
import { CSV_COLUMNS, listUsers, updateUser, usersCsvPage } from './service';
import { CSV_PAGE_ROWS, csvHeaders, csvStream } from '../../csv';
import { AdminMinutesGrant, AdminPaymentsSettings } from '../../../contract/schemas/payments';
import { grantMinutes, paymentsSettings, setLocalCheckout } from '../billing/payments-service';
import { routeFacts, type QueryFact } from '../../http/route-facts';

/** The customer search's filters (AdminUsersQuery). */
const USERS_Q: QueryFact[] = [
  { name: 'email', description: 'E-mail contains' }, { name: 'date_gt', description: 'Signed up after' }, { name: 'date_lt', description: 'Signed up before' },
  { name: 'subscription_type', description: 'Plan tier' },
];

export const adminRoutes = new Hono<AppEnv>()
  .use('*', requireSuperuser)
  .get('/users', routeFacts({
    summary: 'Customer search, newest sign-ups first (superuser)',
    response: 'AdminUser',
    list: true,
    query: [...USERS_Q, { name: 'limit', description: `Rows (1-1000, default ${ADMIN_LIST_LIMIT})` }],
  }), async (c) => {
    const q = queryWith(c, AdminUsersQuery);
    return c.json(await listUsers(c.get('deps').db, q));
  })
  .get('/users/csv', routeFacts({
    summary: 'The customer search as a CSV file (superuser)',
    binary: 'text/csv',
    query: USERS_Q,
  }), async (c) => {
    const q = queryWith(c, AdminUsersQuery);
    const db = c.get('deps').db;
    // Streams: one page of rows at a time.
    const body = csvStream(CSV_COLUMNS, (cursor: Parameters<typeof usersCsvPage>[2]) => usersCsvPage(db, q, cursor, CSV_PAGE_ROWS));
    return c.body(body, 200, csvHeaders('users.csv'));
  })
  .patch('/users/:id', routeFacts({
    summary: 'Set a customer\'s plan or flags (superuser)',
    body: 'AdminUpdateUserRequest',
    response: 'AdminUser',
    errors: { 400: 'A superuser cannot deactivate or demote themself' },
  }), async (c) => {
    const body = await jsonBody(c, AdminUpdateUserRequest);
    return c.json(await updateUser(c.get('deps').db, c.get('user'), c.req.param('id'), body));
  })
  .post('/users/:id/minutes', routeFacts({
    summary: 'Grant minutes to a user\'s default Teamspace (superuser; once per request_id)',
    body: 'AdminMinutesGrantRequest',
    response: 'AdminMinutesGrantResult',
  }), async (c) => {
    // A minute pack granted by a superuser (the local provider's purchase): once per request_id.
    const body = await jsonBody(c, AdminMinutesGrant);
    return c.json(await grantMinutes(c.get('deps'), c.get('user'), c.req.param('id'), body));
  })
  .get('/payments', routeFacts({
    summary: 'The payment provider and how local checkouts work (superuser)',
    response: 'AdminPaymentsAnswer',
  }), async (c) => c.json(await paymentsSettings(c.get('deps'))))
  .put('/payments', routeFacts({
    summary: 'How local checkouts work (superuser)',
    body: 'AdminPaymentsSettingsRequest',
    response: 'AdminPaymentsAnswer',
  }), async (c) => {
    const body = await jsonBody(c, AdminPaymentsSettings);
    return c.json(await setLocalCheckout(c.get('deps'), body.local_checkout));
  })
  .put('/settings', routeFacts({
    summary: 'The maintenance flag and warning banner (superuser)',
    body: 'AdminSettingsRequest',
    response: 'AppFlags',
  }), async (c) => {
    const body = await jsonBody(c, AdminSettingsUpdate);
    return c.json(await writeAppFlags(c.get('deps').db, body));
  });
