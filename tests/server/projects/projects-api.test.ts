// Project calls (spec section 7): create with every bad input, list, get/patch, prompt, glossary, copy,
// generate with minutes, downloads with range requests, subtitles, feedback, delete, voices.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Project } from '../../../contract/schemas/project';
import { TEXT } from '../../../contract/errors';
import { PROGRESS } from '../../../contract/statuses';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import {
  api, createProject, createTyped, jobsOf, newUser, seedProject, uploadOk, type TestUser,
} from './projects-fixtures';
import { issuesOf, typedClient } from '../typed-client';
import { projectKey } from '../../../server/storage/index';
import { setStatus } from '../../../server/domains/projects/pipeline/stages';
import { grantPlan } from '../spaces/spaces-fixtures';

let h: Harness;
let alice: TestUser;
let bob: TestUser;
let mediaId: string;

beforeAll(async () => {
  h = await createHarness();
  alice = await newUser(h, 'alice');
  // Alice's plan includes the dictionary and subtitles (their plan gates: tests/server/billing/billing-gates.test.ts).
  await grantPlan(h, alice.id, 'business');
  bob = await newUser(h, 'bob');
  mediaId = await uploadOk(h, alice, await makeSpeechVideo({ seconds: 4 }));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const as = (u: TestUser | null) => typedClient(h, u?.token);
const pid = (id: string) => ({ params: { path: { id } } });

describe('POST /api/project/create_transcript', () => {
  it('answers the full Project and queues the ingest stage', async () => {
    const r = await createTyped(h, alice, { name: 'Interview', src_lang: 'en', dst_lang: 'es', media_id: mediaId, num_speakers: 2 });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const p = v.parse(Project, r.data);
    expect(p).toMatchObject({
      name: 'Interview', status: 'created', progress: PROGRESS.created, src_lang: 'en', dst_lang: 'es', space_id: alice.defaultSpaceId,
      src_srt_uploaded: false, dst_srt_uploaded: false, free_dubbing: false, changed_segments: 0, error_message: null,
    });
    expect(await jobsOf(h, p.id)).toEqual([expect.objectContaining({ stage: 'ingest', state: 'queued' })]);
  });

  it('rejects an unsupported language pair before any work', async () => {
    const before = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects');
    const fr = await createTyped(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'xx', media_id: mediaId });
    expect(fr.response.status).toBe(400);
    expect(fr.error!.detail).toMatch(/^Unsupported language pair en -> xx/);
    const noAsr = await createTyped(h, alice, { name: 'x', src_lang: 'es', dst_lang: 'en', media_id: mediaId });
    expect(noAsr.response.status).toBe(400);
    expect(noAsr.error!.detail).toMatch(/speech recognition is not available for "es"/);
    const same = await createTyped(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'en', media_id: mediaId });
    expect(same.response.status).toBe(400);
    const after = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects');
    expect(after.n).toBe(before.n);
  });

  it('validates the body, the link and the media', async () => {
    // Untyped: a body without its required name (the 422 under test).
    const noName = await createProject(h, alice, { src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    expect(noName.response.status).toBe(422);
    expect(issuesOf(noName.error)[0]!.loc).toEqual(['body', 'name']);
    const both = await createTyped(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'es', media_id: mediaId, link: 'https://youtu.be/dQw4w9WgXcQ' });
    expect(both.response.status).toBe(400);
    const none = await createTyped(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'es' });
    expect(none.response.status).toBe(400);
    const site = await createTyped(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'es', link: 'https://example.com/watch?v=123' });
    expect({ status: site.response.status, json: site.error }).toMatchObject({ status: 400, json: { detail: TEXT.incorrectLink } });
    const unknown = await createTyped(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'es', media_id: '00000000-0000-4000-8000-000000000000' });
    expect({ status: unknown.response.status, json: unknown.error }).toMatchObject({ status: 404, json: { detail: 'Media not found' } });
    // Bob cannot use Alice's upload, nor create in Alice's space.
    const foreign = await createTyped(h, bob, { name: 'x', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    expect(foreign.response.status).toBe(404);
    const space = await createTyped(h, bob, { name: 'x', src_lang: 'en', dst_lang: 'es', media_id: mediaId }, { spaceId: alice.defaultSpaceId });
    expect(space.response.status).toBe(403);
    expect(space.error!.detail).toMatch(/^You have no access to this resource/);
  });

  it('accepts a valid link and queues the download', async () => {
    const r = await createTyped(h, alice, { name: 'From YouTube', src_lang: 'en', dst_lang: 'es', link: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' });
    expect(r.response.status).toBe(200);
    expect(r.data!.status).toBe('created');
  });
});

describe('list, get, patch, prompt', () => {
  let ids: string[] = [];
  let u: TestUser;
  beforeAll(async () => {
    u = await newUser(h, 'lister');
    const media = await uploadOk(h, u, await makeSpeechVideo({ seconds: 4 }));
    ids = [];
    for (const name of ['Alpha talk', 'Beta talk', 'Gamma 100%_off']) {
      const r = await createTyped(h, u, { name, src_lang: 'en', dst_lang: 'es', media_id: media });
      ids.push(r.data!.id);
    }
  });

  it('pages newest first with a name search', async () => {
    const list = (query: { limit?: string; offset?: string; name?: string; folder_id?: string }, token = u.token) =>
      typedClient(h, token).GET('/api/project/paginated', { params: { query: { space_id: u.defaultSpaceId, ...query } } });
    const folderList = (token = u.token) => typedClient(h, token).GET('/api/project/folders', { params: { query: { space_id: u.defaultSpaceId } } });
    const setFolder = async (id: string, folder_id: string | null) => {
      const r = await as(u).PATCH('/api/project/{id}', { ...pid(id), body: { folder_id } });
      expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    };
    const all = await list({ limit: '24', offset: '0' });
    expect(all.response.status).toBe(200);
    expect(all.data!.total).toBe(3);
    expect(all.data!.offset).toBe(0);
    expect(all.data!.data.map((p) => p.id)).toEqual([...ids].reverse());
    const page2 = await list({ limit: '2', offset: '2' });
    expect(page2.data).toMatchObject({ total: 3, offset: 2 });
    expect(page2.data!.data.map((p) => p.id)).toEqual([ids[0]]);
    const search = await list({ name: 'TALK' });
    expect(search.data!.total).toBe(2);
    const literal = await list({ name: '100%_' });
    expect(literal.data!.total).toBe(1);
    await setFolder(ids[2]!, 'folder-9');
    const folder = await list({ folder_id: 'folder-9' });
    expect(folder.data!.data.map((p) => p.id)).toEqual([ids[2]]);
    await setFolder(ids[1]!, 'Archive');
    const folders = await folderList();
    expect(folders.response.status).toBe(200);
    expect(folders.data).toEqual({ data: [{ id: 'Archive', count: 1 }, { id: 'folder-9', count: 1 }] });
    const foreignFolders = await folderList(alice.token);
    expect(foreignFolders.response.status).toBe(403);
    await setFolder(ids[1]!, null);
    await setFolder(ids[2]!, null);
    const none = await folderList();
    expect(none.data).toEqual({ data: [] });
    const other = await list({}, alice.token);
    expect(other.response.status).toBe(403);
    // Untyped: without the space_id the API document requires (the 422 under test).
    const noSpace = await api(h, 'GET', '/api/project/paginated', { token: u.token });
    expect(noSpace.status).toBe(422);
  });

  it('gets, renames, moves and sets the prompt', async () => {
    const g = await as(u).GET('/api/project/{id}', pid(ids[0]!));
    expect(g.response.status).toBe(200);
    const p = await as(u).PATCH('/api/project/{id}', { ...pid(ids[0]!), body: { name: '  Renamed  ', folder_id: 'f1' } });
    expect(p.data).toMatchObject({ name: 'Renamed', folder_id: 'f1' });
    const blank = await as(u).PATCH('/api/project/{id}', { ...pid(ids[0]!), body: { name: '   ' } });
    expect(blank.response.status).toBe(422);
    const pr = await as(u).PUT('/api/project/{id}/prompt', { ...pid(ids[0]!), body: { prompt: 'Friendly tone' } });
    expect(pr.data!.prompt).toBe('Friendly tone');
    const cleared = await as(u).PUT('/api/project/{id}/prompt', { ...pid(ids[0]!), body: { prompt: null } });
    expect(cleared.data!.prompt).toBeNull();
  });

  it('refuses a foreign project with 403 and unknown ids with 404', async () => {
    const patch = await as(bob).PATCH('/api/project/{id}', { ...pid(ids[1]!), body: { name: 'mine now' } });
    expect(patch.response.status).toBe(403);
    expect(patch.error!.detail).toMatch(/^You have no access to this resource/);
    const refused = [
      await as(bob).GET('/api/project/{id}', pid(ids[1]!)),
      await as(bob).POST('/api/project/{id}/generate', pid(ids[1]!)),
      await as(bob).GET('/api/project/{id}/transcript', pid(ids[1]!)),
      await as(bob).DELETE('/api/project/{id}', pid(ids[1]!)),
    ];
    expect(refused.map((x) => x.response.status)).toEqual([403, 403, 403, 403]);
    expect((await as(u).GET('/api/project/{id}', pid('00000000-0000-4000-8000-000000000000'))).response.status).toBe(404);
    expect((await as(u).GET('/api/project/{id}', pid('not-a-uuid'))).response.status).toBe(404);
    expect((await as(null).GET('/api/project/{id}', pid(ids[1]!))).response.status).toBe(401);
    const still = await as(u).GET('/api/project/{id}', pid(ids[1]!));
    expect(still.data!.name).toBe('Beta talk');
  });
});

describe('generate and minutes', () => {
  it('needs ceil(duration/60) minutes: 402 with a detail that is not "credits available."', async () => {
    const u = await newUser(h, 'poor');
    const media = await uploadOk(h, u, await makeSpeechVideo({ seconds: 4 }));
    const id = await seedProject(h, u, { mediaId: media, duration: 181 }); // 4 minutes, 3 available
    const r = await as(u).POST('/api/project/{id}/generate', pid(id));
    expect(r.response.status).toBe(402);
    expect(r.error!.detail).toBe('Not enough minutes: 4 minutes needed, 3 available');
    expect(String(r.error!.detail).endsWith(TEXT.creditsSuffix)).toBe(false);
    const p = await as(u).GET('/api/project/{id}', pid(id));
    expect(p.data!.status).toBe('translation_done');
    expect(await jobsOf(h, id)).toEqual([]);
  });

  it('charges once, one job for two clicks at once; a failed generation is refunded and its retry charged once', async () => {
    const u = await newUser(h, 'rich');
    const media = await uploadOk(h, u, await makeSpeechVideo({ seconds: 4 }));
    const id = await seedProject(h, u, { mediaId: media, duration: 61 }); // 2 minutes
    const [a, b] = await Promise.all([
      as(u).POST('/api/project/{id}/generate', pid(id)),
      as(u).POST('/api/project/{id}/generate', pid(id)),
    ]);
    expect([a.response.status, b.response.status].sort()).toEqual([200, 409]);
    const okOne = a.response.status === 200 ? a : b;
    const conflictOne = a.response.status === 200 ? b : a;
    expect(okOne.data).toMatchObject({ status: 'voiceover_started', progress: PROGRESS.voiceover_started });
    expect(conflictOne.error!.detail).toBe('The video is already being generated');
    expect((await jobsOf(h, id)).filter((j) => j.stage === 'voiceover')).toHaveLength(1);
    const creditsOf = () => as(u).GET('/api/space/{id}/credits', { params: { path: { id: u.defaultSpaceId } } });
    const credits = await creditsOf();
    expect(credits.data!.minutes).toEqual({ total: 3, used: 2 });
    // The stage failed (through the pipeline's one status function): its minutes come back.
    await h.deps.db.query(`UPDATE pipeline_jobs SET state = 'failed' WHERE project_id = $1`, [id]);
    await setStatus(h.deps.db, id, 'voiceover_failed');
    const refunded = await creditsOf();
    expect(refunded.data!.minutes).toEqual({ total: 3, used: 0 });
    // The same failure recorded twice gives nothing back twice.
    await setStatus(h.deps.db, id, 'voiceover_failed');
    const retry = await as(u).POST('/api/project/{id}/generate', pid(id));
    expect(retry.response.status).toBe(200);
    const after = await creditsOf();
    expect(after.data!.minutes).toEqual({ total: 3, used: 2 });
  });

  it('refuses projects that are not ready', async () => {
    const r = await createTyped(h, alice, { name: 'Fresh', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    const g = await as(alice).POST('/api/project/{id}/generate', pid(r.data!.id));
    expect(g.response.status).toBe(409);
    expect(g.error!.detail).toMatch(/not ready/);
  });
});

describe('downloads with signed URLs and range requests', () => {
  it('answers {url} for each media type once the file exists', async () => {
    const id = await seedProject(h, alice, { mediaId, status: 'merging_done', name: 'Dubbed talk' });
    const download = (u: TestUser) => as(u).POST('/api/project/{id}/media_download', { ...pid(id), body: { media_type: 'video' } });
    const missing = await download(alice);
    expect({ status: missing.response.status, json: missing.error }).toMatchObject({ status: 404, json: { detail: 'The dubbed video is not ready yet' } });
    // Untyped: a media_type the API document does not list (the 422 under test).
    const bad = await api(h, 'POST', `/api/project/${id}/media_download`, { token: alice.token, body: { media_type: 'gif' } });
    expect(bad.status).toBe(422);

    const body = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
    const key = projectKey(id, 'translated_video.mp4');
    await h.deps.storage.putBuffer(key, body);
    await h.deps.db.query(`UPDATE projects SET translated_video = $2 WHERE id = $1`, [id, key]);
    const r = await download(alice);
    expect(r.response.status).toBe(200);
    const url = r.data!.url;
    expect(url).toMatch(/^\/api\/files\/[^/]+\/Dubbed_talk_es\.mp4$/);

    const whole = await h.app.request(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(whole.headers.get('content-type')).toBe('video/mp4');
    expect(whole.headers.get('content-disposition')).toMatch(/attachment; filename="Dubbed_talk_es.mp4"/);
    expect(Buffer.from(await whole.arrayBuffer()).equals(body)).toBe(true);

    const part = await h.app.request(url, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 100-199/1000');
    expect(part.headers.get('content-length')).toBe('100');
    expect(Buffer.from(await part.arrayBuffer()).equals(body.subarray(100, 200))).toBe(true);
    const tail = await h.app.request(url, { headers: { range: 'bytes=-10' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(body.subarray(990))).toBe(true);
    const open = await h.app.request(url, { headers: { range: 'bytes=995-' } });
    expect(open.headers.get('content-range')).toBe('bytes 995-999/1000');
    const beyond = await h.app.request(url, { headers: { range: 'bytes=5000-6000' } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe('bytes */1000');
    const head = await h.app.request(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('1000');

    const tampered = url.replace(/\/api\/files\/([^.]+)\.([^/]+)\//, (_m, a: string, b: string) => `/api/files/${a}.${b.slice(0, -2)}xx/`);
    expect((await h.app.request(tampered)).status).toBe(403);
    // Someone else cannot ask for the URL.
    expect((await download(bob)).response.status).toBe(403);
  });
});

describe('copy, glossary, subtitles, feedback, voices, delete', () => {
  it('copies into another target language and rejects unsupported ones', async () => {
    const id = await seedProject(h, alice, { mediaId, name: 'Source' });
    const bad = await as(alice).POST('/api/project/{id}/copy', { ...pid(id), body: { dst_lang: 'xx', free_dubbing: false } });
    expect(bad.response.status).toBe(400);
    expect(bad.error!.detail).toMatch(/^Unsupported language pair/);
    // Only en -> es is installed here: a copy back into es is the supported case.
    const r = await as(alice).POST('/api/project/{id}/copy', { ...pid(id), body: { dst_lang: 'es', free_dubbing: false } });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data).toMatchObject({ name: 'Source (ES)', dst_lang: 'es', free_dubbing: false, status: 'determine_speakers_done', copied_from: id });
    const copy = r.data!.id;
    const t = await as(alice).GET('/api/project/{id}/transcript', pid(copy));
    expect(t.data!.segments).toHaveLength(3);
    expect(t.data!.segments.every((s) => s.dst.text === '')).toBe(true);
    expect(await jobsOf(h, copy)).toEqual([expect.objectContaining({ stage: 'voice_suggest', state: 'queued' })]);
    const notReady = await createTyped(h, alice, { name: 'Fresh', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    expect((await as(alice).POST('/api/project/{id}/copy', { ...pid(notReady.data!.id), body: { dst_lang: 'es' } })).response.status).toBe(409);
  });

  it('sets a glossary of the same space and languages', async () => {
    const id = await seedProject(h, alice, { mediaId });
    const g = await h.deps.db.one<{ id: string }>(
      `INSERT INTO glossaries (space_id, name, src_lang, dst_lang, terms) VALUES ($1, 'Brand', 'en', 'es', '[{"source":"Acme","target":"Acme"}]') RETURNING id`,
      [alice.defaultSpaceId],
    );
    const other = await h.deps.db.one<{ id: string }>(
      `INSERT INTO glossaries (space_id, name, src_lang, dst_lang) VALUES ($1, 'Other', 'en', 'es') RETURNING id`,
      [bob.defaultSpaceId],
    );
    const wrongLang = await h.deps.db.one<{ id: string }>(
      `INSERT INTO glossaries (space_id, name, src_lang, dst_lang) VALUES ($1, 'Fr', 'en', 'fr') RETURNING id`,
      [alice.defaultSpaceId],
    );
    const setGlossary = (glossary_id?: string) =>
      as(alice).PATCH('/api/project/{id}/glossary', { params: { path: { id }, ...(glossary_id !== undefined ? { query: { glossary_id } } : {}) } });
    expect((await setGlossary(other.id)).response.status).toBe(404);
    expect((await setGlossary(wrongLang.id)).response.status).toBe(400);
    const ok = await setGlossary(g.id);
    expect(ok.data!.glossary_id).toBe(g.id);
    const off = await setGlossary();
    expect(off.data!.glossary_id).toBeNull();
  });

  it('burns subtitles only when the video is ready; remembers the banner; stores feedback', async () => {
    const id = await seedProject(h, alice, { mediaId });
    const burn = (video_type: string) => as(alice).POST('/api/project/{id}/burn_subtitles', { params: { path: { id }, query: { video_type } } });
    const early = await burn('translated');
    expect(early.response.status).toBe(409);
    const badType = await burn('gif');
    expect(badType.response.status).toBe(422);
    expect(issuesOf(badType.error).map((i) => i.loc)).toEqual([['query', 'video_type']]);
    const banner = await as(alice).POST('/api/project/{id}/set_subtitles_banner_displayed', { params: { path: { id }, query: { video_type: 'translated' } } });
    expect(banner.data!.subtitles_banner_displayed).toEqual(['translated']);
    const again = await as(alice).POST('/api/project/{id}/set_subtitles_banner_displayed', pid(id));
    expect(again.data!.subtitles_banner_displayed).toEqual(['translated']);
    const fb = await as(alice).POST('/api/project/{id}/feedback', { ...pid(id), body: { comment: 'Voices too fast', options: ['speed'] } });
    expect(fb.response.status).toBe(200);
    const row = await h.deps.db.one<{ comment: string; options: string[] }>('SELECT comment, options FROM project_feedback WHERE id = $1', [fb.data!.id]);
    expect(row).toEqual({ comment: 'Voices too fast', options: ['speed'] });
    expect((await as(alice).POST('/api/project/{id}/feedback', { ...pid(id), body: { comment: ' ', options: [] } })).response.status).toBe(400);
  });

  it('lists the voices of the target language and lets a speaker change voice', async () => {
    const id = await seedProject(h, alice, { mediaId });
    const r = await as(alice).GET('/api/project/{id}/voice_pool', pid(id));
    expect(r.response.status).toBe(200);
    const voices = r.data!.voices;
    expect(voices.length).toBeGreaterThan(0);
    expect(voices.every((x) => x.language.startsWith('es'))).toBe(true);
    const voice = voices[voices.length - 1]!.id;
    const p = await as(alice).PATCH('/api/project/{id}', { ...pid(id), body: { speakers: [{ id: 'SPEAKER_1', voice_id: voice, name: 'Ana' }] } });
    expect(p.response.status, JSON.stringify(p.error)).toBe(200);
    expect(p.data!.status).toBe('voice_edited');
    expect(p.data!.speakers.find((s) => s.id === 'SPEAKER_1')).toMatchObject({ voice_id: voice, name: 'Ana' });
    expect(p.data!.changed_segments).toBe(1);
    const unknown = await as(alice).PATCH('/api/project/{id}', { ...pid(id), body: { speakers: [{ id: 'SPEAKER_1', voice_id: 'nope' }] } });
    expect(unknown.response.status).toBe(400);
    const ghost = await as(alice).PATCH('/api/project/{id}', { ...pid(id), body: { speakers: [{ id: 'SPEAKER_9', name: 'x' }] } });
    expect(ghost.response.status).toBe(404);
  });

  it('plays a voice sample: made on the first request, then served from storage', async () => {
    const id = await seedProject(h, alice, { mediaId });
    const r = await as(alice).GET('/api/project/{id}/voice_pool', pid(id));
    const voice = r.data!.voices[0]!;
    expect(voice.sample_url).toMatch(/^\/api\/files\/[^/]+\/sample\.wav$/);
    const sampleUrl = voice.sample_url!;
    const first = await h.app.request(sampleUrl);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/audio\/(wav|x-wav)/);
    const bytes = Buffer.from(await first.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(bytes.length).toBeGreaterThan(10_000); // about two seconds of speech, not an empty file
    // Served again from storage: same bytes, and a range request works like any stored file.
    const again = await h.app.request(sampleUrl);
    expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
    const part = await h.app.request(sampleUrl, { headers: { range: 'bytes=0-3' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).toString('ascii')).toBe('RIFF');
    // A tampered token is refused and makes nothing.
    const tampered = sampleUrl.replace(/\/api\/files\/(.)/, (_m, ch: string) => `/api/files/${ch === 'A' ? 'B' : 'A'}`);
    expect((await h.app.request(tampered)).status).toBe(403);
  });

  it('deletes a project with its files', async () => {
    const id = await seedProject(h, alice, { mediaId });
    await h.deps.storage.putBuffer(projectKey(id, 'cover.jpg'), 'x');
    const r = await as(alice).DELETE('/api/project/{id}', pid(id));
    expect(r.response.status).toBe(200);
    expect(r.data).toEqual({ id, status: 'deleted' });
    expect((await as(alice).GET('/api/project/{id}', pid(id))).response.status).toBe(404);
    expect(await h.deps.storage.exists(projectKey(id, 'cover.jpg'))).toBe(false);
  });
});
