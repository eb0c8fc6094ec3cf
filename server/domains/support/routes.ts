// /api/support (the signed-in user's own conversation) and /api/admin/support (the staff inbox, superusers).
import { Hono } from 'hono';
import * as v from 'valibot';
import { ADMIN_LIST_LIMIT } from '../../../contract/constants';
import { SupportMessageRequest, SupportReplyRequest } from '../../../contract/schemas/onboarding';
import { requireSuperuser } from '../../http/auth';
import type { AppEnv } from '../../http/env';
import { jsonBody, queryWith } from '../../http/validate';
import { answer, inbox, ownConversation, staffConversation, writeToSupport } from './service';
import { routeFacts } from '../../http/route-facts';

export const supportRoutes = new Hono<AppEnv>()
  .get('/thread', routeFacts({
    summary: 'The caller\'s own support conversation',
    response: 'SupportConversation',
    query: [{ name: 'read', description: '1: the staff\'s answers count as read' }],
  }), async (c) => c.json(await ownConversation(c.get('deps'), c.get('user'), c.req.query('read') === '1')))
  .post('/messages', routeFacts({
    summary: 'Write to support (the install\'s staff)',
    body: 'SupportMessageRequest',
    response: 'SupportConversation',
    status: 201,
  }), async (c) => {
    const body = await jsonBody(c, SupportMessageRequest);
    return c.json(await writeToSupport(c.get('deps'), c.get('user'), body), 201);
  });

const InboxQuery = v.object({
  status: v.optional(v.picklist(['open', 'answered'])),
  email: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(254))),
  limit: v.optional(v.pipe(v.string(), v.regex(/^\d{1,4}$/, 'Invalid limit'), v.transform(Number), v.minValue(1), v.maxValue(500))),
});

export const supportAdminRoutes = new Hono<AppEnv>()
  .use('*', requireSuperuser)
  .get('/threads', routeFacts({
    summary: 'The support inbox: every user\'s conversation, latest message first (superuser)',
    response: 'SupportThread',
    list: true,
    query: [
      { name: 'status', description: 'open (waiting for staff) or answered; all when left out' },
      { name: 'email', description: 'User e-mail contains' },
      { name: 'limit', description: `Rows (1-500, default ${ADMIN_LIST_LIMIT})` },
    ],
  }), async (c) => {
    const q = queryWith(c, InboxQuery);
    return c.json(await inbox(c.get('deps'), { status: q.status, email: q.email || undefined, limit: q.limit ?? ADMIN_LIST_LIMIT }));
  })
  .get('/threads/:id', routeFacts({
    summary: 'One support conversation; the user\'s messages count as read by staff (superuser)',
    response: 'SupportConversation',
  }), async (c) => c.json(await staffConversation(c.get('deps'), c.req.param('id'))))
  .post('/threads/:id/messages', routeFacts({
    summary: 'Answer a support thread (superuser)',
    body: 'SupportReplyRequest',
    response: 'SupportReplyAnswer',
    status: 201,
  }), async (c) => {
    const body = await jsonBody(c, SupportReplyRequest);
    return c.json(await answer(c.get('deps'), c.get('user'), c.req.param('id'), body.body), 201);
  });
