// The cast of a Teamspace over HTTP (issue 31, part 5): keep a project's speaker in the cast, rename it, set its
// voice per language, merge two members, remove one; a new project's speaker whose measured voice matches a member
// is named and voiced as the cast says at voice selection, and the editor's undo gives it back its name and voice
// (and the stage does not recognise it again). Refused: another Teamspace's user, a plan without the feature (a
// trial), a member id of another space, a speaker whose voice is not measured, malformed bodies. A trial space's
// projects are not recognised from its cast.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featureRefusalText } from '../../../contract/features';
import type { VoiceProfile } from '../../../contract/schemas/voice-preset';
import { voiceSuggest } from '../../../server/domains/projects/stages/voice-suggest';
import { findProject } from '../../../server/domains/projects/repository';
import { setStatus } from '../../../server/domains/projects/pipeline/stages';
import { makeSpeechVideo, tempDir } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { grantPlan } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';
import type { components } from '../../../src/lib/api/schema';

let h: Harness;
let pro: TestUser; // Creator Pro: the cast's space
let member: TestUser; // trial, editor in pro's space (the owner's plan applies)
let outsider: TestUser; // Creator Pro, another space
let trial: TestUser;
let mediaPro: string;
let esVoices: string[];
let femaleEs: string; // never suggested for the (male) host: the cast's choice is told apart from the suggestion

const HOST: VoiceProfile = {
  median_hz: 104, range_st: 5.5, spectral_tilt: 350, speech_rate: 4.1, speech_sec: 40, gender: 'male', formant_hz: 1240, gender_confidence: 0.9,
};
const GUEST: VoiceProfile = {
  median_hz: 205, range_st: 4.2, spectral_tilt: 720, speech_rate: 4.8, speech_sec: 30, gender: 'female', formant_hz: 1420, gender_confidence: 0.9,
};
/** The host again in another recording: a little off on every measure. */
const HOST_AGAIN: VoiceProfile = { ...HOST, median_hz: 108, range_st: 6.1, spectral_tilt: 372, speech_rate: 3.9, formant_hz: 1262, speech_sec: 25 };

const as = (u: TestUser | null) => typedClient(h, u?.token);
const cast = (u: TestUser, spaceId = pro.defaultSpaceId) => as(u).GET('/api/space/{id}/cast', { params: { path: { id: spaceId } } });
const keep = (u: TestUser, body: components['schemas']['AddCastMemberRequest'], spaceId = pro.defaultSpaceId) =>
  as(u).POST('/api/space/{id}/cast', { params: { path: { id: spaceId } }, body });
const update = (u: TestUser, member: string, body: components['schemas']['UpdateCastMemberRequest'], spaceId = pro.defaultSpaceId) =>
  as(u).PATCH('/api/space/{id}/cast/{member}', { params: { path: { id: spaceId, member } }, body });
const removeMember = (u: TestUser, member: string, spaceId = pro.defaultSpaceId) =>
  as(u).DELETE('/api/space/{id}/cast/{member}', { params: { path: { id: spaceId, member } } });
const merge = (u: TestUser, member: string, into: string, spaceId = pro.defaultSpaceId) =>
  as(u).POST('/api/space/{id}/cast/{member}/merge', { params: { path: { id: spaceId, member: into } }, body: { member_id: member } });
const recognitions = (u: TestUser, projectId: string, spaceId = pro.defaultSpaceId) =>
  as(u).GET('/api/space/{id}/cast/recognitions', { params: { path: { id: spaceId }, query: { project_id: projectId } } });
const undo = (u: TestUser, body: components['schemas']['CastUndoRequest'], spaceId = pro.defaultSpaceId) =>
  as(u).POST('/api/space/{id}/cast/undo', { params: { path: { id: spaceId } }, body });
const patchProject = (u: TestUser, id: string, body: components['schemas']['UpdateProjectRequest']) =>
  as(u).PATCH('/api/project/{id}', { params: { path: { id } }, body });

async function setProfiles(projectId: string, profiles: Record<string, VoiceProfile | null>) {
  for (const [id, p] of Object.entries(profiles)) {
    await h.deps.db.query(`UPDATE speakers SET profile = $3, gender = $4, pitch_hz = $5 WHERE project_id = $1 AND id = $2`, [
      projectId, id, p ? JSON.stringify(p) : null, p?.gender ?? null, p?.median_hz ?? null,
    ]);
  }
}

async function suggest(projectId: string) {
  await setStatus(h.deps.db, projectId, 'voice_suggest_started');
  const project = (await findProject(h.deps.db, projectId))!;
  await voiceSuggest({
    deps: h.deps, projectId, stage: 'voice_suggest', signal: new AbortController().signal, tmp: tempDir('cast-'), log: () => {}, project,
  } as unknown as Parameters<typeof voiceSuggest>[0]);
}

const speakers = async (u: TestUser, id: string) => (await as(u).GET('/api/project/{id}', { params: { path: { id } } })).data!.speakers;

beforeAll(async () => {
  h = await createHarness();
  pro = await newUser(h, 'castpro');
  await grantPlan(h, pro.id, 'creator_pro');
  member = await newUser(h, 'castmember');
  await h.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [pro.defaultSpaceId, member.id]);
  outsider = await newUser(h, 'castout');
  await grantPlan(h, outsider.id, 'creator_pro');
  trial = await newUser(h, 'casttrial');
  mediaPro = await uploadOk(h, pro, await makeSpeechVideo({ seconds: 3 }));
  const voices = await h.deps.engines.voices('es');
  esVoices = voices.map((v) => v.id);
  femaleEs = voices.find((v) => v.gender === 'female')!.id;
  expect(esVoices.length).toBeGreaterThan(3);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe('the cast of a Teamspace', () => {
  let hostId: string;
  let first: string;

  it('keeps a project\'s speaker: its measured voice and its voice in the project\'s language', async () => {
    first = await seedProject(h, pro, { mediaId: mediaPro, name: 'Episode 1' });
    await setProfiles(first, { SPEAKER_0: HOST, SPEAKER_1: GUEST });
    expect((await cast(pro)).data).toEqual({ members: [], threshold: expect.any(Number) });
    const r = await keep(pro, { project_id: first, speaker_id: 'SPEAKER_0', name: 'Anna Host' });
    expect(r.response.status, JSON.stringify(r.error)).toBe(201);
    expect(r.data).toMatchObject({ name: 'Anna Host', space_id: pro.defaultSpaceId, gender: 'male', profile: HOST, voices: { es: esVoices[0] } });
    hostId = r.data!.id;
    // a member of the Teamspace sees it (the owner's plan applies)
    const l = await cast(member);
    expect(l.response.status).toBe(200);
    expect(l.data!.members.map((m) => m.id)).toEqual([hostId]);
  });

  it('renames a member and sets its voice per language', async () => {
    const r = await update(member, hostId, { name: 'Anna', voices: { es: femaleEs, fr: 'espeak:fr' } });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data).toMatchObject({ name: 'Anna', voices: { es: femaleEs, fr: 'espeak:fr' } });
    const f = await update(pro, hostId, { voices: { fr: null } });
    expect(f.data!.voices).toEqual({ es: femaleEs });
  });

  it('recognises the member in a new project at voice selection, and the editor can undo it', async () => {
    const next = await seedProject(h, pro, { mediaId: mediaPro, name: 'Episode 2' });
    await setProfiles(next, { SPEAKER_0: HOST_AGAIN, SPEAKER_1: GUEST });
    await suggest(next);
    const after = await speakers(pro, next);
    expect(after.find((s) => s.id === 'SPEAKER_0')).toMatchObject({ name: 'Anna', voice_id: femaleEs });
    // the guest is nobody of the cast: its name and the usual suggestion stay
    expect(after.find((s) => s.id === 'SPEAKER_1')!.name).toBe('Speaker 2');

    const rec = await recognitions(pro, next);
    expect(rec.response.status).toBe(200);
    expect(rec.data).toEqual([{ project_id: next, speaker_id: 'SPEAKER_0', member_id: hostId, member_name: 'Anna', distance: expect.any(Number) }]);
    expect(rec.data![0]!.distance).toBeLessThan((await cast(pro)).data!.threshold);

    const undone1 = await undo(member, { project_id: next, speaker_id: 'SPEAKER_0' });
    expect(undone1.response.status, JSON.stringify(undone1.error)).toBe(200);
    expect(undone1.data!.name).toBe('Speaker 1');
    const undone = (await speakers(pro, next)).find((s) => s.id === 'SPEAKER_0')!;
    expect(undone.name).toBe('Speaker 1');
    expect(undone.voice_id).not.toBe(femaleEs);
    expect(esVoices).toContain(undone.voice_id);
    expect((await recognitions(pro, next)).data).toEqual([]);
    // undone twice: nothing left to undo
    expect((await undo(pro, { project_id: next, speaker_id: 'SPEAKER_0' })).response.status).toBe(404);
    // the stage runs again (speakers analysed anew): an undone recognition is not made again
    await suggest(next);
    expect((await speakers(pro, next)).find((s) => s.id === 'SPEAKER_0')!.name).toBe('Speaker 1');
  });

  it('a speaker locked to a voice by a person is not re-voiced from the cast', async () => {
    const p = await seedProject(h, pro, { mediaId: mediaPro, name: 'Episode 3' });
    await setProfiles(p, { SPEAKER_0: HOST_AGAIN, SPEAKER_1: GUEST });
    expect((await patchProject(pro, p, { speakers: [{ id: 'SPEAKER_0', voice_id: esVoices[1] }] })).response.status).toBe(200);
    await suggest(p);
    expect((await speakers(pro, p)).find((s) => s.id === 'SPEAKER_0')).toMatchObject({ name: 'Speaker 1', voice_id: esVoices[1] });
  });

  it("a voice chosen in the editor for a recognised speaker becomes the member's voice for the language; the next project follows", async () => {
    const p = await seedProject(h, pro, { mediaId: mediaPro, name: 'Episode 4' });
    await setProfiles(p, { SPEAKER_0: HOST_AGAIN, SPEAKER_1: GUEST });
    await suggest(p);
    await setStatus(h.deps.db, p, 'translation_done');
    expect((await speakers(pro, p)).find((s) => s.id === 'SPEAKER_0')).toMatchObject({ name: 'Anna', voice_id: femaleEs });
    const chosen = esVoices.find((v) => v !== femaleEs && v !== esVoices[0])!;
    const other = esVoices.find((v) => v !== femaleEs && v !== chosen)!;
    const r = await patchProject(member, p, { speakers: [{ id: 'SPEAKER_0', voice_id: chosen }, { id: 'SPEAKER_1', voice_id: other }] });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    // the member follows; the guest (nobody of the cast) changes nothing in it
    const anna = (await cast(pro)).data!.members.find((m) => m.id === hostId)!;
    expect(anna.voices).toEqual({ es: chosen });
    const next = await seedProject(h, pro, { mediaId: mediaPro, name: 'Episode 5' });
    await setProfiles(next, { SPEAKER_0: HOST_AGAIN, SPEAKER_1: GUEST });
    await suggest(next);
    expect((await speakers(pro, next)).find((s) => s.id === 'SPEAKER_0')).toMatchObject({ name: 'Anna', voice_id: chosen });
    // back to the cast's earlier choice for the tests that follow
    await update(pro, hostId, { voices: { es: femaleEs } });
  });

  it('merges the same person kept twice, and removes a member', async () => {
    const again = await keep(pro, { project_id: first, speaker_id: 'SPEAKER_0' });
    expect(again.response.status).toBe(201);
    expect(again.data!.name).toBe('Speaker 1');
    const guest = await keep(pro, { project_id: first, speaker_id: 'SPEAKER_1', name: 'Bea' });
    expect(guest.response.status).toBe(201);
    const m = await merge(pro, again.data!.id, hostId);
    expect(m.response.status, JSON.stringify(m.error)).toBe(200);
    expect(m.data).toMatchObject({ id: hostId, name: 'Anna', voices: { es: femaleEs } });
    expect(m.data!.profile.speech_sec).toBe(HOST.speech_sec * 2);
    expect((await cast(pro)).data!.members.map((x) => x.name)).toEqual(['Anna', 'Bea']);
    expect((await merge(pro, hostId, hostId)).response.status).toBe(422);
    expect((await merge(pro, again.data!.id, hostId)).response.status).toBe(404);

    const d = await removeMember(pro, guest.data!.id);
    expect(d.response.status).toBe(200);
    expect(d.data).toEqual({ id: guest.data!.id, status: 'deleted' });
    expect((await cast(pro)).data!.members.map((x) => x.name)).toEqual(['Anna']);
  });

  it('refuses a speaker whose voice is not measured, unknown speakers and malformed bodies', async () => {
    const p = await seedProject(h, pro, { mediaId: mediaPro, name: 'Unmeasured' });
    expect((await keep(pro, { project_id: p, speaker_id: 'SPEAKER_0' })).response.status).toBe(409);
    expect((await keep(pro, { project_id: p, speaker_id: 'SPEAKER_9' })).response.status).toBe(404);
    expect((await keep(pro, { project_id: 'nope', speaker_id: 'SPEAKER_0' })).response.status).toBe(422);
    expect((await update(pro, hostId, { name: '  ' })).response.status).toBe(422);
    expect((await update(pro, 'not-an-id', { name: 'X' })).response.status).toBe(404);
  });
});

describe('who may use the cast', () => {
  it('refuses another Teamspace\'s user on every call, and does not tell its members apart from unknown ones', async () => {
    const [host] = (await cast(pro)).data!.members;
    const project = await seedProject(h, pro, { mediaId: mediaPro, name: 'Private' });
    const calls = [
      cast(outsider),
      keep(outsider, { project_id: project, speaker_id: 'SPEAKER_0' }),
      update(outsider, host!.id, { name: 'Mine' }),
      removeMember(outsider, host!.id),
      merge(outsider, host!.id, host!.id),
      recognitions(outsider, project),
      undo(outsider, { project_id: project, speaker_id: 'SPEAKER_0' }),
    ];
    for (const r of await Promise.all(calls)) expect(r.response.status, JSON.stringify(r.error)).toBe(403);
    // through the outsider's own space: the member and the project are not found there
    const own = outsider.defaultSpaceId;
    expect((await update(outsider, host!.id, { name: 'Mine' }, own)).response.status).toBe(404);
    expect((await removeMember(outsider, host!.id, own)).response.status).toBe(404);
    expect((await keep(outsider, { project_id: project, speaker_id: 'SPEAKER_0' }, own)).response.status).toBe(404);
    expect((await cast(pro)).data!.members.map((x) => x.name)).toEqual(['Anna']);
    // without a token
    expect((await as(null).GET('/api/space/{id}/cast', { params: { path: { id: pro.defaultSpaceId } } })).response.status).toBe(401);
  });

  it('refuses a plan without the Voice Clone Library, and its projects are not recognised', async () => {
    const r = await cast(trial, trial.defaultSpaceId);
    expect(r.response.status).toBe(403);
    expect(r.error!.detail).toBe(featureRefusalText('voice_presets'));
    const media = await uploadOk(h, trial, await makeSpeechVideo({ seconds: 3 }));
    const p = await seedProject(h, trial, { mediaId: media });
    await setProfiles(p, { SPEAKER_0: HOST, SPEAKER_1: GUEST });
    expect((await keep(trial, { project_id: p, speaker_id: 'SPEAKER_0' }, trial.defaultSpaceId)).response.status).toBe(403);
    // a member kept while the plan allowed it (written directly): the trial space's projects are not recognised
    await h.deps.db.query(`INSERT INTO cast_members (space_id, name, profile) VALUES ($1, 'Old', $2)`, [trial.defaultSpaceId, JSON.stringify(HOST)]);
    await suggest(p);
    expect((await speakers(trial, p)).find((s) => s.id === 'SPEAKER_0')!.name).toBe('Speaker 1');
  });

  it("recognises in a staff user's own space whatever its plan (staff use every feature, as on the cast's page)", async () => {
    const staff = await newUser(h, 'staff-cast');
    await h.deps.db.query('UPDATE users SET is_superuser = true WHERE id = $1', [staff.id]);
    expect((await cast(staff, staff.defaultSpaceId)).response.status).toBe(200);
    const media = await uploadOk(h, staff, await makeSpeechVideo({ seconds: 3 }));
    const p = await seedProject(h, staff, { mediaId: media });
    await h.deps.db.query(`INSERT INTO cast_members (space_id, name, profile) VALUES ($1, 'Anchor', $2)`, [staff.defaultSpaceId, JSON.stringify(HOST)]);
    await setProfiles(p, { SPEAKER_0: HOST_AGAIN, SPEAKER_1: GUEST });
    await suggest(p);
    expect((await speakers(staff, p)).find((s) => s.id === 'SPEAKER_0')!.name).toBe('Anchor');
  });
});
