// Nothing left behind: deleting a project, a Teamspace or an account removes every stored file of it (the
// triggers of migration 010 queue them in the deleting transaction, the cleanup removes them after the
// commit); the sweep removes upload records after 60 days, orphans past a grace period and scratch folders of
// killed processes; a removal that fails stays queued until the sweep finishes it.
import { mkdirSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeGarbage, sweepRetention } from '../../../server/domains/retention/service';
import { countGarbage } from '../../../server/domains/retention/repository';
import { projectKey, type Storage } from '../../../server/storage/index';
import { makeSilentVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { signUpAndCreate } from '../helpers';
import { typedClient } from '../typed-client';
import { makeUser, seedProject, srtText, uploadFile, uploadOk, newUser } from '../projects/projects-fixtures';

let h: Harness;
let storage: Storage;
let video: string;

beforeAll(async () => {
  h = await createHarness();
  storage = h.deps.storage!;
  video = await makeSilentVideo({ seconds: 1 });
});
afterAll(async () => {
  await h?.close();
});

async function keys(prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for await (const o of storage.list(prefix)) out.push(o.key);
  return out.sort();
}

/** A project with an upload, a subtitle upload and pipeline outputs in storage. */
async function projectWithFiles(u: Awaited<ReturnType<typeof newUser>>, spaceId = u.defaultSpaceId) {
  const up = await uploadFile(h, u, video, { name: 'talk.mp4', spaceId });
  expect(up.json?.status, JSON.stringify(up.json)).toBe('uploaded');
  const mediaId = up.json.id as string;
  const id = await seedProject(h, u, { mediaId, status: 'merging_done', spaceId });
  for (const a of ['audio_16k.wav', 'out/1/translated_video.mp4', 'clips/abc.wav', 'source.mp4']) await storage.putBuffer(projectKey(id, a), 'x');
  await h.deps.db.query(`UPDATE projects SET translated_video = $2 WHERE id = $1`, [id, projectKey(id, 'out/1/translated_video.mp4')]);
  return { id, mediaId };
}

describe('deleting removes the stored files', () => {
  it('a project: its folder and the upload it was made from (storage ends empty)', async () => {
    const u = await newUser(h, 'del-project');
    const { id, mediaId } = await projectWithFiles(u);
    expect(await keys()).toEqual(expect.arrayContaining([`uploads/${mediaId}/file.mp4`, projectKey(id, 'source.mp4')]));
    const asU = typedClient(h, u.token);
    const r = await asU.DELETE('/api/project/{id}', { params: { path: { id } } });
    expect(r.response.status).toBe(200);
    expect(await keys()).toEqual([]);
    expect(await countGarbage(h.deps.db)).toBe(0);
    expect((await asU.GET('/api/library/media/{id}', { params: { path: { id: mediaId } } })).response.status).toBe(404);
  });

  it('a project keeps an upload another project still uses', async () => {
    const u = await newUser(h, 'shared-upload');
    const mediaId = await uploadOk(h, u, video, { name: 'talk.mp4' });
    const a = await seedProject(h, u, { mediaId });
    const b = await seedProject(h, u, { mediaId });
    await storage.putBuffer(projectKey(a, 'source.mp4'), 'a');
    await storage.putBuffer(projectKey(b, 'source.mp4'), 'b');
    const asU = typedClient(h, u.token);
    expect((await asU.DELETE('/api/project/{id}', { params: { path: { id: a } } })).response.status).toBe(200);
    // b keeps its files and the upload (with the cover frame taken at upload).
    expect(await keys()).toEqual([projectKey(b, 'cover.jpg'), projectKey(b, 'source.mp4'), `uploads/${mediaId}/cover.jpg`, `uploads/${mediaId}/file.mp4`].sort());
    expect((await asU.DELETE('/api/project/{id}', { params: { path: { id: b } } })).response.status).toBe(200);
    expect(await keys()).toEqual([]);
  });

  it('a Teamspace: every project and upload in it', async () => {
    const root = await makeUser(h, 'root-retention@example.com', { superuser: true });
    const o = await signUpAndCreate(h, 'space-owner@example.com');
    const owner = { id: o.user.id, email: o.user.email, token: o.token, defaultSpaceId: '', claimed: [] };
    const asRoot = typedClient(h, root.token);
    const asOwner = typedClient(h, o.token);
    const plan = (p: 'creator_pro' | 'trial') => asRoot.PATCH('/api/admin/users/{id}', { params: { path: { id: o.user.id } }, body: { plan: p } });
    await plan('creator_pro');
    const s = await asOwner.POST('/api/space/create', { body: { data: { name: 'Extra', color: 'sand' } } });
    expect(s.response.status).toBe(201);
    const extra = s.data!.id;
    const p1 = await projectWithFiles(owner, extra);
    const p2 = await projectWithFiles(owner, extra);
    const srt = join(h.dataDir, 'cues.srt');
    writeFileSync(srt, srtText([[0, 1, 'Hi']]));
    const up = await uploadFile(h, owner, srt, { kind: 'srt', spaceId: extra });
    expect(up.status).toBe(200);
    expect((await keys()).length).toBeGreaterThanOrEqual(11);
    await plan('trial');
    const r = await asOwner.DELETE('/api/space/{id}', { params: { path: { id: extra } } });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(await keys()).toEqual([]);
    expect(await h.deps.db.query(`SELECT id FROM projects WHERE id IN ($1, $2)`, [p1.id, p2.id])).toEqual([]);
  });

  it('an account: its spaces, projects and uploads', async () => {
    const a = await signUpAndCreate(h, 'leaving@example.com');
    const asA = typedClient(h, a.token);
    const u = { id: a.user.id, email: a.user.email, token: a.token, defaultSpaceId: (await asA.GET('/api/space/list')).data![0]!.id, claimed: [] };
    await projectWithFiles(u);
    await uploadOk(h, u, video, { name: 'unused.mp4' });
    expect((await keys()).length).toBeGreaterThan(4);
    const r = await asA.DELETE('/api/users/current');
    expect(r.response.status).toBe(204);
    expect(await keys()).toEqual([]);
  });
});

describe('the cleanup survives failures', () => {
  it('a removal that fails stays queued with its error; the sweep finishes it', async () => {
    const u = await newUser(h, 'flaky');
    const { id, mediaId } = await projectWithFiles(u);
    const real = storage.deletePrefix.bind(storage);
    let failures = 0;
    storage.deletePrefix = async () => {
      failures++;
      throw Object.assign(new Error('store unreachable'), { code: 'ECONNRESET' });
    };
    try {
      const r = await typedClient(h, u.token).DELETE('/api/project/{id}', { params: { path: { id } } });
      expect(r.response.status).toBe(200); // the deletion itself succeeded
    } finally {
      storage.deletePrefix = real;
    }
    // Two folders: the project's and its upload's (file and cover frame).
    expect(failures).toBe(2);
    const queued = await h.deps.db.query<{ target: string; attempts: number; last_error: string }>(`SELECT target, attempts, last_error FROM storage_garbage ORDER BY target`);
    expect(queued).toEqual([
      { target: `projects/${id}/`, attempts: 1, last_error: 'store unreachable' },
      { target: `uploads/${mediaId}/`, attempts: 1, last_error: 'store unreachable' },
    ]);
    expect(await keys(`projects/${id}/`)).not.toEqual([]);
    await sweepRetention({ db: h.deps.db, storage, config: h.config });
    expect(await keys()).toEqual([]);
    expect(await countGarbage(h.deps.db)).toBe(0);
  });
});

describe('the sweep', () => {
  it('removes upload records after 60 days, orphans past the grace period, and old scratch folders; keeps the rest', async () => {
    const u = await newUser(h, 'sweep');
    const oldUpload = await uploadOk(h, u, video, { name: 'old.mp4' });
    const freshUpload = await uploadOk(h, u, video, { name: 'fresh.mp4' });
    await h.deps.db.query(`UPDATE media_uploads SET created_at = now() - interval '61 days' WHERE id = $1`, [oldUpload]);
    await h.deps.db.query(`UPDATE media_uploads SET created_at = now() - interval '59 days' WHERE id = $1`, [freshUpload]);
    const live = await seedProject(h, u, { mediaId: freshUpload });
    await storage.putBuffer(projectKey(live, 'source.mp4'), 'x');
    // Orphans: objects of a project and an upload that have no row (a crash between commit and cleanup).
    const ghost = '7f0c8a52-9d4e-4b6f-8a51-3c2d1e0f9a8b';
    await storage.putBuffer(projectKey(ghost, 'out/1/translated_video.mp4'), 'x');
    await storage.putBuffer(`uploads/${ghost}/file.mp4`, 'x');
    // Scratch folders of a killed stage and a killed upload, a day old; a fresh one.
    const oldWork = join(h.dataDir, 'work', `${ghost}-merging-aaaaaa`);
    const newWork = join(h.dataDir, 'work', `${live}-voiceover-bbbbbb`);
    const oldTmp = join(h.dataDir, 'tmp', 'upload-dead');
    for (const d of [oldWork, newWork]) mkdirSync(d, { recursive: true });
    mkdirSync(join(h.dataDir, 'tmp'), { recursive: true });
    writeFileSync(oldTmp, 'partial');
    const dayAgo = new Date(Date.now() - 25 * 3600 * 1000);
    utimesSync(oldWork, dayAgo, dayAgo);
    utimesSync(oldTmp, dayAgo, dayAgo);

    // Within the grace period the orphans stay (they could belong to work in flight).
    let report = await sweepRetention({ db: h.deps.db, storage, config: h.config });
    expect(report.uploadsExpired).toBe(1);
    expect(report.orphanPrefixes).toEqual([]);
    expect(await keys(`uploads/${oldUpload}/`)).toEqual([]);
    expect(await keys(`uploads/${freshUpload}/`)).toEqual([`uploads/${freshUpload}/cover.jpg`, `uploads/${freshUpload}/file.mp4`]);
    expect(await keys(projectKey(ghost, ''))).toHaveLength(1);
    expect(existsSync(oldWork)).toBe(false);
    expect(existsSync(oldTmp)).toBe(false);
    expect(existsSync(newWork)).toBe(true);

    report = await sweepRetention({ db: h.deps.db, storage, config: h.config }, { now: Date.now() + 2 * 3600 * 1000 });
    expect(report.orphanPrefixes.sort()).toEqual([`projects/${ghost}/`, `uploads/${ghost}/`]);
    expect(await keys()).toEqual([projectKey(live, 'cover.jpg'), projectKey(live, 'source.mp4'), `uploads/${freshUpload}/cover.jpg`, `uploads/${freshUpload}/file.mp4`].sort());
    // A second sweep finds nothing more to do.
    report = await sweepRetention({ db: h.deps.db, storage, config: h.config }, { now: Date.now() + 2 * 3600 * 1000 });
    expect(report).toMatchObject({ uploadsExpired: 0, orphanPrefixes: [], garbage: { removed: 0, failed: 0 } });
    await purgeGarbage({ db: h.deps.db, storage, config: h.config });
  });
});
