// /api/library: uploads (multipart and tus), upload status, link information.
import { Hono, type Context } from 'hono';
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TEXT } from '../../../contract/errors';
import { isValidVideoLink } from '../../../contract/links';
import { ApiError, badRequest, notFound, unprocessable } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { isDiskFull, MediaError } from '../../media/errors';
import { probeLink } from '../../media/link';
import { uploadKey } from '../../storage/index';
import type { Storage } from '../../storage/types';
import { optionalSpaceIdFromQuery, spaceIdFromQuery } from '../../http/access';
import { requireSpaceAccess } from '../spaces/access';
import { isUuid } from '../spaces/guard';
import { diskFull } from '../../errors';
import { MultipartError, readMultipart } from './multipart';
import * as repo from './repository';
import { checkUpload, formatBytes, formatDuration, mediaJson } from './service';
import { createTusServer, kindFrom, tusContext, type TusServer } from './tus';
import { findMembership } from '../spaces/repository';
import { routeFacts, SPACE_Q } from '../../http/route-facts';
import { namespace } from '../../cache/index';

export const libraryRoutes = new Hono<AppEnv>();

function storageOf(c: Context<AppEnv>): Storage {
  const s = c.get('deps').storage as Storage | undefined;
  if (!s) throw new ApiError(503, 'Storage is not configured');
  return s;
}

libraryRoutes.post('/media', routeFacts({
  summary: 'Upload a file (multipart: field file, and optionally kind video, audio or srt); its status, kind, size and duration',
  response: 'Media',
  query: [SPACE_Q],
  errors: {
    413: 'The file is larger than the upload limit, a field is too long, or the body has too many parts',
    415: 'Not a multipart/form-data body',
    503: 'Storage is not configured',
    507: 'The server is out of disk space: nothing was stored (see Retry-After)',
  },
}), async (c) => {
  const deps = c.get('deps');
  const storage = storageOf(c);
  const space = await requireSpaceAccess(c, spaceIdFromQuery(c));
  const user = c.get('user');
  const id = randomUUID();
  const tmpDir = join(deps.config.dataDir, 'tmp');
  await mkdir(tmpDir, { recursive: true });
  const tmp = join(tmpDir, `upload-${id}`);
  let parsed;
  try {
    parsed = await readMultipart(c.req.raw.body, c.req.header('content-type'), {
      fileField: 'file',
      destPath: tmp,
      maxBytes: deps.config.limits.maxVideoSize,
      maxSizeText: formatBytes(deps.config.limits.maxVideoSize),
    });
  } catch (e) {
    if (e instanceof MultipartError) throw new ApiError(e.status, e.message);
    if (isDiskFull(e)) throw diskFull(); // readMultipart removed what it wrote
    throw e;
  }
  const file = parsed.file;
  if (!file) {
    await rm(tmp, { force: true });
    throw unprocessable([{ loc: ['body', 'file'], msg: TEXT.fieldRequired, type: 'missing' }]);
  }
  const kindField = parsed.fields.kind;
  if (kindField !== undefined && !['video', 'audio', 'srt'].includes(kindField)) {
    await rm(tmp, { force: true });
    throw unprocessable([{ loc: ['body', 'kind'], msg: 'kind must be video, audio or srt', type: 'enum' }]);
  }
  const filename = (file.filename || 'upload').slice(0, 255);
  const key = uploadKey(id, filename);
  await repo.insertMedia(deps.db, {
    id, spaceId: space.id, userId: user.id, kind: kindFrom(kindField, filename), filename,
    contentType: file.contentType, sizeBytes: file.size, storageKey: key, via: 'multipart',
  });
  try {
    await storage.putFile(key, tmp, { move: true });
  } catch (e) {
    // Nothing half-stored: the row and whatever reached the upload's folder go.
    await storage.deletePrefix(`uploads/${id}/`).catch(() => {});
    await repo.deleteMedia(deps.db, id);
    throw isDiskFull(e) ? diskFull() : e;
  } finally {
    await rm(tmp, { force: true });
  }
  const row = await checkUpload({ db: deps.db, storage, config: deps.config }, id);
  return c.json(mediaJson(row!));
});

/** An upload is visible to its uploader and to members of the space it was uploaded into. */
async function visibleMedia(c: Context<AppEnv>, id: string) {
  if (!isUuid(id)) throw notFound('Media not found');
  const db = c.get('deps').db;
  const m = await repo.findMedia(db, id);
  const user = c.get('user');
  if (!m) throw notFound('Media not found');
  if (m.user_id !== user.id && !user.is_superuser) {
    if (!m.space_id || !(await findMembership(db, m.space_id, user.id))) throw notFound('Media not found');
  }
  return m;
}

libraryRoutes.get('/media/:id', routeFacts({ summary: 'An upload: its status, kind, size and duration', response: 'Media' }), async (c) => {
  const m = await visibleMedia(c, c.req.param('id'));
  return c.json(mediaJson(m));
});

libraryRoutes.get('/info/video', routeFacts({
  summary: 'What the link\'s site tells of a video (title, duration, thumbnail) before it is downloaded; 400 for a playlist, a live stream or a video too long',
  response: 'VideoInfo',
  query: [{ name: 'link', required: true, description: 'The video\'s address' }],
  errors: { 400: 'An invalid or unreadable link, a playlist, a live stream, or a video longer than the limit' },
}), async (c) => {
  const link = (c.req.query('link') ?? '').trim();
  if (!link) throw unprocessable([{ loc: ['query', 'link'], msg: TEXT.fieldRequired, type: 'missing' }]);
  if (!isValidVideoLink(link)) throw badRequest(TEXT.incorrectLink);
  const limits = c.get('deps').config.limits;
  try {
    const info = await probeLink(link, { signal: c.req.raw.signal, timeoutMs: 60_000 });
    if (info.type === 'playlist') throw badRequest('This link is a playlist: please provide a link to one video');
    if (info.isLive) throw badRequest('Live streams cannot be dubbed');
    if (info.durationSec !== null && info.durationSec > limits.maxVideoDownloadDuration) {
      throw badRequest(`The video is too long (${formatDuration(info.durationSec)}): the limit is ${formatDuration(limits.maxVideoDownloadDuration)}`);
    }
    return c.json({
      link,
      title: info.title,
      duration: info.durationSec,
      thumbnail: info.thumbnail,
      extractor: info.extractor,
      webpage_url: info.webpageUrl,
    });
  } catch (e) {
    if (e instanceof MediaError) throw badRequest(e.message);
    throw e;
  }
});

// ------------------------------------------------------------------ tus

// One tus server per app (its state: tests build several apps in one process).
const TUS_SERVER = namespace('library:tus', () => ({ server: null as Promise<TusServer> | null }));

async function tus(c: Context<AppEnv>): Promise<TusServer> {
  const deps = c.get('deps');
  const slot = deps.db.state.of(TUS_SERVER);
  slot.server ??= createTusServer({ ...deps, storage: storageOf(c) });
  return slot.server;
}

libraryRoutes.all('/tus', routeFacts({ summary: 'Resumable upload (tus 1.0.0): POST creates an upload (Upload-Length, Upload-Metadata filename and kind) in the space_id Teamspace; OPTIONS answers the server\'s capabilities', query: [{ name: 'space_id', description: 'The Teamspace the upload goes to (required by POST)' }] }), async (c) => {
  const server = await tus(c);
  const req = c.req.raw;
  if (req.method === 'POST') {
    const space = await requireSpaceAccess(c, spaceIdFromQuery(c));
    tusContext.set(req, { userId: c.get('user').id, spaceId: space.id });
  } else if (req.method !== 'OPTIONS') {
    throw new ApiError(404, 'Not found');
  }
  return server.handleWeb(req);
});

libraryRoutes.all('/tus/:id', routeFacts({ summary: 'Resumable upload (tus 1.0.0): HEAD answers Upload-Offset, PATCH sends the next bytes (application/offset+octet-stream), DELETE ends it' }), async (c) => {
  const server = await tus(c);
  const req = c.req.raw;
  if (req.method !== 'OPTIONS') {
    const id = c.req.param('id');
    const m = isUuid(id) ? await repo.findMedia(c.get('deps').db, id) : null;
    if (!m || m.via !== 'tus' || (m.user_id !== c.get('user').id && !c.get('user').is_superuser)) {
      throw new ApiError(404, 'Upload not found');
    }
    const spaceId = optionalSpaceIdFromQuery(c);
    tusContext.set(req, { userId: c.get('user').id, spaceId: spaceId ?? m.space_id });
  }
  return server.handleWeb(req);
});
