// /api/project/{id}/transcript: segments (spec section 7). Parse -> service -> shape.
import { Hono } from 'hono';
import { KeepOriginalRequest, TranscriptAddRequest, TranscriptMergeRequest, TranscriptPatchRequest } from '../../../../contract/schemas/project';
import type { AppEnv } from '../../../http/env';
import { jsonBody } from '../../../http/validate';
import { sendAnswer } from '../../../http/answers';
import { isUuid } from '../../spaces/guard';
import { notFound } from '../../../http/errors';
import * as svc from './service';
import { SegmentRewriteRequest } from '../../../../contract/schemas/tools';
import { rewriteSegment } from '../../tools/segment-rewrite';
import { borrowPause, keepOriginal } from './timing';
import { shortenSegment } from './shorten';
import { routeFacts } from '../../../http/route-facts';

// Mounted inside projectsRoutes (which already requires a user).
export const transcriptRoutes = new Hono<AppEnv>();

transcriptRoutes.get('/:id/transcript', routeFacts({
  summary: 'The segments of a project (with a weak ETag: If-None-Match with the current one answers 304 without a body; brotli or gzip when Accept-Encoding allows)',
  response: 'TranscriptResponse',
  query: [{ name: 'segments', description: 'Only these segments: ids separated by commas (or the parameter repeated); all of them when absent' }],
}), async (c) => {
  // ?segments=a&segments=b or ?segments=a,b
  const ids = (c.req.queries('segments') ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  if (ids.length > 0) return c.json(await svc.getTranscript(c.get('deps'), c.get('user'), c.req.param('id'), ids.filter(isUuid)));
  // The whole transcript: kept serialized per version, with an ETag (the browser revalidates: no-cache).
  const r = await svc.getTranscriptJson(c.get('deps'), c.get('user'), c.req.param('id'), c.req.header('if-none-match') ?? null);
  c.header('ETag', r.etag);
  c.header('Cache-Control', 'private, no-cache');
  if (r.notModified) return c.body(null, 304);
  return sendAnswer(c, r.answer);
});

transcriptRoutes.post('/:id/transcript/merge', routeFacts({
  summary: 'Merge segments',
  body: 'TranscriptMergeRequest',
  response: 'TranscriptResponse',
  errors: { 400: 'A segment appears twice, or the merged segment overlaps another segment of the same speaker' },
}), async (c) => {
  const body = await jsonBody(c, TranscriptMergeRequest);
  return c.json(await svc.mergeSegments(c.get('deps'), c.get('user'), c.req.param('id'), body.segment_ids));
});

transcriptRoutes.post('/:id/transcript', routeFacts({
  summary: 'Add segments',
  body: 'TranscriptAddRequest',
  response: 'TranscriptResponse',
  errors: { 400: 'A segment ends before it starts, or overlaps another segment of the same speaker' },
}), async (c) => {
  const body = await jsonBody(c, TranscriptAddRequest);
  return c.json(await svc.addSegments(c.get('deps'), c.get('user'), c.req.param('id'), body.segments));
});

transcriptRoutes.patch('/:id/transcript', routeFacts({
  summary: 'Change segments (at most 50 per call)',
  body: 'TranscriptPatchRequest',
  response: 'TranscriptResponse',
  errors: { 400: 'A segment appears twice, ends before it starts, or overlaps another segment of the same speaker' },
}), async (c) => {
  const body = await jsonBody(c, TranscriptPatchRequest);
  return c.json(await svc.patchSegments(c.get('deps'), c.get('user'), c.req.param('id'), body.segments));
});

// AI rewrite of one segment (a proposal; plan gate ai_rewrite, stated below).
transcriptRoutes.post('/:id/transcript/:segmentId/rewrite', routeFacts({
  summary: 'An AI proposal for one segment\'s translation (shorten, rephrase or follow instructions); nothing is saved',
  body: 'SegmentRewriteRequest',
  response: 'SegmentRewriteResponse',
  gates: [
    { feature: 'ai_rewrite', scope: 'project', note: 'AI rewrite of a segment in the editor' },
  ],
  errors: {
    502: 'The language model failed',
    503: 'AI rewrite is not configured on this server, or the language model is rate limiting (see Retry-After)',
  },
}), async (c) => {
  const segmentId = c.req.param('segmentId');
  if (!isUuid(segmentId)) throw notFound(`Segment not found: ${segmentId}`);
  const body = await jsonBody(c, SegmentRewriteRequest);
  return c.json(await rewriteSegment(c.get('deps'), c.get('user'), c.req.param('id'), segmentId, body, c.req.raw.signal));
});

// Timing fixes of one segment (issue 29): borrow the pause after it; keep the original audio over it (not dubbed).
transcriptRoutes.post('/:id/transcript/:segmentId/borrow_pause', routeFacts({
  summary: 'Move the segment\'s end into the silence after it (up to the next speech, at most 2 s), so its voice needs less speed-up; 409 when there is no pause to borrow',
  response: 'SegmentTimingResponse',
}), async (c) => {
  const segmentId = c.req.param('segmentId');
  if (!isUuid(segmentId)) throw notFound(`Segment not found: ${segmentId}`);
  return c.json(await borrowPause(c.get('deps'), c.get('user'), c.req.param('id'), segmentId));
});

transcriptRoutes.post('/:id/transcript/:segmentId/keep_original', routeFacts({
  summary: 'Keep the original audio over the segment (not dubbed: the original speech and background play there), or dub it again with keep false',
  body: 'KeepOriginalRequest',
  response: 'SegmentTimingResponse',
  example: { keep: true },
}), async (c) => {
  const segmentId = c.req.param('segmentId');
  if (!isUuid(segmentId)) throw notFound(`Segment not found: ${segmentId}`);
  const readKeep = async () => (await jsonBody(c, KeepOriginalRequest)).keep;
  return c.json(await keepOriginal(c.get('deps'), c.get('user'), c.req.param('id'), segmentId, readKeep));
});

// Shorten one segment's translation to its budget and save it: the LLM engine, else the offline rewrites (issue 29;
// plan gate ai_rewrite, stated below). The body is empty.
transcriptRoutes.post('/:id/transcript/:segmentId/shorten', routeFacts({
  summary: 'Shorten a segment to fit its slot (LLM engine, else offline rewrites) and save it; 409 when it already fits, 422 when nothing can be shortened',
  body: 'SegmentShortenRequest',
  bodyOptional: true,
  response: 'SegmentShortenResponse',
  gates: [
    { feature: 'ai_rewrite', scope: 'project', note: 'Shorten a segment to fit its slot in the editor' },
  ],
  errors: { 502: 'The language model failed', 503: 'The language model is rate limiting (see Retry-After)' },
}), async (c) => {
  const segmentId = c.req.param('segmentId');
  if (!isUuid(segmentId)) throw notFound(`Segment not found: ${segmentId}`);
  return c.json(await shortenSegment(c.get('deps'), c.get('user'), c.req.param('id'), segmentId, c.req.raw.signal));
});

transcriptRoutes.delete('/:id/transcript/:segmentId', routeFacts({ summary: 'Removes a segment from the transcript', response: 'SegmentDeletedAnswer' }), async (c) => {
  const segmentId = c.req.param('segmentId');
  if (!isUuid(segmentId)) throw notFound(`Segment not found: ${segmentId}`);
  return c.json(await svc.deleteSegment(c.get('deps'), c.get('user'), c.req.param('id'), segmentId));
});
