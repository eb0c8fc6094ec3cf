// All languages of a video as one download (issue 31): POST /api/project/:id/deliverables?format=mp4|mkv|hls
// (same access as the other downloads) and GET /api/deliverables/hls/:token/:file, the files of an HLS package
// behind the signed link the first call answers (players fetch them without the user's token).
import { Hono } from 'hono';
import { Readable } from 'node:stream';
import { requireUser } from '../../http/auth';
import type { AppEnv } from '../../http/env';
import { ApiError, unprocessable } from '../../http/errors';
import { verifyFileToken } from '../../storage/signed';
import { DELIVERABLE_FORMATS, HLS_PREFIX, deliverableLanguages, makeDeliverable, type DeliverableFormat } from './service';

export const deliverablesRoutes = new Hono<AppEnv>();

deliverablesRoutes.get('/:id/deliverables', requireUser, async (c) => {
  return c.json(await deliverableLanguages(c.get('deps'), c.get('user'), c.req.param('id')));
});

deliverablesRoutes.post('/:id/deliverables', requireUser, async (c) => {
  const format = c.req.query('format') ?? 'mp4';
  if (!(DELIVERABLE_FORMATS as readonly string[]).includes(format)) {
    throw unprocessable([{ loc: ['query', 'format'], msg: `format must be one of ${DELIVERABLE_FORMATS.join(', ')}`, type: 'enum' }]);
  }
  const def = c.req.query('default');
  if (def !== undefined && !/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$|^original$/.test(def)) {
    throw unprocessable([{ loc: ['query', 'default'], msg: 'default must be a language code or "original"', type: 'value_error' }]);
  }
  return c.json(await makeDeliverable(c.get('deps'), c.get('user'), c.req.param('id'), { format: format as DeliverableFormat, defaultLang: def }));
});

const HLS_TYPES: Record<string, string> = { m3u8: 'application/vnd.apple.mpegurl', ts: 'video/mp2t', vtt: 'text/vtt; charset=utf-8' };

export const hlsRoutes = new Hono<AppEnv>();
hlsRoutes.get('/hls/:token/:file', async (c) => {
  const deps = c.get('deps');
  const v = verifyFileToken(deps.config.jwtSecret, c.req.param('token'));
  if (!v.ok) throw new ApiError(v.reason === 'expired' ? 410 : 403, v.reason === 'expired' ? 'This link has expired' : 'Invalid link');
  const file = c.req.param('file');
  const m = /^[a-z0-9_-]{1,40}\.(m3u8|ts|vtt)$/.exec(file);
  if (!HLS_PREFIX.test(v.grant.key) || !m) throw new ApiError(404, 'File not found');
  const key = v.grant.key + file;
  const st = await deps.storage.stat(key);
  if (!st) throw new ApiError(404, 'File not found');
  const stream = await deps.storage.read(key);
  return new Response(Readable.toWeb(stream) as unknown as ReadableStream, {
    status: 200,
    headers: { 'content-type': HLS_TYPES[m[1]!]!, 'content-length': String(st.size), 'cache-control': 'private, max-age=3600' },
  });
});
