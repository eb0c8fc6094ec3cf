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
  api, createProject, jobsOf, newUser, seedProject, uploadOk, type TestUser,
} from './projects-fixtures';
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

const path = (id: string, rest = '') => `/api/project/${id}${rest}`;

describe('POST /api/project/create_transcript', () => {
  it('answers the full Project and queues the ingest stage', async () => {
    const r = await createProject(h, alice, { name: 'Interview', src_lang: 'en', dst_lang: 'es', media_id: mediaId, num_speakers: 2 });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    const p = v.parse(Project, r.json);
    expect(p).toMatchObject({
      name: 'Interview', status: 'created', progress: PROGRESS.created, src_lang: 'en', dst_lang: 'es', space_id: alice.defaultSpaceId,
      src_srt_uploaded: false, dst_srt_uploaded: false, free_dubbing: false, changed_segments: 0, error_message: null,
    });
    expect(await jobsOf(h, p.id)).toEqual([expect.objectContaining({ stage: 'ingest', state: 'queued' })]);
  });

  it('rejects an unsupported language pair before any work', async () => {
    const before = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects');
    const fr = await createProject(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'xx', media_id: mediaId });
    expect(fr.status).toBe(400);
    expect(fr.json.detail).toMatch(/^Unsupported language pair en -> xx/);
    const noAsr = await createProject(h, alice, { name: 'x', src_lang: 'es', dst_lang: 'en', media_id: mediaId });
    expect(noAsr.status).toBe(400);
    expect(noAsr.json.detail).toMatch(/speech recognition is not available for "es"/);
    const same = await createProject(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'en', media_id: mediaId });
    expect(same.status).toBe(400);
    const after = await h.deps.db.one<{ n: number }>('SELECT count(*)::int AS n FROM projects');
    expect(after.n).toBe(before.n);
  });

  it('validates the body, the link and the media', async () => {
    const noName = await createProject(h, alice, { src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    expect(noName.status).toBe(422);
    expect(noName.json.detail[0].loc).toEqual(['body', 'name']);
    const both = await createProject(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'es', media_id: mediaId, link: 'https://youtu.be/dQw4w9WgXcQ' });
    expect(both.status).toBe(400);
    const none = await createProject(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'es' });
    expect(none.status).toBe(400);
    const site = await createProject(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'es', link: 'https://example.com/watch?v=123' });
    expect(site).toMatchObject({ status: 400, json: { detail: TEXT.incorrectLink } });
    const unknown = await createProject(h, alice, { name: 'x', src_lang: 'en', dst_lang: 'es', media_id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown).toMatchObject({ status: 404, json: { detail: 'Media not found' } });
    // Bob cannot use Alice's upload, nor create in Alice's space.
    const foreign = await createProject(h, bob, { name: 'x', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    expect(foreign.status).toBe(404);
    const space = await createProject(h, bob, { name: 'x', src_lang: 'en', dst_lang: 'es', media_id: mediaId }, alice.defaultSpaceId);
    expect(space.status).toBe(403);
    expect(space.json.detail).toMatch(/^You have no access to this resource/);
  });

  it('accepts a valid link and queues the download', async () => {
    const r = await createProject(h, alice, { name: 'From YouTube', src_lang: 'en', dst_lang: 'es', link: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' });
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('created');
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
      const r = await createProject(h, u, { name, src_lang: 'en', dst_lang: 'es', media_id: media });
      ids.push(r.json.id);
    }
  });

  it('pages newest first with a name search', async () => {
    const all = await api(h, 'GET', `/api/project/paginated?space_id=${u.defaultSpaceId}&limit=24&offset=0`, { token: u.token });
    expect(all.status).toBe(200);
    expect(all.json.total).toBe(3);
    expect(all.json.offset).toBe(0);
    expect(all.json.data.map((p: { id: string }) => p.id)).toEqual([...ids].reverse());
    const page2 = await api(h, 'GET', `/api/project/paginated?space_id=${u.defaultSpaceId}&limit=2&offset=2`, { token: u.token });
    expect(page2.json).toMatchObject({ total: 3, offset: 2 });
    expect(page2.json.data.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    const search = await api(h, 'GET', `/api/project/paginated?space_id=${u.defaultSpaceId}&name=TALK`, { token: u.token });
    expect(search.json.total).toBe(2);
    const literal = await api(h, 'GET', `/api/project/paginated?space_id=${u.defaultSpaceId}&name=${encodeURIComponent('100%_')}`, { token: u.token });
    expect(literal.json.total).toBe(1);
    await api(h, 'PATCH', path(ids[2]!), { token: u.token, body: { folder_id: 'folder-9' } });
    const folder = await api(h, 'GET', `/api/project/paginated?space_id=${u.defaultSpaceId}&folder_id=folder-9`, { token: u.token });
    expect(folder.json.data.map((p: { id: string }) => p.id)).toEqual([ids[2]]);
    await api(h, 'PATCH', path(ids[1]!), { token: u.token, body: { folder_id: 'Archive' } });
    const folders = await api(h, 'GET', `/api/project/folders?space_id=${u.defaultSpaceId}`, { token: u.token });
    expect(folders.status).toBe(200);
    expect(folders.json).toEqual({ data: [{ id: 'Archive', count: 1 }, { id: 'folder-9', count: 1 }] });
    const foreignFolders = await api(h, 'GET', `/api/project/folders?space_id=${u.defaultSpaceId}`, { token: alice.token });
    expect(foreignFolders.status).toBe(403);
    await api(h, 'PATCH', path(ids[1]!), { token: u.token, body: { folder_id: null } });
    await api(h, 'PATCH', path(ids[2]!), { token: u.token, body: { folder_id: null } });
    const none = await api(h, 'GET', `/api/project/folders?space_id=${u.defaultSpaceId}`, { token: u.token });
    expect(none.json).toEqual({ data: [] });
    const other = await api(h, 'GET', `/api/project/paginated?space_id=${u.defaultSpaceId}`, { token: alice.token });
    expect(other.status).toBe(403);
    const noSpace = await api(h, 'GET', '/api/project/paginated', { token: u.token });
    expect(noSpace.status).toBe(422);
  });

  it('gets, renames, moves and sets the prompt', async () => {
    const g = await api(h, 'GET', path(ids[0]!), { token: u.token });
    expect(g.status).toBe(200);
    const p = await api(h, 'PATCH', path(ids[0]!), { token: u.token, body: { name: '  Renamed  ', folder_id: 'f1' } });
    expect(p.json).toMatchObject({ name: 'Renamed', folder_id: 'f1' });
    const blank = await api(h, 'PATCH', path(ids[0]!), { token: u.token, body: { name: '   ' } });
    expect(blank.status).toBe(422);
    const pr = await api(h, 'PUT', path(ids[0]!, '/prompt'), { token: u.token, body: { prompt: 'Friendly tone' } });
    expect(pr.json.prompt).toBe('Friendly tone');
    const cleared = await api(h, 'PUT', path(ids[0]!, '/prompt'), { token: u.token, body: { prompt: null } });
    expect(cleared.json.prompt).toBeNull();
  });

  it('refuses a foreign project with 403 and unknown ids with 404', async () => {
    const patch = await api(h, 'PATCH', path(ids[1]!), { token: bob.token, body: { name: 'mine now' } });
    expect(patch.status).toBe(403);
    expect(patch.json.detail).toMatch(/^You have no access to this resource/);
    for (const [m, p] of [['GET', ''], ['POST', '/generate'], ['GET', '/transcript'], ['DELETE', '']] as const) {
      expect((await api(h, m, path(ids[1]!, p), { token: bob.token })).status).toBe(403);
    }
    expect((await api(h, 'GET', path('00000000-0000-4000-8000-000000000000'), { token: u.token })).status).toBe(404);
    expect((await api(h, 'GET', path('not-a-uuid'), { token: u.token })).status).toBe(404);
    expect((await api(h, 'GET', path(ids[1]!))).status).toBe(401);
    const still = await api(h, 'GET', path(ids[1]!), { token: u.token });
    expect(still.json.name).toBe('Beta talk');
  });
});

describe('generate and minutes', () => {
  it('needs ceil(duration/60) minutes: 402 with a detail that is not "credits available."', async () => {
    const u = await newUser(h, 'poor');
    const media = await uploadOk(h, u, await makeSpeechVideo({ seconds: 4 }));
    const id = await seedProject(h, u, { mediaId: media, duration: 181 }); // 4 minutes, 3 available
    const r = await api(h, 'POST', path(id, '/generate'), { token: u.token });
    expect(r.status).toBe(402);
    expect(r.json.detail).toBe('Not enough minutes: 4 minutes needed, 3 available');
    expect(r.json.detail.endsWith(TEXT.creditsSuffix)).toBe(false);
    const p = await api(h, 'GET', path(id), { token: u.token });
    expect(p.json.status).toBe('translation_done');
    expect(await jobsOf(h, id)).toEqual([]);
  });

  it('charges once, one job for two clicks at once; a failed generation is refunded and its retry charged once', async () => {
    const u = await newUser(h, 'rich');
    const media = await uploadOk(h, u, await makeSpeechVideo({ seconds: 4 }));
    const id = await seedProject(h, u, { mediaId: media, duration: 61 }); // 2 minutes
    const [a, b] = await Promise.all([
      api(h, 'POST', path(id, '/generate'), { token: u.token }),
      api(h, 'POST', path(id, '/generate'), { token: u.token }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const okOne = a.status === 200 ? a : b;
    const conflictOne = a.status === 200 ? b : a;
    expect(okOne.json).toMatchObject({ status: 'voiceover_started', progress: PROGRESS.voiceover_started });
    expect(conflictOne.json.detail).toBe('The video is already being generated');
    expect((await jobsOf(h, id)).filter((j) => j.stage === 'voiceover')).toHaveLength(1);
    const credits = await api(h, 'GET', `/api/space/${u.defaultSpaceId}/credits`, { token: u.token });
    expect(credits.json.minutes).toEqual({ total: 3, used: 2 });
    // The stage failed (through the pipeline's one status function): its minutes come back.
    await h.deps.db.query(`UPDATE pipeline_jobs SET state = 'failed' WHERE project_id = $1`, [id]);
    await setStatus(h.deps.db, id, 'voiceover_failed');
    const refunded = await api(h, 'GET', `/api/space/${u.defaultSpaceId}/credits`, { token: u.token });
    expect(refunded.json.minutes).toEqual({ total: 3, used: 0 });
    // The same failure recorded twice gives nothing back twice.
    await setStatus(h.deps.db, id, 'voiceover_failed');
    const retry = await api(h, 'POST', path(id, '/generate'), { token: u.token });
    expect(retry.status).toBe(200);
    const after = await api(h, 'GET', `/api/space/${u.defaultSpaceId}/credits`, { token: u.token });
    expect(after.json.minutes).toEqual({ total: 3, used: 2 });
  });

  it('refuses projects that are not ready', async () => {
    const r = await createProject(h, alice, { name: 'Fresh', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    const g = await api(h, 'POST', path(r.json.id, '/generate'), { token: alice.token });
    expect(g.status).toBe(409);
    expect(g.json.detail).toMatch(/not ready/);
  });
});

describe('downloads with signed URLs and range requests', () => {
  it('answers {url} for each media type once the file exists', async () => {
    const id = await seedProject(h, alice, { mediaId, status: 'merging_done', name: 'Dubbed talk' });
    const missing = await api(h, 'POST', path(id, '/media_download'), { token: alice.token, body: { media_type: 'video' } });
    expect(missing).toMatchObject({ status: 404, json: { detail: 'The dubbed video is not ready yet' } });
    const bad = await api(h, 'POST', path(id, '/media_download'), { token: alice.token, body: { media_type: 'gif' } });
    expect(bad.status).toBe(422);

    const body = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
    const key = projectKey(id, 'translated_video.mp4');
    await h.deps.storage.putBuffer(key, body);
    await h.deps.db.query(`UPDATE projects SET translated_video = $2 WHERE id = $1`, [id, key]);
    const r = await api(h, 'POST', path(id, '/media_download'), { token: alice.token, body: { media_type: 'video' } });
    expect(r.status).toBe(200);
    const url = r.json.url as string;
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
    expect((await api(h, 'POST', path(id, '/media_download'), { token: bob.token, body: { media_type: 'video' } })).status).toBe(403);
  });
});

describe('copy, glossary, subtitles, feedback, voices, delete', () => {
  it('copies into another target language and rejects unsupported ones', async () => {
    const id = await seedProject(h, alice, { mediaId, name: 'Source' });
    const bad = await api(h, 'POST', path(id, '/copy'), { token: alice.token, body: { dst_lang: 'xx', free_dubbing: false } });
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toMatch(/^Unsupported language pair/);
    // Only en -> es is installed here: a copy back into es is the supported case.
    const r = await api(h, 'POST', path(id, '/copy'), { token: alice.token, body: { dst_lang: 'es', free_dubbing: false } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json).toMatchObject({ name: 'Source (ES)', dst_lang: 'es', free_dubbing: false, status: 'determine_speakers_done', copied_from: id });
    const t = await api(h, 'GET', path(r.json.id, '/transcript'), { token: alice.token });
    expect(t.json.segments).toHaveLength(3);
    expect(t.json.segments.every((s: { dst: { text: string } }) => s.dst.text === '')).toBe(true);
    expect(await jobsOf(h, r.json.id)).toEqual([expect.objectContaining({ stage: 'voice_suggest', state: 'queued' })]);
    const notReady = await createProject(h, alice, { name: 'Fresh', src_lang: 'en', dst_lang: 'es', media_id: mediaId });
    expect((await api(h, 'POST', path(notReady.json.id, '/copy'), { token: alice.token, body: { dst_lang: 'es' } })).status).toBe(409);
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
    expect((await api(h, 'PATCH', path(id, `/glossary?glossary_id=${other.id}`), { token: alice.token })).status).toBe(404);
    expect((await api(h, 'PATCH', path(id, `/glossary?glossary_id=${wrongLang.id}`), { token: alice.token })).status).toBe(400);
    const ok = await api(h, 'PATCH', path(id, `/glossary?glossary_id=${g.id}`), { token: alice.token });
    expect(ok.json.glossary_id).toBe(g.id);
    const off = await api(h, 'PATCH', path(id, '/glossary'), { token: alice.token });
    expect(off.json.glossary_id).toBeNull();
  });

  it('burns subtitles only when the video is ready; remembers the banner; stores feedback', async () => {
    const id = await seedProject(h, alice, { mediaId });
    const early = await api(h, 'POST', path(id, '/burn_subtitles?video_type=translated'), { token: alice.token });
    expect(early.status).toBe(409);
    const badType = await api(h, 'POST', path(id, '/burn_subtitles?video_type=gif'), { token: alice.token });
    expect(badType.status).toBe(422);
    const banner = await api(h, 'POST', path(id, '/set_subtitles_banner_displayed?video_type=translated'), { token: alice.token });
    expect(banner.json.subtitles_banner_displayed).toEqual(['translated']);
    const again = await api(h, 'POST', path(id, '/set_subtitles_banner_displayed'), { token: alice.token });
    expect(again.json.subtitles_banner_displayed).toEqual(['translated']);
    const fb = await api(h, 'POST', path(id, '/feedback'), { token: alice.token, body: { comment: 'Voices too fast', options: ['speed'] } });
    expect(fb.status).toBe(200);
    const row = await h.deps.db.one<{ comment: string; options: string[] }>('SELECT comment, options FROM project_feedback WHERE id = $1', [fb.json.id]);
    expect(row).toEqual({ comment: 'Voices too fast', options: ['speed'] });
    expect((await api(h, 'POST', path(id, '/feedback'), { token: alice.token, body: { comment: ' ', options: [] } })).status).toBe(400);
  });

  it('lists the voices of the target language and lets a speaker change voice', async () => {
    const id = await seedProject(h, alice, { mediaId });
    const r = await api(h, 'GET', path(id, `/voice_pool?space_id=${alice.defaultSpaceId}`), { token: alice.token });
    expect(r.status).toBe(200);
    expect(r.json.voices.length).toBeGreaterThan(0);
    expect(r.json.voices.every((x: { language: string }) => x.language.startsWith('es'))).toBe(true);
    const voice = r.json.voices[r.json.voices.length - 1].id;
    const p = await api(h, 'PATCH', path(id), { token: alice.token, body: { speakers: [{ id: 'SPEAKER_1', voice_id: voice, name: 'Ana' }] } });
    expect(p.status, JSON.stringify(p.json)).toBe(200);
    expect(p.json.status).toBe('voice_edited');
    expect(p.json.speakers.find((s: { id: string }) => s.id === 'SPEAKER_1')).toMatchObject({ voice_id: voice, name: 'Ana' });
    expect(p.json.changed_segments).toBe(1);
    const unknown = await api(h, 'PATCH', path(id), { token: alice.token, body: { speakers: [{ id: 'SPEAKER_1', voice_id: 'nope' }] } });
    expect(unknown.status).toBe(400);
    const ghost = await api(h, 'PATCH', path(id), { token: alice.token, body: { speakers: [{ id: 'SPEAKER_9', name: 'x' }] } });
    expect(ghost.status).toBe(404);
  });

  it('plays a voice sample: made on the first request, then served from storage', async () => {
    const id = await seedProject(h, alice, { mediaId });
    const r = await api(h, 'GET', path(id, `/voice_pool?space_id=${alice.defaultSpaceId}`), { token: alice.token });
    const voice = r.json.voices[0] as { id: string; sample_url: string };
    expect(voice.sample_url).toMatch(/^\/api\/files\/[^/]+\/sample\.wav$/);
    const first = await h.app.request(voice.sample_url);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/audio\/(wav|x-wav)/);
    const bytes = Buffer.from(await first.arrayBuffer());
    expect(bytes.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(bytes.length).toBeGreaterThan(10_000); // about two seconds of speech, not an empty file
    // Served again from storage: same bytes, and a range request works like any stored file.
    const again = await h.app.request(voice.sample_url);
    expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
    const part = await h.app.request(voice.sample_url, { headers: { range: 'bytes=0-3' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).toString('ascii')).toBe('RIFF');
    // A tampered token is refused and makes nothing.
    const tampered = voice.sample_url.replace(/\/api\/files\/(.)/, (_m, ch: string) => `/api/files/${ch === 'A' ? 'B' : 'A'}`);
    expect((await h.app.request(tampered)).status).toBe(403);
  });

  it('deletes a project with its files', async () => {
    const id = await seedProject(h, alice, { mediaId });
    await h.deps.storage.putBuffer(projectKey(id, 'cover.jpg'), 'x');
    const r = await api(h, 'DELETE', path(id), { token: alice.token });
    expect(r.status).toBe(200);
    expect((await api(h, 'GET', path(id), { token: alice.token })).status).toBe(404);
    expect(await h.deps.storage.exists(projectKey(id, 'cover.jpg'))).toBe(false);
  });
});
