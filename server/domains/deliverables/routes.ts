// All languages of a video as one download (issue 31): POST /api/project/:id/deliverables?format=mp4|mkv|hls
// (same access as the other downloads) and GET /api/deliverables/hls/:token/:file, the files of an HLS package
// behind the signed link the first call answers (players fetch them without the user's token).
import { Hono } from 'hono';
import { Readable } from 'node:stream';
import type { AppEnv } from '../../http/env';
import { ApiError, unprocessable } from '../../http/errors';
import { verifyFileToken } from '../../storage/signed';
import { DELIVERABLE_FORMATS, HLS_PREFIX, deliverableLanguages, makeDeliverable, type DeliverableFormat } from './service';
import { routeFacts } from '../../http/route-facts';

export const deliverablesRoutes = new Hono<AppEnv>();

deliverablesRoutes.get('/:id/deliverables', routeFacts({
  summary: 'The languages an all-languages deliverable of the video holds now: { languages: [{ lang, code, name, project_id, original, default }] } (the original first, then each finished dub; empty when none is finished)',
  response: 'DeliverableLanguages',
}), async (c) => {
  return c.json(await deliverableLanguages(c.get('deps'), c.get('user'), c.req.param('id')));
});

deliverablesRoutes.post('/:id/deliverables', routeFacts({
  summary: 'Every finished language of the video in one deliverable: an MP4 (mov_text subtitles) or MKV (SRT subtitles) with the original audio and one audio and subtitle track per dubbed language (ISO 639-2 language tags, language-name titles, video stream-copied), or an HLS package (one audio and one WebVTT rendition per language). Made on the first call (seconds), then kept. Answers { format, url, languages }; 409 when no language is dubbed yet',
  response: 'DeliverableAnswer',
  query: [
      { name: 'format', description: 'mp4 (default), mkv or hls' },
      { name: 'default', description: 'The language whose audio plays by default (its code, e.g. es); the original by default' },
    ],
}), async (c) => {
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
hlsRoutes.get('/hls/:token/:file', routeFacts({
  summary: 'A file of an HLS package (master.m3u8, its playlists, segments and WebVTT), behind the signed link that POST /api/project/{id}/deliverables?format=hls answers',
  public: true,
  binary: 'application/vnd.apple.mpegurl',
  errors: { 403: 'Invalid link', 410: 'This link has expired' },
}), async (c) => {
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
