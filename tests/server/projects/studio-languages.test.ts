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
import type { components } from '../../../src/lib/api/schema';
import { typedClient } from '../typed-client';
import { jobsOf, newUser, seedProject, uploadOk, type TestUser } from './projects-fixtures';
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

const at = (id: string) => ({ params: { path: { id } } });
const generate = (u: TestUser, id: string) => typedClient(h, u.token).POST('/api/project/{id}/generate', at(id));
const copy = (u: TestUser, id: string, body: components['schemas']['CopyProjectRequest']) => typedClient(h, u.token).POST('/api/project/{id}/copy', { ...at(id), body });
const createTranscript = (u: TestUser, body: components['schemas']['CreateTranscriptRequest']) =>
  typedClient(h, u.token).POST('/api/project/create_transcript', { params: { query: { space_id: u.defaultSpaceId } }, body });

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
    expect((await generate(u, src)).response.status).toBe(200);
    await h.deps.db.query(`UPDATE projects SET status = 'merging_done' WHERE id = $1`, [src]); // the dub is done
    const free = await copy(u, src, { dst_lang: 'ca', free_dubbing: true });
    expect(free.response.status, JSON.stringify(free.error)).toBe(200);
    expect(free.data).toMatchObject({ free_dubbing: true, copied_from: src, dst_lang: 'ca', duration: 100 });
    const paid = await copy(u, src, { dst_lang: 'ca' });
    expect(paid.data).toMatchObject({ free_dubbing: false, copied_from: src });
    // The copies are made generatable by hand here (no pipeline runs in this file).
    for (const id of [free.data!.id, paid.data!.id]) {
      await h.deps.db.query(`UPDATE segments SET dst_text = 'Hola', status = 'done' WHERE project_id = $1`, [id]);
      await h.deps.db.query(`UPDATE projects SET status = 'translation_done' WHERE id = $1`, [id]);
      expect((await generate(u, id)).response.status).toBe(200);
    }
    // The free copy's dub writes no debit; the paid copy's is the whole video again.
    expect((await ledgerRows(u.defaultSpaceId)).map((r) => [r.project_id, r.minutes])).toEqual([
      [src, -2],
      [paid.data!.id, -2],
    ]);
    expect((await ledger.balances(h.deps.db, u.defaultSpaceId)).minutes).toMatchObject({ total: 13, used: 4 });
  });

  it('a plan without free languages is refused a free copy (403) and nothing is made', async () => {
    const u = await newUser(h, 'biz');
    await grantPlan(h, u.id, 'business');
    const mediaId = await uploadOk(h, u, video);
    const src = await seedProject(h, u, { mediaId });
    const before = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE space_id = $1', [u.defaultSpaceId]);
    const r = await copy(u, src, { dst_lang: 'ca', free_dubbing: true });
    expect(r.response.status).toBe(403);
    expect(r.error).toMatchObject({ code: 'feature_not_in_plan', feature: 'free_languages' });
    const after = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE space_id = $1', [u.defaultSpaceId]);
    expect(after.n).toBe(before.n);
  });

  it("reuses the source's analysis artifacts instead of running it again", async () => {
    const u = await newUser(h, 'reuse');
    const mediaId = await uploadOk(h, u, video);
    const src = await seedProject(h, u, { mediaId });
    for (const a of ['audio_16k.wav', 'background.wav', 'vad.json']) await h.deps.storage.putBuffer(projectKey(src, a), `artifact ${a}`);
    const r = await copy(u, src, { dst_lang: 'ca' });
    expect(r.response.status).toBe(200);
    for (const a of ['audio_16k.wav', 'background.wav', 'vad.json']) {
      expect((await h.deps.storage.getBuffer(projectKey(r.data!.id, a))).toString()).toBe(`artifact ${a}`);
    }
    expect((await jobsOf(h, r.data!.id)).map((j) => j.stage)).toEqual(['voice_suggest']);
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
    const r = await createTranscript(u, { name: 'World', src_lang: 'en', dst_langs: ['es', 'ca'], media_id: mediaId });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const p = v.parse(Project, r.data);
    expect(p).toMatchObject({ dst_lang: 'es', pending_dst_langs: ['ca'], copied_from: null });
    expect((await jobsOf(h, p.id)).map((j) => j.stage)).toEqual(['ingest']);
    // dst_lang alone keeps working, and dst_lang + dst_langs count together.
    const one = await createTranscript(u, { name: 'One', src_lang: 'en', dst_lang: 'ca', media_id: mediaId });
    expect(one.data).toMatchObject({ dst_lang: 'ca', pending_dst_langs: [] });
    const both = await createTranscript(u, { name: 'Both', src_lang: 'en', dst_lang: 'ca', dst_langs: ['es', 'ca'], media_id: mediaId });
    expect(both.data).toMatchObject({ dst_lang: 'ca', pending_dst_langs: ['es'] });
  });

  it('refuses bad input with a clear error, before any work', async () => {
    const count = async () => (await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects WHERE space_id = $1', [u.defaultSpaceId])).n;
    const before = await count();
    const none = await createTranscript(u, { name: 'x', src_lang: 'en', media_id: mediaId });
    expect(none.response.status).toBe(400);
    expect(none.error!.detail).toBe('Choose a target language');
    const empty = await createTranscript(u, { name: 'x', src_lang: 'en', dst_langs: [], media_id: mediaId });
    expect(empty.response.status).toBe(422);
    const unsupported = await createTranscript(u, { name: 'x', src_lang: 'en', dst_langs: ['es', 'xx'], media_id: mediaId });
    expect(unsupported.response.status).toBe(400);
    expect(unsupported.error!.detail).toMatch(/^Unsupported language pair en -> xx/);
    const same = await createTranscript(u, { name: 'x', src_lang: 'en', dst_langs: ['es', 'en'], media_id: mediaId });
    expect(same.response.status).toBe(400);
    const srt = await createTranscript(u, { name: 'x', src_lang: 'en', dst_langs: ['es', 'ca'], media_id: mediaId, dst_srt_media_id: mediaId });
    expect(srt.response.status).toBe(400);
    expect(await count()).toBe(before);
  });

  it('a plan without multilanguage is refused, however the languages are given', async () => {
    const t = await newUser(h, 'trial');
    const m = await uploadOk(h, t, video);
    for (const body of [{ dst_langs: ['es', 'ca'] }, { dst_lang: 'es', dst_langs: ['ca'] }]) {
      const r = await createTranscript(t, { name: 'x', src_lang: 'en', media_id: m, ...body });
      expect(r.response.status, JSON.stringify(body)).toBe(403);
      expect(r.error!.feature).toBe('multilanguage');
    }
    expect((await createTranscript(t, { name: 'x', src_lang: 'en', media_id: m, dst_langs: ['es'] })).response.status).toBe(200);
  });

  it('once the speakers are known, each pending language gets its project from the same analysis, once', async () => {
    const r = await createTranscript(u, { name: 'Lecture', src_lang: 'en', dst_langs: ['es', 'ca'], media_id: mediaId });
    const id = r.data!.id;
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
    const child = await typedClient(h, u.token).GET('/api/project/{id}', at(made[0]!));
    expect(child.data).toMatchObject({ name: 'Lecture (CA)', dst_lang: 'ca', copied_from: id, status: 'determine_speakers_done', free_dubbing: false });
    expect(child.data!.speakers).toEqual([expect.objectContaining({ id: 'SPEAKER_0', gender: 'female' })]);
    const t = await typedClient(h, u.token).GET('/api/project/{id}/transcript', at(made[0]!));
    expect(t.data!.segments.map((s) => [s.src.text, s.dst.text])).toEqual([
      ['Hello there.', ''], ['How are you?', ''], ['Fine.', ''],
    ]);
    expect((await h.deps.storage.getBuffer(projectKey(made[0]!, 'background.wav'))).toString()).toBe('bg');
    expect((await typedClient(h, u.token).GET('/api/project/{id}', at(id))).data!.pending_dst_langs).toEqual([]);
  });
});
