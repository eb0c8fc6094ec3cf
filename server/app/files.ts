// GET/HEAD /api/files/<token>/<name>: stored media behind signed, expiring URLs, with range requests.
import { Hono, type Context } from 'hono';
import { Readable } from 'node:stream';
import type { AppEnv } from '../http/env';
import { routeFacts } from '../http/route-facts';
import { ApiError } from '../http/errors';
import { makeVoiceSample, VOICE_SAMPLE_KIND } from '../domains/projects/samples';
import { materialize, type FileGenerator } from '../storage/generators';
import { verifyFileToken } from '../storage/signed';
import type { Storage } from '../storage/types';
import { S3Storage } from '../storage/s3';

const TYPES: Record<string, string> = {
  mp4: 'video/mp4', m4a: 'audio/mp4', mp3: 'audio/mpeg', wav: 'audio/wav', webm: 'video/webm', mov: 'video/quicktime',
  mkv: 'video/x-matroska', jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', srt: 'application/x-subrip; charset=utf-8',
  vtt: 'text/vtt; charset=utf-8', json: 'application/json', ogg: 'audio/ogg', flac: 'audio/flac',
};
export function contentTypeOf(key: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(key)?.[1]?.toLowerCase() ?? '';
  return TYPES[ext] ?? 'application/octet-stream';
}

/** Parses a single "bytes=a-b" range against `size`: the range, null (no/ignored header) or 'unsatisfiable'. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return null; // malformed or multi-range: serve the whole file
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (start >= size || end < start) return 'unsatisfiable';
  }
  return { start, end };
}

function disposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
/** The files a signed URL may ask to be made on first request, by kind. */
const GENERATORS: Readonly<Record<string, FileGenerator>> = { [VOICE_SAMPLE_KIND]: makeVoiceSample };

async function serve(c: Context<AppEnv>, head: boolean): Promise<Response> {
  const deps = c.get('deps');
  const storage = deps.storage as Storage | undefined;
  if (!storage) throw new ApiError(503, 'Storage is not configured');
  const v = verifyFileToken(deps.config.jwtSecret, c.req.param('token') ?? '');
  if (!v.ok) throw new ApiError(v.reason === 'expired' ? 410 : 403, v.reason === 'expired' ? 'This link has expired' : 'Invalid link');
  const key = v.grant.key;
  let st = await storage.stat(key);
  if (!st && v.grant.gen && (await materialize(deps, GENERATORS, key, v.grant.gen))) st = await storage.stat(key);
  if (!st) throw new ApiError(404, 'File not found');
  if (storage instanceof S3Storage) {
    // The store serves the bytes (and range requests) itself, behind a presigned URL that lives as long as
    // our link does (at most 7 days, at least a minute).
    const ttl = Math.max(60, v.grant.exp - Math.floor(Date.now() / 1000));
    const url = await storage.presignGet(key, ttl, { filename: v.grant.disp === 'attachment' ? v.grant.name : undefined });
    return new Response(null, { status: 302, headers: { location: url, 'cache-control': 'private, no-store' } });
  }
  const etag = `"${st.size.toString(16)}-${st.mtime.getTime().toString(16)}"`;
  const headers: Record<string, string> = {
    'content-type': contentTypeOf(key),
    'accept-ranges': 'bytes',
    etag,
    'last-modified': st.mtime.toUTCString(),
    'cache-control': 'private, max-age=3600',
  };
  if (v.grant.disp === 'attachment' && v.grant.name) headers['content-disposition'] = disposition('attachment', v.grant.name);
  // If-Range with a different validator: the whole file.
  const ifRange = c.req.header('if-range');
  const rangeHeader = ifRange && ifRange !== etag ? undefined : c.req.header('range');
  const range = parseRange(rangeHeader, st.size);
  if (range === 'unsatisfiable') {
    return new Response(null, { status: 416, headers: { ...headers, 'content-range': `bytes */${st.size}` } });
  }
  if (c.req.header('if-none-match') === etag && !range) return new Response(null, { status: 304, headers });
  const status = range ? 206 : 200;
  const start = range ? range.start : 0;
  const end = range ? range.end : st.size - 1;
  headers['content-length'] = String(st.size === 0 ? 0 : end - start + 1);
  if (range) headers['content-range'] = `bytes ${start}-${end}/${st.size}`;
  if (head || st.size === 0) return new Response(null, { status, headers });
  const stream = await storage.read(key, { start, end });
  return new Response(Readable.toWeb(stream) as unknown as ReadableStream, { status, headers });
}

export const filesRoutes = new Hono<AppEnv>();
// Hono answers HEAD through the GET route (body dropped); serve() skips opening the stream for it.
// Public: the HMAC-signed, expiring token in the path is the authorization.
const FILE_ERRORS = { 403: 'Invalid link', 410: 'This link has expired', 503: 'Storage is not configured' };
filesRoutes.get('/:token', routeFacts({ summary: 'A stored file by its signed link (Range requests answer 206)', binary: 'application/octet-stream', public: true, errors: FILE_ERRORS }), (c) => serve(c, c.req.method === 'HEAD'));
filesRoutes.get('/:token/:name', routeFacts({ summary: 'A stored file by its signed link, under a download name (Range requests answer 206)', binary: 'application/octet-stream', public: true, errors: FILE_ERRORS }), (c) => serve(c, c.req.method === 'HEAD'));
