// Library calls: multipart uploads (field `file`) with every bad input, upload status, tus resumable
// uploads (raw protocol and tus-js-client over a real HTTP server), link information.
import { serve } from '@hono/node-server';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '../../../contract/errors';
import {
  makeEmptyFile, makeSilentVideo, makeSpeechVideo, makeTextFileAsMp4, makeTruncatedMp4, tempDir,
} from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { api, newUser, srtText, uploadFile, type TestUser } from '../projects/projects-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let u: TestUser;
let other: TestUser;
let video: string;

beforeAll(async () => {
  // Small limits so the limit cases are cheap: 3 MB and 6 s.
  h = await createHarness({ MAX_VIDEO_SIZE: String(3 * 1024 * 1024), MAX_VIDEO_DURATION: '6' });
  u = await newUser(h, 'uploader');
  other = await newUser(h, 'stranger');
  video = await makeSpeechVideo({ seconds: 4 });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const mediaOf = (id: string, who = u) => typedClient(h, who.token).GET('/api/library/media/{id}', { params: { path: { id } } });
const videoInfo = (link: string) => typedClient(h, u.token).GET('/api/library/info/video', { params: { query: { link } } });

describe('POST /api/library/media (multipart)', () => {
  it('stores a video, probes it and answers {id, status}', async () => {
    const r = await uploadFile(h, u, video, { name: 'talk.mp4', contentType: 'video/mp4' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ status: 'uploaded', kind: 'video', filename: 'talk.mp4', size: statSync(video).size, error: null });
    expect(r.json.duration).toBeCloseTo(4, 0);
    const g = await mediaOf(r.json.id);
    expect(g.data).toMatchObject({ id: r.json.id, status: 'uploaded' });
    expect((await mediaOf(r.json.id, other)).response.status).toBe(404);
  });

  it('marks unreadable files as failed with a readable message', async () => {
    const text = await uploadFile(h, u, makeTextFileAsMp4());
    expect(text.json).toMatchObject({ status: 'failed', error: 'The file is not a readable video or audio file (it may be damaged or not a media file)' });
    const empty = await uploadFile(h, u, makeEmptyFile());
    expect(empty.json).toMatchObject({ status: 'failed', error: 'The file is empty (0 bytes)' });
    const truncated = await uploadFile(h, u, await makeTruncatedMp4(0.5));
    expect(truncated.json.status).toBe('failed');
    expect(truncated.json.error).toMatch(/not a readable video/);
  });

  it('enforces max_video_size while streaming and max_video_duration by probing', async () => {
    const big = join(tempDir('big-'), 'big.mp4');
    writeFileSync(big, Buffer.alloc(3 * 1024 * 1024 + 10, 1));
    const r = await uploadFile(h, u, big);
    expect(r.status).toBe(413);
    expect(r.json.detail).toBe('File is too large (the limit is 3 MB)');
    const long = await makeSilentVideo({ seconds: 8 });
    const l = await uploadFile(h, u, long);
    expect(l.json).toMatchObject({ status: 'failed', error: 'The video is too long (8 s): the limit is 6 s' });
  });

  it('checks subtitle files', async () => {
    const dir = tempDir('srt-');
    const good = join(dir, 'es.srt');
    writeFileSync(good, srtText([[0.5, 2, 'Hola.'], [3, 4.5, 'Adiós.']]));
    const ok = await uploadFile(h, u, good);
    expect(ok.json).toMatchObject({ status: 'uploaded', kind: 'srt' });
    const bad = join(dir, 'bad.srt');
    writeFileSync(bad, '1\n00:00:01 --> banana\nHello\n');
    const b = await uploadFile(h, u, bad, { kind: 'srt' });
    expect(b.json.status).toBe('failed');
    expect(b.json.error).toMatch(/^The subtitle file could not be read: unreadable timing line/);
  });

  it('rejects requests without a file, a space or a proper body', async () => {
    const form = new FormData();
    form.set('kind', 'video');
    const none = await h.app.request(`/api/library/media?space_id=${u.defaultSpaceId}`, {
      method: 'POST', headers: { authorization: `Bearer ${u.token}` }, body: form,
    });
    expect(none.status).toBe(422);
    const json = await h.app.request(`/api/library/media?space_id=${u.defaultSpaceId}`, {
      method: 'POST', headers: { authorization: `Bearer ${u.token}`, 'content-type': 'application/json' }, body: '{}',
    });
    expect(json.status).toBe(415);
    const noSpace = await h.app.request('/api/library/media', { method: 'POST', headers: { authorization: `Bearer ${u.token}` }, body: form });
    expect(noSpace.status).toBe(422);
    const foreign = await uploadFile(h, other, video, { spaceId: u.defaultSpaceId });
    expect(foreign.status).toBe(403);
    const anon = await h.app.request(`/api/library/media?space_id=${u.defaultSpaceId}`, { method: 'POST', body: form });
    expect(anon.status).toBe(401);
    const badKind = await uploadFile(h, u, video, { kind: 'picture' });
    expect(badKind.status).toBe(422);
  });

  it('keeps a file whose body contains boundary-like bytes intact', async () => {
    const dir = tempDir('tricky-');
    const p = join(dir, 'tricky.srt');
    const body = srtText([[0, 1, '--not-a-boundary\r\n--'], [1.5, 2, 'ok']]);
    writeFileSync(p, body);
    const r = await uploadFile(h, u, p);
    expect(r.json.status).toBe('uploaded');
    const row = await h.deps.db.one<{ storage_key: string }>('SELECT storage_key FROM media_uploads WHERE id = $1', [r.json.id]);
    expect((await h.deps.storage.getBuffer(row.storage_key)).toString('utf8')).toBe(body);
  });
});

describe('tus resumable uploads at /api/library/tus', () => {
  const auth = () => ({ authorization: `Bearer ${u.token}`, 'tus-resumable': '1.0.0' });
  const meta = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');

  it('creates, resumes after an interruption and finishes into a checked upload', async () => {
    const data = readFileSync(video);
    const create = await h.app.request(`/api/library/tus?space_id=${u.defaultSpaceId}`, {
      method: 'POST',
      headers: { ...auth(), 'upload-length': String(data.length), 'upload-metadata': meta({ filename: 'clip.mp4', filetype: 'video/mp4' }) },
    });
    expect(create.status).toBe(201);
    const location = create.headers.get('location')!;
    expect(location).toMatch(/^\/api\/library\/tus\/[0-9a-f-]{36}$/);
    const id = location.split('/').pop()!;
    expect((await mediaOf(id)).data!.status).toBe('uploading');

    const half = Math.floor(data.length / 2);
    const p1 = await h.app.request(location, {
      method: 'PATCH', headers: { ...auth(), 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body: data.subarray(0, half),
    });
    expect(p1.status).toBe(204);
    // The client reconnects and asks where to resume.
    const head = await h.app.request(location, { method: 'HEAD', headers: auth() });
    expect(head.headers.get('upload-offset')).toBe(String(half));
    const p2 = await h.app.request(location, {
      method: 'PATCH', headers: { ...auth(), 'upload-offset': String(half), 'content-type': 'application/offset+octet-stream' }, body: data.subarray(half),
    });
    expect(p2.status).toBe(204);
    expect(p2.headers.get('media-id')).toBe(id);
    expect(p2.headers.get('media-status')).toBe('uploaded');
    const m = await mediaOf(id);
    expect(m.data).toMatchObject({ status: 'uploaded', filename: 'clip.mp4', size: data.length });
    const stored = await h.deps.db.one<{ storage_key: string }>('SELECT storage_key FROM media_uploads WHERE id = $1', [id]);
    expect((await h.deps.storage.getBuffer(stored.storage_key)).equals(data)).toBe(true);
  });

  it('refuses uploads over the size limit, other people and a missing space', async () => {
    const big = await h.app.request(`/api/library/tus?space_id=${u.defaultSpaceId}`, {
      method: 'POST', headers: { ...auth(), 'upload-length': String(10 * 1024 * 1024) },
    });
    expect(big.status).toBe(413);
    const noSpace = await h.app.request('/api/library/tus', { method: 'POST', headers: { ...auth(), 'upload-length': '10' } });
    expect(noSpace.status).toBe(422);
    const create = await h.app.request(`/api/library/tus?space_id=${u.defaultSpaceId}`, {
      method: 'POST', headers: { ...auth(), 'upload-length': '10' },
    });
    const location = create.headers.get('location')!;
    const stranger = await h.app.request(location, { method: 'HEAD', headers: { authorization: `Bearer ${other.token}`, 'tus-resumable': '1.0.0' } });
    expect(stranger.status).toBe(404);
  });

  it('works with tus-js-client against a real HTTP server', async () => {
    const server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const data = readFileSync(video);
      const url = await new Promise<string>((resolve, reject) => {
        const up = new tus.Upload(data, {
          endpoint: `http://127.0.0.1:${port}/api/library/tus?space_id=${u.defaultSpaceId}`,
          chunkSize: 64 * 1024,
          retryDelays: [0],
          headers: { authorization: `Bearer ${u.token}` },
          metadata: { filename: 'client.mp4', filetype: 'video/mp4', kind: 'video' },
          onError: reject,
          onSuccess: () => resolve(up.url!),
        });
        up.start();
      });
      const id = url.split('/').pop()!;
      const m = await mediaOf(id);
      expect(m.data).toMatchObject({ status: 'uploaded', filename: 'client.mp4', size: data.length });
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});

describe('GET /api/library/info/video', () => {
  it('refuses links that are not YouTube, Drive or Vimeo videos', async () => {
    for (const link of ['https://example.com/video.mp4', 'https://www.youtube.com/', 'not a link', 'https://vimeo.com/about']) {
      const r = await videoInfo(link);
      expect({ status: r.response.status, error: r.error }, link).toMatchObject({ status: 400, error: { detail: TEXT.incorrectLink } });
    }
    // Untyped: without the link the types require.
    expect((await api(h, 'GET', '/api/library/info/video', { token: u.token })).status).toBe(422);
  });

  it('answers a readable error for a link that cannot be read', async () => {
    // A well-formed link to a video that does not exist (and, offline, a host that cannot be reached).
    const r = await videoInfo('https://www.youtube.com/watch?v=zzzzzzzzzz0');
    expect(r.response.status).toBe(400);
    expect(r.error!.detail).toMatch(/^Could not read the video from this link: /);
  });
});
