// Timing fixes of one segment over HTTP (issue 29): "Let it borrow the pause" moves the segment's end into the
// silence after it (up to the next speech minus a gap, at most 2 s, only as far as the voice needs), 409 when
// there is no pause; "Keep the original audio here" sets keep_original (and back). Both are transcript edits
// (status updated, project transcript_edited); a member editor may, an outsider may not.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Segment } from '../../../contract/schemas/project';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { typedClient } from '../typed-client';
import { api, newUser, seedProject, uploadOk, type TestUser } from './projects-fixtures';
import { createSpace, grantPlan, makeUser } from '../spaces/spaces-fixtures';

let h: Harness;
let owner: TestUser;
let outsider: TestUser;
let mediaId: string;

beforeAll(async () => {
  h = await createHarness();
  owner = await newUser(h, 'timing-owner');
  await grantPlan(h, owner.id, 'enterprise');
  outsider = await newUser(h, 'timing-outsider');
  mediaId = await uploadOk(h, owner, await makeSpeechVideo({ seconds: 4 }));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const LONG = 'Esta traducción es bastante más larga que el original y necesita mucho más tiempo para decirse bien.';
const SEGS = [
  // a long line in a short slot, 1.5 s of silence after it
  { start: 0.5, end: 2, speaker: 'SPEAKER_0', src: 'Hello there.', dst: LONG },
  { start: 3.5, end: 5, speaker: 'SPEAKER_1', src: 'How are you?', dst: '¿Cómo estás?' },
  // right after the previous one: no pause
  { start: 5, end: 6, speaker: 'SPEAKER_0', src: 'Fine.', dst: 'Bien, gracias, muy bien, de verdad, todo bien por aquí.' },
];

async function seeded(u = owner, spaceId?: string) {
  const id = await seedProject(h, u, { mediaId, segments: SEGS, spaceId });
  const rows = await h.deps.db.query<{ id: string }>('SELECT id FROM segments WHERE project_id = $1 ORDER BY start_sec', [id]);
  return { id, segs: rows.map((r) => r.id) };
}
const seg = (pid: string, sid: string) => ({ params: { path: { id: pid, segmentId: sid } } });
const borrow = (u: TestUser | null, pid: string, sid: string) =>
  typedClient(h, u?.token).POST('/api/project/{id}/transcript/{segmentId}/borrow_pause', seg(pid, sid));
const keep = (u: TestUser, pid: string, sid: string, body: { keep: boolean }) =>
  typedClient(h, u.token).POST('/api/project/{id}/transcript/{segmentId}/keep_original', { ...seg(pid, sid), body });
/** Malformed on purpose: keep_original bodies the types refuse, so untyped. */
const keepRaw = (u: TestUser, pid: string, sid: string, body: unknown) =>
  api(h, 'POST', `/api/project/${pid}/transcript/${sid}/keep_original`, { token: u.token, body });
const status = async (pid: string) => (await typedClient(h, owner.token).GET('/api/project/{id}', { params: { path: { id: pid } } })).data!.status;
const transcript = async (pid: string) => (await typedClient(h, owner.token).GET('/api/project/{id}/transcript', { params: { path: { id: pid } } })).data!.segments;

describe('POST /api/project/{id}/transcript/{segmentId}/borrow_pause', () => {
  it('moves the end into the silence before the next speech (a gap left), marks the segment changed', async () => {
    const { id, segs } = await seeded();
    // the last dub ran this line at 1.6x and still cut 0.4 s
    await h.deps.db.query('UPDATE segments SET speed_factor = 1.6, overflow_sec = 0.4 WHERE id = $1', [segs[0]]);
    const r = await borrow(owner, id, segs[0]!);
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    const moved = v.parse(Segment, r.data!.segment);
    // needs 1.5 * 1.6 + 0.4 = 2.8 s (+0.05): end 3.35, before the next speech at 3.5 minus the 0.1 s gap
    expect(moved).toMatchObject({ id: segs[0], start: 0.5, end: 3.35, status: 'updated', keep_original: false });
    expect(r.data!.borrowed_sec).toBeCloseTo(1.35, 3);
    // the speed the voice should need there (measured again by the next dub)
    expect(moved.speed_factor).toBeGreaterThanOrEqual(0.9);
    expect(moved.speed_factor).toBeLessThan(1);
    expect(moved.overflow).toBe(0);
    expect(await status(id)).toBe('transcript_edited');
    // the transcript read shows it too
    expect((await transcript(id))[0]).toMatchObject({ end: 3.35, status: 'updated' });
    // it fits now: nothing more is taken
    const again = await borrow(owner, id, segs[0]!);
    expect(again.response.status).toBe(409);
    expect(again.error!.detail).toBe('The line already fits its slot: it needs no pause');
    // a line that needs more than the whole pause takes it all, up to the gap before the next speech
    await h.deps.db.query('UPDATE segments SET end_sec = 2, speed_factor = 2, overflow_sec = 1 WHERE id = $1', [segs[0]]);
    const all = await borrow(owner, id, segs[0]!);
    expect(all.data!.segment.end).toBe(3.4);
    expect(all.data!.segment.speed_factor).toBeCloseTo(4 / 2.9, 2); // still fast: the pause was not enough
    const none = await borrow(owner, id, segs[0]!);
    expect(none.response.status).toBe(409);
    expect(none.error!.detail).toBe('The next segment starts right after this one: there is no pause to borrow');
  });

  it('takes only what the voice needs, and at most 2 s', async () => {
    const { id, segs } = await seeded();
    await h.deps.db.query('UPDATE segments SET speed_factor = 1.2, overflow_sec = 0 WHERE id = $1', [segs[0]]);
    const r = await borrow(owner, id, segs[0]!);
    expect(r.response.status).toBe(200);
    // 1.5 * 1.2 = 1.8 s of speech (+0.05): end 2.35, not the whole pause
    expect(r.data!.segment.end).toBeCloseTo(2.35, 3);
    // the last segment: up to the video's end (10 s), at most 2 s more
    await h.deps.db.query('UPDATE segments SET speed_factor = 3, overflow_sec = 1 WHERE id = $1', [segs[2]]);
    const last = await borrow(owner, id, segs[2]!);
    expect(last.response.status).toBe(200);
    // needs 1 * 3 + 1 = 4 s: 2 s at most (end 8, the video ends at 10)
    expect(last.data!.segment.end).toBe(8);
    expect(last.data!.borrowed_sec).toBe(2);
  });

  it('409 when the next segment starts right after, or the line already fits; 404 for an unknown segment', async () => {
    const { id, segs } = await seeded();
    await h.deps.db.query('UPDATE segments SET speed_factor = 1.4 WHERE id = $1', [segs[1]]);
    const tight = await borrow(owner, id, segs[1]!);
    expect(tight.response.status).toBe(409);
    expect(tight.error!.detail).toBe('The next segment starts right after this one: there is no pause to borrow');
    await h.deps.db.query('UPDATE segments SET speed_factor = 0.95, overflow_sec = 0 WHERE id = $1', [segs[0]]);
    const fits = await borrow(owner, id, segs[0]!);
    expect(fits.response.status).toBe(409);
    expect(fits.error!.detail).toBe('The line already fits its slot: it needs no pause');
    expect((await borrow(owner, id, '00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
    expect((await borrow(owner, id, 'nope')).response.status).toBe(404);
    // nothing changed
    expect((await transcript(id)).map((s) => s.end)).toEqual([2, 5, 6]);
  });

  it('an outsider is refused and nothing moves; an editor of the space may', async () => {
    const { id, segs } = await seeded();
    await h.deps.db.query('UPDATE segments SET speed_factor = 1.6, overflow_sec = 0 WHERE id = $1', [segs[0]]);
    const r = await borrow(outsider, id, segs[0]!);
    expect(r.response.status).toBe(403);
    expect((await h.deps.db.one<{ end_sec: number }>('SELECT end_sec FROM segments WHERE id = $1', [segs[0]])).end_sec).toBe(2);
    expect((await borrow(null, id, segs[0]!)).response.status).toBe(401);

    const memberEmail = `timing-member-${Date.now()}@example.com`;
    const space = await createSpace(h, owner, 'Timing team', 'ocean', [memberEmail]);
    const member = await makeUser(h, memberEmail);
    const team = await seeded(owner, space.id as string);
    await h.deps.db.query('UPDATE segments SET speed_factor = 1.6, overflow_sec = 0 WHERE id = $1', [team.segs[0]]);
    expect((await borrow(member, team.id, team.segs[0]!)).response.status).toBe(200);
  });

  it('409 while the project is being processed', async () => {
    const id = await seedProject(h, owner, { mediaId, segments: SEGS, status: 'voiceover_started' });
    const sid = (await h.deps.db.one<{ id: string }>('SELECT id FROM segments WHERE project_id = $1 ORDER BY start_sec LIMIT 1', [id])).id;
    expect((await borrow(owner, id, sid)).response.status).toBe(409);
  });
});

describe('POST /api/project/{id}/transcript/{segmentId}/keep_original', () => {
  it('keeps the original audio over a segment and undoes it; the transcript shows it', async () => {
    const { id, segs } = await seeded();
    const r = await keep(owner, id, segs[2]!, { keep: true });
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(v.parse(Segment, r.data!.segment)).toMatchObject({ id: segs[2], keep_original: true, status: 'updated', start: 5, end: 6 });
    expect(await status(id)).toBe('transcript_edited');
    expect((await transcript(id)).map((s) => s.keep_original)).toEqual([false, false, true]);
    // a kept segment is not dubbed: it has no pause to borrow
    expect((await borrow(owner, id, segs[2]!)).response.status).toBe(409);
    const undo = await keep(owner, id, segs[2]!, { keep: false });
    expect(undo.response.status).toBe(200);
    expect(undo.data!.segment.keep_original).toBe(false);
    expect((await transcript(id))[2]!.keep_original).toBe(false);
  });

  it('refuses a bad body (422), an unknown segment (404) and an outsider (403)', async () => {
    const { id, segs } = await seeded();
    const bad = await keepRaw(owner, id, segs[0]!, { keep: 'yes' });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.json.detail)).toContain('keep must be true or false');
    expect((await keepRaw(owner, id, segs[0]!, {})).status).toBe(422);
    expect((await keep(owner, id, '00000000-0000-4000-8000-000000000000', { keep: true })).response.status).toBe(404);
    const refused = await keep(outsider, id, segs[0]!, { keep: true });
    expect(refused.response.status).toBe(403);
    // access comes before the body: an outsider learns nothing from a bad one
    expect((await keepRaw(outsider, id, segs[0]!, {})).status).toBe(403);
    expect((await h.deps.db.one<{ keep_original: boolean }>('SELECT keep_original FROM segments WHERE id = $1', [segs[0]])).keep_original).toBe(false);
    expect(await status(id)).toBe('translation_done');
  });
});
