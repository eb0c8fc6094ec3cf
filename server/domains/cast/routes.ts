// /api/space/{id}/cast (issue 31, part 5): GET (list) | POST (keep a project's speaker), PATCH|DELETE {member},
// POST {member}/merge, GET recognitions?project_id (speakers the voice_suggest stage recognised), POST undo.
// Plan and access: the service (server/domains/cast/service.ts), checked before a body or query is read.
import { Hono } from 'hono';
import * as v from 'valibot';
import { AddCastMemberRequest, CastUndoRequest, MergeCastMemberRequest, UpdateCastMemberRequest } from '../../../contract/schemas/cast';
import type { AppEnv } from '../../http/env';
import { jsonBody, queryWith } from '../../http/validate';
import * as svc from './service';
import { routeFacts } from '../../http/route-facts';

const ProjectQuery = v.object({ project_id: v.pipe(v.string('project_id must be a string'), v.uuid('project_id must be an id')) });

export const castRoutes = new Hono<AppEnv>();

castRoutes.get('/:id/cast', routeFacts({
  summary: 'The cast of a Teamspace: people kept with their measured voice and their voice per language (plan: voice_presets)',
  response: 'CastList',
}), async (c) => c.json(await svc.listCast(c.get('deps'), c.get('user'), c.req.param('id'))));

castRoutes.post('/:id/cast', routeFacts({
  summary: 'Keep a project\'s speaker in the cast ("Keep in cast"): its voice profile and its voice in the project\'s language',
  body: 'AddCastMemberRequest',
  response: 'CastMember',
  status: 201,
}), async (c) => {
  await svc.castSpace(c.get('deps'), c.get('user'), c.req.param('id'));
  const body = await jsonBody(c, AddCastMemberRequest);
  return c.json(await svc.addMember(c.get('deps'), c.get('user'), c.req.param('id'), body), 201);
});

castRoutes.get('/:id/cast/recognitions', routeFacts({
  summary: 'Speakers of a project recognised from the cast at voice selection',
  response: 'CastRecognitionList',
  query: [{ name: 'project_id', required: true, description: 'A project of the Teamspace' }],
}), async (c) => {
  await svc.castSpace(c.get('deps'), c.get('user'), c.req.param('id'));
  const q = queryWith(c, ProjectQuery);
  return c.json(await svc.recognitions(c.get('deps'), c.get('user'), c.req.param('id'), q.project_id));
});

castRoutes.post('/:id/cast/undo', routeFacts({
  summary: 'Undo a recognition: the speaker gets back its name and voice',
  body: 'CastUndoRequest',
  response: 'CastUndoAnswer',
}), async (c) => {
  await svc.castSpace(c.get('deps'), c.get('user'), c.req.param('id'));
  const body = await jsonBody(c, CastUndoRequest);
  return c.json(await svc.undoRecognition(c.get('deps'), c.get('user'), c.req.param('id'), body));
});

castRoutes.patch('/:id/cast/:member', routeFacts({
  summary: 'Rename a cast member or set (null: forget) its voice per language',
  body: 'UpdateCastMemberRequest',
  response: 'CastMember',
}), async (c) => {
  await svc.castSpace(c.get('deps'), c.get('user'), c.req.param('id'));
  const body = await jsonBody(c, UpdateCastMemberRequest);
  return c.json(await svc.updateMember(c.get('deps'), c.get('user'), c.req.param('id'), c.req.param('member'), body));
});

castRoutes.delete('/:id/cast/:member', routeFacts({ summary: 'Remove a cast member', response: 'Deleted' }), async (c) =>
  c.json(await svc.removeMember(c.get('deps'), c.get('user'), c.req.param('id'), c.req.param('member'))),
);

castRoutes.post('/:id/cast/:member/merge', routeFacts({
  summary: 'Merge another member (the same person kept twice) into this one',
  body: 'MergeCastMemberRequest',
  response: 'CastMember',
}), async (c) => {
  await svc.castSpace(c.get('deps'), c.get('user'), c.req.param('id'));
  const body = await jsonBody(c, MergeCastMemberRequest);
  return c.json(await svc.mergeMembers(c.get('deps'), c.get('user'), c.req.param('id'), c.req.param('member'), body.member_id));
});
