// The customer's words (issue 33): GET/PUT /api/project/{id}/asr_words over HTTP — members of the project's space
// (owner, editor) read and set the list, others are refused; bad lists get a 422 with a message; recognition is
// given the list plus the dictionary's source terms. The list can be given when the project is created (asr_words of
// POST /api/project): stored with the project, same limits (422 and no project when it is bad).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASR_WORDS_MAX, ASR_WORD_MAX_CHARS } from '../../../contract/schemas/project';
import { recognitionTerms } from '../../../server/domains/projects/asr-words';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { typedClient } from '../typed-client';
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
  const r = await create({ name: 'Words', src_lang: 'en', dst_lang: 'es', media_id: media });
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  id = r.data!.id;
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const path = (pid: string) => `/api/project/${pid}/asr_words`;
const at = (pid: string) => ({ params: { path: { id: pid } } });
const getWords = (u: TestUser, pid = id) => typedClient(h, u.token).GET('/api/project/{id}/asr_words', at(pid));
const putWords = (token: string | null, words: string[], pid = id) => typedClient(h, token).PUT('/api/project/{id}/asr_words', { ...at(pid), body: { words } });
/** POST /api/project/create_transcript in alice's space with a body the document takes. */
function create(body: { name: string; src_lang: string; dst_lang: string; media_id: string; asr_words?: string[] }) {
  return typedClient(h, alice.token).POST('/api/project/create_transcript', { params: { query: { space_id: alice.defaultSpaceId } }, body });
}

describe('/api/project/{id}/asr_words', () => {
  it('starts empty, and the owner and an editor set it (trimmed, blanks and repeats dropped)', async () => {
    const empty = await getWords(alice);
    expect(empty.response.status).toBe(200);
    expect(empty.data).toMatchObject({ words: [] });
    const put = await putWords(alice.token, ['  Zephyrix ', 'Ouarzazate', '', 'zephyrix', 'Skellefteå  Nord']);
    expect(put.response.status, JSON.stringify(put.error)).toBe(200);
    expect(put.data!.words).toEqual(['Zephyrix', 'Ouarzazate', 'Skellefteå Nord']);
    expect((await getWords(editor)).data!.words).toEqual(['Zephyrix', 'Ouarzazate', 'Skellefteå Nord']);
    const byEditor = await putWords(editor.token, ['Nuvexa']);
    expect(byEditor.response.status).toBe(200);
    expect(byEditor.data).toMatchObject({ words: ['Nuvexa'] });
    expect((await getWords(alice)).data!.words).toEqual(['Nuvexa']);
  });

  it('refuses strangers (403), signed-out callers (401) and unknown projects (404), and changes nothing', async () => {
    const put = await putWords(stranger.token, ['Mine']);
    expect(put.response.status).toBe(403);
    expect(put.error!.detail).toMatch(/^You have no access to this resource/);
    expect((await getWords(stranger)).response.status).toBe(403);
    expect((await putWords(null, ['Mine'])).response.status).toBe(401);
    expect((await putWords(alice.token, ['x'], '00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
    expect((await getWords(alice)).data!.words).toEqual(['Nuvexa']);
  });

  it('refuses too many words, too long words and a malformed list with 422 and a message', async () => {
    const many = await putWords(alice.token, Array.from({ length: ASR_WORDS_MAX + 1 }, (_, i) => `w${i}`));
    expect(many.response.status).toBe(422);
    expect(JSON.stringify(many.error)).toContain(`At most ${ASR_WORDS_MAX} words`);
    const long = await putWords(alice.token, ['x'.repeat(ASR_WORD_MAX_CHARS + 1)]);
    expect(long.response.status).toBe(422);
    expect(JSON.stringify(long.error)).toContain(`at most ${ASR_WORD_MAX_CHARS} characters`);
    // Malformed on purpose (bodies the types refuse): not a list, not strings, no list.
    expect((await api(h, 'PUT', path(id), { token: alice.token, body: { words: 'Zephyrix' } })).status).toBe(422);
    expect((await api(h, 'PUT', path(id), { token: alice.token, body: { words: [42] } })).status).toBe(422);
    expect((await api(h, 'PUT', path(id), { token: alice.token, body: {} })).status).toBe(422);
    const max = await putWords(alice.token, Array.from({ length: ASR_WORDS_MAX }, (_, i) => `w${i}`));
    expect(max.response.status).toBe(200);
    expect(max.data!.words).toHaveLength(ASR_WORDS_MAX);
    await putWords(alice.token, ['Nuvexa']);
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
    const r = await create({
      name: 'Words on create', src_lang: 'en', dst_lang: 'es', media_id: media, asr_words: [' Zephyrix ', 'Ouarzazate', '', 'ZEPHYRIX', 'Tromsø'],
    });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect((await getWords(alice, r.data!.id)).data!.words).toEqual(['Zephyrix', 'Ouarzazate', 'Tromsø']);
    expect(await recognitionTerms(h.deps.db, { id: r.data!.id, glossary_id: null })).toEqual(['Zephyrix', 'Ouarzazate', 'Tromsø']);
    // none given (or only blanks): an empty list
    const none = await create({ name: 'No words', src_lang: 'en', dst_lang: 'es', media_id: media, asr_words: ['  '] });
    expect(none.response.status).toBe(200);
    expect((await getWords(alice, none.data!.id)).data!.words).toEqual([]);

    const count = async () => (await h.deps.db.one<{ n: number | string }>(`SELECT count(*) AS n FROM projects WHERE space_id = $1`, [alice.defaultSpaceId])).n;
    const before = Number(await count());
    const many = await create({
      name: 'Too many', src_lang: 'en', dst_lang: 'es', media_id: media, asr_words: Array.from({ length: ASR_WORDS_MAX + 1 }, (_, i) => `w${i}`),
    });
    expect(many.response.status).toBe(422);
    expect(JSON.stringify(many.error)).toContain(`At most ${ASR_WORDS_MAX} words`);
    const long = await create({ name: 'Too long', src_lang: 'en', dst_lang: 'es', media_id: media, asr_words: ['x'.repeat(ASR_WORD_MAX_CHARS + 1)] });
    expect(long.response.status).toBe(422);
    expect(JSON.stringify(long.error)).toContain(`at most ${ASR_WORD_MAX_CHARS} characters`);
    // createProject casts its body: asr_words that is not a list, a body the types refuse.
    expect((await createProject(h, alice, { name: 'Not a list', src_lang: 'en', dst_lang: 'es', media_id: media, asr_words: 'Zephyrix' })).response.status).toBe(422);
    expect(Number(await count())).toBe(before);
  });
});
