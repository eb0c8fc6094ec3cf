// /api/space: Teamspaces (spec section 7). Parse -> service -> shape.
import { Hono, type Context } from 'hono';
import { TEXT } from '../../../contract/errors';
import { CreateSpaceRequest, InviteRequest, UpdateSpaceRequest } from '../../../contract/schemas/space';
import { unprocessable } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { requireSpaceAccess } from './access';
import { sendInviteMails } from './mail';
import * as svc from './service';
import { afterDeletion } from '../retention/service';
import { spaceSettings } from './settings';
import { routeFacts } from '../../http/route-facts';

export const spacesRoutes = new Hono<AppEnv>();

/** An id given as a query parameter or in a JSON body (DELETE with a body), e.g. invite_id, member_id. */
async function idParam(c: Context<AppEnv>, name: string): Promise<string> {
  const q = c.req.query(name);
  if (q !== undefined && q.trim() !== '') return q.trim();
  const text = await c.req.text().catch(() => '');
  if (text.trim() !== '') {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw unprocessable([{ loc: ['body'], msg: 'Malformed JSON body', type: 'json_invalid' }]);
    }
    const val = (body as Record<string, unknown> | null)?.[name];
    if (typeof val === 'string' && val.trim() !== '') return val.trim();
  }
  throw unprocessable([{ loc: ['query', name], msg: TEXT.fieldRequired, type: 'missing' }]);
}

spacesRoutes.get('/list', routeFacts({ summary: 'Your Teamspaces', response: 'Space', list: true }), async (c) => {
  const user = c.get('user');
  return c.json(await svc.listSpaces(c.get('deps').db, user.id));
});

/** The caller's plan limits for Teamspaces (create allowed, owned count, member limit). */
spacesRoutes.get('/limits', routeFacts({ summary: 'Your plan\'s Teamspace limits', response: 'SpaceLimits' }), async (c) => {
  return c.json(await svc.spaceLimits(c.get('deps').db, c.get('user').id));
});

spacesRoutes.post('/create', routeFacts({ summary: 'Create a Teamspace', body: 'CreateSpaceRequest', response: 'Space', status: 201 }), async (c) => {
  const body = await jsonBody(c, CreateSpaceRequest);
  const user = c.get('user');
  const deps = c.get('deps');
  const out = await svc.createSpace(deps.db, user, body.data, body.emails);
  void sendInviteMails(deps, { inviter: user.email, spaceName: out.space.name, spaceId: out.space.id, invites: out.invites });
  return c.json(out.space, 201);
});

spacesRoutes.get('/:id', routeFacts({ summary: 'A Teamspace', response: 'Space' }), async (c) => {
  const space = await requireSpaceAccess(c, c.req.param('id'));
  return c.json(await svc.spaceJson(c.get('deps').db, space.id));
});

spacesRoutes.patch('/:id', routeFacts({
  summary: 'Rename or recolour a Teamspace (owner)',
  body: 'UpdateSpaceRequest',
  response: 'Space',
}), async (c) => {
  const space = await requireSpaceAccess(c, c.req.param('id'), { owner: true });
  const body = await jsonBody(c, UpdateSpaceRequest);
  return c.json(await svc.updateSpace(c.get('deps').db, space.id, body));
});

spacesRoutes.delete('/:id', routeFacts({
  summary: 'Delete a Teamspace (owner; its projects go with it)',
  response: 'DefaultSpace',
  errors: { 400: 'The default Teamspace cannot be deleted' },
}), async (c) => {
  const space = await requireSpaceAccess(c, c.req.param('id'), { owner: true });
  const r = await svc.deleteSpace(c.get('deps').db, c.get('user'), space.id);
  // The space's projects and uploads went with it: their stored files go now.
  await afterDeletion(c.get('deps'));
  return c.json(r);
});

// The minute history (the ledger) of a space, for its owner: ?page=1.. (20 rows a page).
spacesRoutes.get('/:id/usage', routeFacts({
  summary: 'The minute history of a Teamspace (its owner), newest first, 20 a page',
  response: 'UsagePage',
  query: [{ name: 'page', description: 'The page, from 1 (default 1)' }],
}), async (c) => {
  const space = await requireSpaceAccess(c, c.req.param('id'), { owner: true });
  const page = Number(c.req.query('page') ?? '1');
  if (!Number.isFinite(page) || page < 1 || page > 1_000_000) throw unprocessable([{ loc: ['query', 'page'], msg: 'page must be a number from 1', type: 'value_error' }]);
  return c.json(await svc.usagePage(c.get('deps').db, space.id, page));
});

spacesRoutes.get('/:id/credits', routeFacts({ summary: 'Minutes of a Teamspace', response: 'Credits' }), async (c) => {
  const space = await requireSpaceAccess(c, c.req.param('id'));
  return c.json(await svc.creditsOf(c.get('deps').db, space));
});

spacesRoutes.get('/:id/settings', routeFacts({ summary: 'Settings that apply in a Teamspace', response: 'Settings' }), async (c) => {
  const space = await requireSpaceAccess(c, c.req.param('id'));
  return c.json(await spaceSettings(c.get('deps'), space));
});

spacesRoutes.get('/:id/leave', routeFacts({
  summary: 'Leave a Teamspace (members; the owner cannot)',
  response: 'DefaultSpace',
  errors: { 400: 'The owner cannot leave, the default Teamspace cannot be left, or the caller is not a member' },
}), async (c) => {
  const space = await requireSpaceAccess(c, c.req.param('id'));
  return c.json(await svc.leaveSpace(c.get('deps').db, c.get('user'), space));
});

spacesRoutes.post('/:id/invite', routeFacts({ summary: 'Invite e-mails (owner)', body: 'InviteRequest', response: 'Space' }), async (c) => {
  const space = await requireSpaceAccess(c, c.req.param('id'), { owner: true });
  const body = await jsonBody(c, InviteRequest);
  const user = c.get('user');
  const deps = c.get('deps');
  const invites = await svc.inviteMembers(deps.db, user, space.id, body.emails);
  const json = await svc.spaceJson(deps.db, space.id);
  void sendInviteMails(deps, { inviter: user.email, spaceName: json.name, spaceId: json.id, invites });
  return c.json(json);
});

// An invite link for a pending invite (owner only): single use, expiring; the token is shown this once.
spacesRoutes.post('/:id/invite_link', routeFacts({
  summary: 'A single-use, expiring link for a pending invite (owner; the token is answered only here)',
  body: 'InviteLinkRequest',
  response: 'InviteLink',
  status: 201,
}), async (c) => {
  const space = await requireSpaceAccess(c, c.req.param('id'), { owner: true });
  const inviteId = await idParam(c, 'invite_id');
  return c.json(await svc.createInviteLink(c.get('deps').db, c.get('user'), space.id, inviteId), 201);
});

// Any signed-in person with the link joins the space as an editor (once: a used or expired link is 410).
spacesRoutes.post('/join', routeFacts({
  summary: 'Join the Teamspace of an invite link as an editor (410 when used or expired)',
  body: 'JoinRequest',
  response: 'JoinAnswer',
  errors: { 410: 'The invite link was used already or has expired' },
}), async (c) => {
  const token = await idParam(c, 'token');
  return c.json(await svc.joinByLink(c.get('deps').db, c.get('user'), token));
});

spacesRoutes.delete('/:id/invite/remove', routeFacts({
  summary: 'Withdraw a pending invite (owner): its id as ?invite_id= or in the JSON body',
  body: 'RemoveInviteRequest',
  bodyOptional: true,
  response: 'Space',
  query: [{ name: 'invite_id', description: 'The invite (required unless the body names it)' }],
}), async (c) => {
  const space = await requireSpaceAccess(c, c.req.param('id'), { owner: true });
  const inviteId = await idParam(c, 'invite_id');
  await svc.removeInvite(c.get('deps').db, space.id, inviteId);
  return c.json(await svc.spaceJson(c.get('deps').db, space.id));
});

spacesRoutes.delete('/:id/members/remove', routeFacts({
  summary: 'Remove a member (owner): their user id as ?member_id= or in the JSON body',
  body: 'RemoveMemberRequest',
  bodyOptional: true,
  response: 'Space',
  query: [{ name: 'member_id', description: 'The member\'s user id (required unless the body names it)' }],
  errors: { 400: 'The owner cannot be removed' },
}), async (c) => {
  const space = await requireSpaceAccess(c, c.req.param('id'), { owner: true });
  const memberId = await idParam(c, 'member_id');
  await svc.removeMember(c.get('deps').db, space, memberId);
  return c.json(await svc.spaceJson(c.get('deps').db, space.id));
});

