// tts_provider follows the voices (issue 26 §4): a speaker given a voice preset (a clone) of another engine
// changes the project's tts_provider to that engine, wherever the voice is set: PATCH /api/project/{id} speakers,
// and the voice suggestion (which keeps a clone a person chose).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceSuggest } from '../../../server/domains/projects/stages/voice-suggest';
import { findProject } from '../../../server/domains/projects/repository';
import { setStatus } from '../../../server/domains/projects/pipeline/stages';
import { makeSpeechVideo, tempDir } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let u: TestUser;
let mediaId: string;

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'voices');
  mediaId = await uploadOk(h, u, await makeSpeechVideo({ seconds: 3 }));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/** A finished clone of the user's Teamspace made by another engine (ElevenLabs): its pool voice id. */
async function elevenLabsClone(label: string): Promise<string> {
  const r = await h.deps.db.one<{ id: string }>(
    `INSERT INTO voice_presets (space_id, label, engine, status, engine_voice_id, gender) VALUES ($1, $2, 'elevenlabs', 'done', $3, 'male') RETURNING id`,
    [u.defaultSpaceId, label, `el-${label}`],
  );
  return `preset:${r.id}`;
}

const get = async (id: string) => (await typedClient(h, u.token).GET('/api/project/{id}', { params: { path: { id } } })).data!;
const setVoices = (id: string, speakers: { id: string; voice_id: string }[]) =>
  typedClient(h, u.token).PATCH('/api/project/{id}', { params: { path: { id } }, body: { speakers } });

describe('tts_provider follows the chosen voices', () => {
  it('PATCH speakers: a clone of another engine changes it; back to stock voices changes it back', async () => {
    const id = await seedProject(h, u, { mediaId });
    await h.deps.db.query(`UPDATE projects SET tts_provider = 'espeak' WHERE id = $1`, [id]);
    const stock = (await get(id)).speakers[0]!.voice_id!;
    expect(stock).toMatch(/^espeak:/);
    const clone = await elevenLabsClone('Host');

    const one = await setVoices(id, [{ id: 'SPEAKER_0', voice_id: clone }]);
    expect(one.response.status, JSON.stringify(one.error)).toBe(200);
    // One speaker on the clone, the other still on espeak: both engines are named.
    expect(one.data!.tts_provider).toBe('elevenlabs+espeak');

    const both = await setVoices(id, [{ id: 'SPEAKER_1', voice_id: clone }]);
    expect(both.data!.tts_provider).toBe('elevenlabs');
    expect((await get(id)).tts_provider).toBe('elevenlabs');

    const back = await setVoices(id, [{ id: 'SPEAKER_0', voice_id: stock }, { id: 'SPEAKER_1', voice_id: stock }]);
    expect(back.data!.tts_provider).toBe('espeak');
  });

  it('voice suggestion: a clone a person chose is kept, and counts in tts_provider', async () => {
    const id = await seedProject(h, u, { mediaId });
    const clone = await elevenLabsClone('Guest');
    expect((await setVoices(id, [{ id: 'SPEAKER_0', voice_id: clone }, { id: 'SPEAKER_1', voice_id: clone }])).response.status).toBe(200);
    // The voice suggestion runs again (e.g. after the speakers are analysed anew); the voices were locked.
    await h.deps.db.query(`UPDATE projects SET tts_provider = 'espeak' WHERE id = $1`, [id]);
    await setStatus(h.deps.db, id, 'voice_suggest_started');
    const project = (await findProject(h.deps.db, id))!;
    await voiceSuggest({
      deps: h.deps, projectId: id, stage: 'voice_suggest', signal: new AbortController().signal, tmp: tempDir('vs-'), log: () => {}, project,
    } as unknown as Parameters<typeof voiceSuggest>[0]);
    const p = await get(id);
    expect(p.speakers.map((s) => s.voice_id)).toEqual([clone, clone]);
    expect(p.tts_provider).toBe('elevenlabs');
  });
});
