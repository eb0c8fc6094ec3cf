// /api/tools: POST /summarize, the AI rewrite tool (summarise or rewrite a piece of the script).
// Body {text, lang?, max_chars?, instructions?, mode?: 'summarize'|'rewrite'} -> {text}.
// ?space_id (optional): the caller must be a member; the space owner's plan then applies (plan gate 'ai_rewrite'
// stated on the route).
import { Hono } from 'hono';
import { SummarizeRequest } from '../../../contract/schemas/tools';
import { ApiError } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { AI_REWRITE_NOT_CONFIGURED, isAiRewriteConfigured, summarize } from './service';
import { routeFacts } from '../../http/route-facts';

export const toolsRoutes = new Hono<AppEnv>().post('/summarize', routeFacts({
  summary: 'AI rewrite of a text',
  body: 'SummarizeRequest',
  response: 'SummarizeResponse',
  query: [{ name: 'space_id', description: 'The Teamspace whose plan applies (the caller must be a member); the caller\'s own plan when absent' }],
  gates: [
    { feature: 'ai_rewrite', scope: 'space', note: 'the AI rewrite tool' },
  ],
  errors: {
    502: 'The language model failed',
    503: 'AI rewrite is not configured on this server, or the language model is rate limiting (see Retry-After)',
  },
}), async (c) => {
  const deps = c.get('deps');
  if (!isAiRewriteConfigured(deps)) throw new ApiError(503, AI_REWRITE_NOT_CONFIGURED);
  const body = await jsonBody(c, SummarizeRequest);
  return c.json(await summarize(deps, body, c.req.raw.signal));
});
