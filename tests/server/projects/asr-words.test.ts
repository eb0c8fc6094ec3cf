// The customer's words (issue 33): GET/PUT /api/project/{id}/asr_words over HTTP — members of the project's space
// (owner, editor) read and set the list, others are refused; bad lists get a 422 with a message; recognition is
// given the list plus the dictionary's source terms. The list can be given when the project is created (asr_words of
// POST /api/project): stored with the project, same limits (422 and no project when it is bad).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASR_WORDS_MAX, ASR_WORD_MAX_CHARS } from '../../../contract/schemas/project';
import { recognitionTerms } from '../../../server/domains/projects/asr-words';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { api, createProject, newUser, uploadOk, type TestUser } from './projects-fixtures';

let h: Harness;
let alice: TestUser;
let editor: TestUser;
let stranger: TestUser;
let id: string;
let media: string;

beforeAll(async () => {
  h = await createHarness();
  alice = await newUser(h, 'asrw-owner');
  editor = await newUser(h, 'asrw-editor');
  stranger = await newUser(h, 'asrw-stranger');
  await h.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [alice.defaultSpaceId, editor.id]);
  media = await uploadOk(h, alice, await makeSpeechVideo({ seconds: 3 }));
  const r = await createProject(h, alice, { name: 'Words', src_lang: 'en', dst_lang: 'es', media_id: media });
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  id = r.json.id;
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const path = (pid: string) => `/api/project/${pid}/asr_words`;

describe('/api/project/{id}/asr_words', () => {
  it('starts empty, and the owner and an editor set it (trimmed, blanks and repeats dropped)', async () => {
    const empty = await api(h, 'GET', path(id), { token: alice.token });
    expect(empty).toMatchObject({ status: 200, json: { words: [] } });
    const put = await api(h, 'PUT', path(id), { token: alice.token, body: { words: ['  Zephyrix ', 'Ouarzazate', '', 'zephyrix', 'Skellefteå  Nord'] } });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    expect(put.json.words).toEqual(['Zephyrix', 'Ouarzazate', 'Skellefteå Nord']);
    expect((await api(h, 'GET', path(id), { token: editor.token })).json.words).toEqual(['Zephyrix', 'Ouarzazate', 'Skellefteå Nord']);
    const byEditor = await api(h, 'PUT', path(id), { token: editor.token, body: { words: ['Nuvexa'] } });
    expect(byEditor).toMatchObject({ status: 200, json: { words: ['Nuvexa'] } });
    expect((await api(h, 'GET', path(id), { token: alice.token })).json.words).toEqual(['Nuvexa']);
  });

  it('refuses strangers (403), signed-out callers (401) and unknown projects (404), and changes nothing', async () => {
    const put = await api(h, 'PUT', path(id), { token: stranger.token, body: { words: ['Mine'] } });
    expect(put.status).toBe(403);
    expect(put.json.detail).toMatch(/^You have no access to this resource/);
    expect((await api(h, 'GET', path(id), { token: stranger.token })).status).toBe(403);
    expect((await api(h, 'PUT', path(id), { token: null, body: { words: ['Mine'] } })).status).toBe(401);
    expect((await api(h, 'PUT', path('00000000-0000-4000-8000-000000000000'), { token: alice.token, body: { words: ['x'] } })).status).toBe(404);
    expect((await api(h, 'GET', path(id), { token: alice.token })).json.words).toEqual(['Nuvexa']);
  });

  it('refuses too many words, too long words and a malformed list with 422 and a message', async () => {
    const many = await api(h, 'PUT', path(id), { token: alice.token, body: { words: Array.from({ length: ASR_WORDS_MAX + 1 }, (_, i) => `w${i}`) } });
    expect(many.status).toBe(422);
    expect(JSON.stringify(many.json)).toContain(`At most ${ASR_WORDS_MAX} words`);
    const long = await api(h, 'PUT', path(id), { token: alice.token, body: { words: ['x'.repeat(ASR_WORD_MAX_CHARS + 1)] } });
    expect(long.status).toBe(422);
    expect(JSON.stringify(long.json)).toContain(`at most ${ASR_WORD_MAX_CHARS} characters`);
    expect((await api(h, 'PUT', path(id), { token: alice.token, body: { words: 'Zephyrix' } })).status).toBe(422);
    expect((await api(h, 'PUT', path(id), { token: alice.token, body: { words: [42] } })).status).toBe(422);
    expect((await api(h, 'PUT', path(id), { token: alice.token, body: {} })).status).toBe(422);
    const max = await api(h, 'PUT', path(id), { token: alice.token, body: { words: Array.from({ length: ASR_WORDS_MAX }, (_, i) => `w${i}`) } });
    expect(max.status).toBe(200);
    expect(max.json.words).toHaveLength(ASR_WORDS_MAX);
    await api(h, 'PUT', path(id), { token: alice.token, body: { words: ['Nuvexa'] } });
  });

  it('gives recognition the word list plus the source terms of the project dictionary', async () => {
    const g = await h.deps.db.one<{ id: string }>(
      `INSERT INTO glossaries (space_id, name, src_lang, dst_lang, terms) VALUES ($1, 'Brand', 'en', 'es',
        '[{"source":"Quillbrook","target":"Quillbrook"},{"source":"Vantorio blender","target":"licuadora Vantorio"},{"source":"nuvexa","target":"Nuvexa"}]')
       RETURNING id`,
      [alice.defaultSpaceId],
    );
    expect(await recognitionTerms(h.deps.db, { id, glossary_id: null })).toEqual(['Nuvexa']);
    expect(await recognitionTerms(h.deps.db, { id, glossary_id: g.id })).toEqual(['Nuvexa', 'Quillbrook', 'Vantorio blender']);
  });

  it('stores the list given when the project is created (cleaned), and refuses a bad one with 422 and no project', async () => {
    const r = await createProject(h, alice, {
      name: 'Words on create', src_lang: 'en', dst_lang: 'es', media_id: media, asr_words: [' Zephyrix ', 'Ouarzazate', '', 'ZEPHYRIX', 'Tromsø'],
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect((await api(h, 'GET', path(r.json.id), { token: alice.token })).json.words).toEqual(['Zephyrix', 'Ouarzazate', 'Tromsø']);
    expect(await recognitionTerms(h.deps.db, { id: r.json.id, glossary_id: null })).toEqual(['Zephyrix', 'Ouarzazate', 'Tromsø']);
    // none given (or only blanks): an empty list
    const none = await createProject(h, alice, { name: 'No words', src_lang: 'en', dst_lang: 'es', media_id: media, asr_words: ['  '] });
    expect(none.status).toBe(200);
    expect((await api(h, 'GET', path(none.json.id), { token: alice.token })).json.words).toEqual([]);

    const count = async () => (await h.deps.db.one<{ n: number | string }>(`SELECT count(*) AS n FROM projects WHERE space_id = $1`, [alice.defaultSpaceId])).n;
    const before = Number(await count());
    const many = await createProject(h, alice, {
      name: 'Too many', src_lang: 'en', dst_lang: 'es', media_id: media, asr_words: Array.from({ length: ASR_WORDS_MAX + 1 }, (_, i) => `w${i}`),
    });
    expect(many.status).toBe(422);
    expect(JSON.stringify(many.json)).toContain(`At most ${ASR_WORDS_MAX} words`);
    const long = await createProject(h, alice, { name: 'Too long', src_lang: 'en', dst_lang: 'es', media_id: media, asr_words: ['x'.repeat(ASR_WORD_MAX_CHARS + 1)] });
    expect(long.status).toBe(422);
    expect(JSON.stringify(long.json)).toContain(`at most ${ASR_WORD_MAX_CHARS} characters`);
    expect((await createProject(h, alice, { name: 'Not a list', src_lang: 'en', dst_lang: 'es', media_id: media, asr_words: 'Zephyrix' })).status).toBe(422);
    expect(Number(await count())).toBe(before);
  });
});
