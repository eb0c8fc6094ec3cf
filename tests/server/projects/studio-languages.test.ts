// Several target languages per video (issue 15): a free copy (free_dubbing) is not charged again, and only a plan
// with free languages may ask for one; create_transcript with dst_langs makes one project, and the other
// languages' projects are made from its analysis (no ASR again), listed under it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { Project } from '../../../contract/schemas/project';
import * as ledger from '../../../server/domains/billing/ledger';
import { makePendingLanguages } from '../../../server/domains/projects/languages';
import { projectKey } from '../../../server/storage/index';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { api, createProject, jobsOf, newUser, seedProject, uploadOk, type TestUser } from './projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';

let h: Harness;
let video: string;

beforeAll(async () => {
  h = await createHarness();
  video = await makeSpeechVideo({ seconds: 3 });
}, 240_000);
afterAll(async () => {
  await h?.close();
});

const ledgerRows = (spaceId: string) =>
  h.deps.db.query<{ kind: string; minutes: number; project_id: string | null }>(
    `SELECT kind, minutes::float8 AS minutes, project_id FROM minutes_ledger WHERE space_id = $1 AND kind IN ('debit', 'refund') ORDER BY created_at, id`,
    [spaceId],
  );

describe('copy into another language', () => {
  it('a free copy (free_dubbing) is not charged again; a paid copy is; the ledger says so', async () => {
    const u = await newUser(h, 'ent');
    await grantPlan(h, u.id, 'enterprise');
    await ledger.post(h.deps.db, { spaceId: u.defaultSpaceId, kind: 'purchase', minutes: 10, ref: 'test:topup' });
    const mediaId = await uploadOk(h, u, video);
    const src = await seedProject(h, u, { mediaId, duration: 100, name: 'Talk' });
    expect((await api(h, 'POST', `/api/project/${src}/generate`, { token: u.token })).status).toBe(200);
    await h.deps.db.query(`UPDATE projects SET status = 'merging_done' WHERE id = $1`, [src]); // the dub is done
    const free = await api(h, 'POST', `/api/project/${src}/copy`, { token: u.token, body: { dst_lang: 'ca', free_dubbing: true } });
    expect(free.status, JSON.stringify(free.json)).toBe(200);
    expect(free.json).toMatchObject({ free_dubbing: true, copied_from: src, dst_lang: 'ca', duration: 100 });
    const paid = await api(h, 'POST', `/api/project/${src}/copy`, { token: u.token, body: { dst_lang: 'ca' } });
    expect(paid.json).toMatchObject({ free_dubbing: false, copied_from: src });
    // The copies are made generatable by hand here (no pipeline runs in this file).
    for (const id of [free.json.id, paid.json.id]) {
      await h.deps.db.query(`UPDATE segments SET dst_text = 'Hola', status = 'done' WHERE project_id = $1`, [id]);
      await h.deps.db.query(`UPDATE projects SET status = 'translation_done' WHERE id = $1`, [id]);
      expect((await api(h, 'POST', `/api/project/${id}/generate`, { token: u.token })).status).toBe(200);
    }
    // The free copy's dub writes no debit; the paid copy's is the whole video again.
    expect((await ledgerRows(u.defaultSpaceId)).map((r) => [r.project_id, r.minutes])).toEqual([
      [src, -2],
      [paid.json.id, -2],
    ]);
    expect((await ledger.balances(h.deps.db, u.defaultSpaceId)).minutes).toMatchObject({ total: 13, used: 4 });
  });

  it('a plan without free languages is refused a free copy (403) and nothing is made', async () => {
    const u = await newUser(h, 'biz');
    await grantPlan(h, u.id, 'business');
    const mediaId = await uploadOk(h, u, video);
    const src = await seedProject(h, u, { mediaId });
    const before = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE space_id = $1', [u.defaultSpaceId]);
    const r = await api(h, 'POST', `/api/project/${src}/copy`, { token: u.token, body: { dst_lang: 'ca', free_dubbing: true } });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ code: 'feature_not_in_plan', feature: 'free_languages' });
    const after = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE space_id = $1', [u.defaultSpaceId]);
    expect(after.n).toBe(before.n);
  });

  it("reuses the source's analysis artifacts instead of running it again", async () => {
    const u = await newUser(h, 'reuse');
    const mediaId = await uploadOk(h, u, video);
    const src = await seedProject(h, u, { mediaId });
    for (const a of ['audio_16k.wav', 'background.wav', 'vad.json']) await h.deps.storage.putBuffer(projectKey(src, a), `artifact ${a}`);
    const r = await api(h, 'POST', `/api/project/${src}/copy`, { token: u.token, body: { dst_lang: 'ca' } });
    expect(r.status).toBe(200);
    for (const a of ['audio_16k.wav', 'background.wav', 'vad.json']) {
      expect((await h.deps.storage.getBuffer(projectKey(r.json.id, a))).toString()).toBe(`artifact ${a}`);
    }
    expect((await jobsOf(h, r.json.id)).map((j) => j.stage)).toEqual(['voice_suggest']);
  });
});

describe('create_transcript with several target languages', () => {
  let u: TestUser;
  let mediaId: string;
  beforeAll(async () => {
    u = await newUser(h, 'multi');
    await grantPlan(h, u.id, 'business');
    mediaId = await uploadOk(h, u, video);
  }, 120_000);

  it('makes one project (the first language) with the others pending, and one ingest', async () => {
    const r = await createProject(h, u, { name: 'World', src_lang: 'en', dst_langs: ['es', 'ca'], media_id: mediaId });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const p = v.parse(Project, r.json);
    expect(p).toMatchObject({ dst_lang: 'es', pending_dst_langs: ['ca'], copied_from: null });
    expect((await jobsOf(h, p.id)).map((j) => j.stage)).toEqual(['ingest']);
    // dst_lang alone keeps working, and dst_lang + dst_langs count together.
    const one = await createProject(h, u, { name: 'One', src_lang: 'en', dst_lang: 'ca', media_id: mediaId });
    expect(one.json).toMatchObject({ dst_lang: 'ca', pending_dst_langs: [] });
    const both = await createProject(h, u, { name: 'Both', src_lang: 'en', dst_lang: 'ca', dst_langs: ['es', 'ca'], media_id: mediaId });
    expect(both.json).toMatchObject({ dst_lang: 'ca', pending_dst_langs: ['es'] });
  });

  it('refuses bad input with a clear error, before any work', async () => {
    const count = async () => (await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE space_id = $1', [u.defaultSpaceId])).n;
    const before = await count();
    const none = await createProject(h, u, { name: 'x', src_lang: 'en', media_id: mediaId });
    expect(none.status).toBe(400);
    expect(none.json.detail).toBe('Choose a target language');
    const empty = await createProject(h, u, { name: 'x', src_lang: 'en', dst_langs: [], media_id: mediaId });
    expect(empty.status).toBe(422);
    const unsupported = await createProject(h, u, { name: 'x', src_lang: 'en', dst_langs: ['es', 'xx'], media_id: mediaId });
    expect(unsupported.status).toBe(400);
    expect(unsupported.json.detail).toMatch(/^Unsupported language pair en -> xx/);
    const same = await createProject(h, u, { name: 'x', src_lang: 'en', dst_langs: ['es', 'en'], media_id: mediaId });
    expect(same.status).toBe(400);
    const srt = await createProject(h, u, { name: 'x', src_lang: 'en', dst_langs: ['es', 'ca'], media_id: mediaId, dst_srt_media_id: mediaId });
    expect(srt.status).toBe(400);
    expect(await count()).toBe(before);
  });

  it('a plan without multilanguage is refused, however the languages are given', async () => {
    const t = await newUser(h, 'trial');
    const m = await uploadOk(h, t, video);
    for (const body of [{ dst_langs: ['es', 'ca'] }, { dst_lang: 'es', dst_langs: ['ca'] }]) {
      const r = await createProject(h, t, { name: 'x', src_lang: 'en', media_id: m, ...body });
      expect(r.status, JSON.stringify(body)).toBe(403);
      expect(r.json.feature).toBe('multilanguage');
    }
    expect((await createProject(h, t, { name: 'x', src_lang: 'en', media_id: m, dst_langs: ['es'] })).status).toBe(200);
  });

  it('once the speakers are known, each pending language gets its project from the same analysis, once', async () => {
    const r = await createProject(h, u, { name: 'Lecture', src_lang: 'en', dst_langs: ['es', 'ca'], media_id: mediaId });
    const id = r.json.id as string;
    // The analysis as the pipeline leaves it (segments, speakers, artifacts); the stage then makes the languages.
    const seeded = await seedProject(h, u, { mediaId });
    await h.deps.db.query(`DELETE FROM segments WHERE project_id = $1`, [id]);
    await h.deps.db.query(
      `INSERT INTO segments (project_id, start_sec, end_sec, speaker, src_text, dst_text, status) SELECT $1, start_sec, end_sec, speaker, src_text, '', 'done' FROM segments WHERE project_id = $2`,
      [id, seeded],
    );
    await h.deps.db.query(`INSERT INTO speakers (project_id, id, name, gender, position) VALUES ($1, 'SPEAKER_0', 'Speaker 1', 'female', 0)`, [id]);
    await h.deps.storage.putBuffer(projectKey(id, 'background.wav'), 'bg');
    const made = await makePendingLanguages(h.deps, id);
    expect(made).toHaveLength(1);
    expect(await makePendingLanguages(h.deps, id)).toEqual([]);
    const child = await api(h, 'GET', `/api/project/${made[0]}`, { token: u.token });
    expect(child.json).toMatchObject({ name: 'Lecture (CA)', dst_lang: 'ca', copied_from: id, status: 'determine_speakers_done', free_dubbing: false });
    expect(child.json.speakers).toEqual([expect.objectContaining({ id: 'SPEAKER_0', gender: 'female' })]);
    const t = await api(h, 'GET', `/api/project/${made[0]}/transcript`, { token: u.token });
    expect(t.json.segments.map((s: { src: { text: string }; dst: { text: string } }) => [s.src.text, s.dst.text])).toEqual([
      ['Hello there.', ''], ['How are you?', ''], ['Fine.', ''],
    ]);
    expect((await h.deps.storage.getBuffer(projectKey(made[0]!, 'background.wav'))).toString()).toBe('bg');
    expect((await api(h, 'GET', `/api/project/${id}`, { token: u.token })).json.pending_dst_langs).toEqual([]);
  });
});
