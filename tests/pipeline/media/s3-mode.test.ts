// S3 mode end to end, against an S3-compatible server on 127.0.0.1 (s3rver): a resumable tus upload that goes
// straight into the bucket (an S3 multipart upload), a multipart/form-data upload, the whole pipeline reading
// and writing the bucket, signed downloads served by the store with range requests, and deletions that leave
// the bucket empty.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probe } from '../../../server/media/probe';
import { S3Storage } from '../../../server/storage/index';
import { startFakeS3, type FakeS3 } from '../../fakes/s3';
import { makeSpeechVideo, tempDir } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { createProject, newUser, replacePipeline, srtText, uploadFile, waitForStatus, type TestUser } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';

let s3: FakeS3;
let h: Harness;
let u: TestUser;
const dir = tempDir('s3-');

beforeAll(async () => {
  s3 = await startFakeS3();
  h = await createHarness(s3.env);
  u = await newUser(h, 's3');
  const p = await replacePipeline(h, { heartbeatMs: 1000, staleSec: 30 });
  await p.startWorker(1);
}, 120_000);
afterAll(async () => {
  await h?.close();
  await s3?.close();
});

const auth = () => ({ authorization: `Bearer ${u.token}`, 'tus-resumable': '1.0.0' });
const meta = (o: Record<string, string>) => Object.entries(o).map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`).join(',');

describe('S3 storage through the app', () => {
  let mediaId: string;
  let projectId: string;

  it('takes a resumable tus upload into the bucket, resumed after an interruption', async () => {
    expect(h.deps.storage).toBeInstanceOf(S3Storage);
    const data = readFileSync(await makeSpeechVideo({ seconds: 6 }));
    const create = await h.app.request(`/api/library/tus?space_id=${u.defaultSpaceId}`, {
      method: 'POST',
      headers: { ...auth(), 'upload-length': String(data.length), 'upload-metadata': meta({ filename: 'talk.mp4', filetype: 'video/mp4' }) },
    });
    expect(create.status).toBe(201);
    const location = create.headers.get('location')!;
    mediaId = location.split('/').pop()!;
    // The upload is an open S3 multipart upload in the bucket.
    expect(await s3.openUploads()).toHaveLength(1);
    const half = Math.floor(data.length / 2);
    const p1 = await h.app.request(location, {
      method: 'PATCH', headers: { ...auth(), 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' }, body: data.subarray(0, half),
    });
    expect(p1.status).toBe(204);
    const head = await h.app.request(location, { method: 'HEAD', headers: auth() });
    expect(head.headers.get('upload-offset')).toBe(String(half));
    const p2 = await h.app.request(location, {
      method: 'PATCH', headers: { ...auth(), 'upload-offset': String(half), 'content-type': 'application/offset+octet-stream' }, body: data.subarray(half),
    });
    expect(p2.status).toBe(204);
    expect(p2.headers.get('media-status')).toBe('uploaded');
    // Finished: the file (and the cover frame the project cards show) sit under uploads/, the tus bookkeeping
    // objects are gone, no multipart upload stays open.
    expect((await s3.keys()).sort()).toEqual([`uploads/${mediaId}/cover.jpg`, `uploads/${mediaId}/file.mp4`]);
    expect(await s3.openUploads()).toEqual([]);
    expect((await h.deps.storage!.getBuffer(`uploads/${mediaId}/file.mp4`)).equals(data)).toBe(true);
  });

  it('takes a multipart/form-data upload into the bucket', async () => {
    const srt = join(dir, 'cues.srt');
    writeFileSync(srt, srtText([[0, 2, 'Hello there.']]));
    const r = await uploadFile(h, u, srt, { kind: 'srt' });
    expect(r.json).toMatchObject({ status: 'uploaded', kind: 'srt' });
    expect(await s3.keys()).toContain(`uploads/${r.json.id}/file.srt`);
  });

  it('runs the pipeline on the bucket: analysis, generation, outputs stored in S3', async () => {
    const r = await createProject(h, u, { name: 'S3 talk', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    projectId = r.data!.id;
    await waitForStatus(h, u, projectId, (s) => s === 'translation_done' || /failed/.test(s), 150_000);
    const g = await typedClient(h, u.token).POST('/api/project/{id}/generate', { params: { path: { id: projectId } } });
    expect(g.response.status, JSON.stringify(g.error)).toBe(200);
    const done = await waitForStatus(h, u, projectId, (s) => s === 'merging_done' || /failed/.test(s), 150_000);
    expect(done.status).toBe('merging_done');
    const keys = await s3.keys();
    for (const a of ['source.mp4', 'audio_16k.wav', 'background.wav', 'voice_track.wav', 'out/1/translated_video.mp4', 'out/1/translation.srt']) {
      expect(keys).toContain(`projects/${projectId}/${a}`);
    }
  });

  it('serves downloads from the store behind signed URLs, with range requests', async () => {
    const r = await typedClient(h, u.token).POST('/api/project/{id}/media_download', { params: { path: { id: projectId } }, body: { media_type: 'video' } });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const url = r.data!.url;
    const redirect = await h.app.request(url);
    expect(redirect.status).toBe(302);
    const presigned = redirect.headers.get('location')!;
    expect(presigned.startsWith(`${s3.endpoint}/media/projects/${projectId}/out/1/translated_video.mp4?`)).toBe(true);
    const whole = await fetch(presigned);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-disposition')).toContain('attachment; filename="S3_talk_es.mp4"');
    const bytes = Buffer.from(await whole.arrayBuffer());
    const file = join(dir, 'dub.mp4');
    writeFileSync(file, bytes);
    const p = await probe(file);
    expect(p.hasVideo && p.hasAudio).toBe(true);
    expect(p.durationSec).toBeGreaterThan(5);
    const part = await fetch(presigned, { headers: { range: 'bytes=100-1123' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-1123/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 1124))).toBe(true);
    // A tampered link is refused before any redirect.
    const bad = await h.app.request(url.replace(/\.([^./]+)\//, '.x$1/'));
    expect(bad.status).toBe(403);
  });

  it('deleting the project, then the account, leaves the bucket empty', async () => {
    const d = await typedClient(h, u.token).DELETE('/api/project/{id}', { params: { path: { id: projectId } } });
    expect(d.response.status, JSON.stringify(d.error)).toBe(200);
    expect(d.data).toEqual({ id: projectId, status: 'deleted' });
    const left = await s3.keys();
    expect(left.filter((k) => k.startsWith(`projects/${projectId}/`) || k.startsWith(`uploads/${mediaId}/`))).toEqual([]);
    expect(left).toHaveLength(1); // the subtitle upload, not used by any project
    const gone = await typedClient(h, u.token).DELETE('/api/users/current');
    expect(gone.response.status).toBe(204);
    expect(await s3.keys()).toEqual([]);
    expect(await s3.openUploads()).toEqual([]);
  });
});
