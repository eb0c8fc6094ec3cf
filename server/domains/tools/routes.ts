// /api/tools: POST /summarize, the AI rewrite tool (summarise or rewrite a piece of the script).
// Body {text, lang?, max_chars?, instructions?, mode?: 'summarize'|'rewrite'} -> {text}.
// ?space_id (optional): the caller must be a member; the space owner's plan then applies.
import { Hono } from 'hono';
import { SummarizeRequest } from '../../../contract/schemas/tools';
import { requireUser } from '../../http/auth';
import { ApiError } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { effectiveTierOf, getUserSubscriptionCached } from '../billing/plan';
import { optionalSpaceIdFromQuery, requireSpaceAccess } from '../spaces/guard';
import { AI_REWRITE_NOT_CONFIGURED, checkPlan, isAiRewriteConfigured, summarize } from './service';

export const toolsRoutes = new Hono<AppEnv>().post('/summarize', requireUser, async (c) => {
  const deps = c.get('deps');
  const user = c.get('user');
  if (!isAiRewriteConfigured(deps)) throw new ApiError(503, AI_REWRITE_NOT_CONFIGURED);
  const body = await jsonBody(c, SummarizeRequest);
  const spaceId = optionalSpaceIdFromQuery(c);
  const planOwner = spaceId !== null ? (await requireSpaceAccess(c, spaceId)).owner_id : user.id;
  checkPlan(effectiveTierOf(await getUserSubscriptionCached(deps.db, planOwner)), user.is_superuser);
  return c.json(await summarize(deps, body, c.req.raw.signal));
});
