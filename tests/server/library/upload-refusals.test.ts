// Uploads that cannot be kept (issue 26): a video sent as a subtitle file is refused with 422 and leaves nothing
// behind (no row, no file); an error text with NUL bytes can still be stored.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSpeechVideo } from '../../fixtures/media';
import { finishMedia, insertMedia } from '../../../server/domains/library/repository';
import { createHarness, type Harness } from '../harness';
import { filesUnder } from '../helpers';
import { newUser, uploadFile, type TestUser } from '../projects/projects-fixtures';

let h: Harness;
let u: TestUser;
let video: string;

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'uploader');
  video = await makeSpeechVideo({ seconds: 2 });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('subtitle uploads', () => {
  it('an MP4 uploaded as .srt is refused with 422 naming the expected format; nothing is stored', async () => {
    const before = filesUnder(join(h.dataDir, 'media'));
    const r = await uploadFile(h, u, video, { name: 'clip.srt', kind: 'srt' });
    expect(r.status, JSON.stringify(r.json)).toBe(422);
    expect(r.json.detail).toMatch(/^This file is not a SubRip \(\.srt\) subtitle file/);
    expect(r.json.code).toBe('not_subtitle_file');
    expect(JSON.stringify(r.json)).not.toContain('\\u0000');
    const rows = await h.deps.db.query('SELECT id FROM media_uploads WHERE user_id = $1', [u.id]);
    expect(rows).toEqual([]);
    expect(filesUnder(join(h.dataDir, 'media'))).toEqual(before);
    expect(filesUnder(join(h.dataDir, 'tmp'))).toEqual([]);
  });

  it('the same file named .srt without a kind is refused the same way', async () => {
    const r = await uploadFile(h, u, video, { name: 'clip.srt' });
    expect(r.status, JSON.stringify(r.json)).toBe(422);
    expect(r.json.detail).toMatch(/^This file is not a SubRip \(\.srt\) subtitle file/);
    expect(await h.deps.db.query('SELECT id FROM media_uploads WHERE user_id = $1', [u.id])).toEqual([]);
  });

  it('an error text with NUL bytes is stored without them', async () => {
    const id = crypto.randomUUID();
    await insertMedia(h.deps.db, {
      id, spaceId: u.defaultSpaceId, userId: u.id, kind: 'srt', filename: 'x.srt', contentType: null, sizeBytes: 1, storageKey: `uploads/${id}/file.srt`, via: 'multipart',
    });
    const row = await finishMedia(h.deps.db, id, { status: 'failed', error: 'found: \u0000\u0000ftypisom\u0001 here' });
    expect(row?.error).toBe('found: ftypisom here');
    const r = await h.request('GET', `/api/library/media/${id}`, { token: u.token });
    expect((await r.json()).error).toBe('found: ftypisom here');
  });
});
