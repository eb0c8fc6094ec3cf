// Transcript calls: GET (all or some), POST (add), PATCH (batches of up to 50, end < start and same-speaker
// overlaps rejected with a detail), DELETE, merge; edits move the project to transcript_edited.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Segment } from '../../../../contract/schemas/project';
import { makeSpeechVideo } from '../../../fixtures/media';
import { createHarness, type Harness } from '../../harness';
import { api, newUser, seedProject, uploadOk, type TestUser } from '../projects-fixtures';

let h: Harness;
let u: TestUser;
let other: TestUser;
let mediaId: string;

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'editor');
  other = await newUser(h, 'other');
  mediaId = await uploadOk(h, u, await makeSpeechVideo({ seconds: 4 }));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

const tpath = (id: string, rest = '') => `/api/project/${id}/transcript${rest}`;
type Seg = v.InferOutput<typeof Segment>;

async function segments(id: string): Promise<Seg[]> {
  const r = await api(h, 'GET', tpath(id), { token: u.token });
  expect(r.status).toBe(200);
  return r.json.segments.map((s: unknown) => v.parse(Segment, s));
}

describe('GET transcript', () => {
  it('answers every segment in time order, or the ones asked for', async () => {
    const id = await seedProject(h, u, { mediaId });
    const all = await segments(id);
    expect(all.map((s) => [s.start, s.end, s.speaker, s.src.text, s.dst.text, s.status])).toEqual([
      [0.5, 2.5, 'SPEAKER_0', 'Hello there.', 'Hola.', 'done'],
      [3, 5, 'SPEAKER_1', 'How are you?', '¿Cómo estás?', 'done'],
      [5.5, 7, 'SPEAKER_0', 'Fine.', 'Bien.', 'done'],
    ]);
    expect(all[0]!.src.lang).toBe('en');
    expect(all[0]!.dst.lang).toBe('es');
    const some = await api(h, 'GET', tpath(id, `?segments=${all[0]!.id}&segments=${all[2]!.id}`), { token: u.token });
    expect(some.json.segments.map((s: Seg) => s.id)).toEqual([all[0]!.id, all[2]!.id]);
    const csv = await api(h, 'GET', tpath(id, `?segments=${all[1]!.id},${all[2]!.id}`), { token: u.token });
    expect(csv.json.segments).toHaveLength(2);
    expect((await api(h, 'GET', tpath(id), { token: other.token })).status).toBe(403);
  });
});

describe('PATCH transcript', () => {
  it('updates text, times and speaker, marks them updated and the project transcript_edited', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a, b] = await segments(id);
    const r = await api(h, 'PATCH', tpath(id), {
      token: u.token,
      body: { segments: [{ ...a, dst: { lang: 'es', text: 'Hola a todos.' } }, { id: b!.id, start: 3.2, end: 5.1 }] },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.segments).toHaveLength(2);
    expect(r.json.segments[0]).toMatchObject({ id: a!.id, dst: { text: 'Hola a todos.' }, status: 'updated' });
    expect(r.json.segments[1]).toMatchObject({ id: b!.id, start: 3.2, end: 5.1, status: 'updated' });
    const p = await api(h, 'GET', `/api/project/${id}`, { token: u.token });
    expect(p.json).toMatchObject({ status: 'transcript_edited', progress: 100, changed_segments: 2 });
  });

  it('rejects end < start with a detail', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a] = await segments(id);
    const r = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: [{ id: a!.id, start: 2, end: 1.5 }] } });
    expect(r.status).toBe(400);
    expect(r.json.detail).toBe(`Segment ${a!.id} must end after it starts (start 2, end 1.5)`);
    const zero = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: [{ id: a!.id, end: 0.5 }] } });
    expect(zero.status).toBe(400);
    expect((await segments(id))[0]).toMatchObject({ start: 0.5, end: 2.5, status: 'done' });
  });

  it('rejects an overlap with the same speaker, allows it across speakers', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a, b, c] = await segments(id);
    const same = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: [{ id: c!.id, start: 2 }] } });
    expect(same.status).toBe(400);
    expect(same.json.detail).toMatch(/^Segments of the same speaker cannot overlap: /);
    expect(same.json.detail).toContain(a!.id);
    expect(same.json.detail).toContain(c!.id);
    const cross = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: [{ id: b!.id, start: 2 }] } });
    expect(cross.status).toBe(200);
    // Changing the speaker into an overlap is refused too; touching ends are fine.
    const speaker = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: [{ id: b!.id, speaker: 'SPEAKER_0' }] } });
    expect(speaker.status).toBe(400);
    const touch = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: [{ id: a!.id, end: 3 }, { id: b!.id, start: 3, speaker: 'SPEAKER_0', end: 5.5 }] } });
    expect(touch.status, JSON.stringify(touch.json)).toBe(200);
  });

  it('takes at most 50 segments per batch and refuses unknown ids', async () => {
    const id = await seedProject(h, u, {
      mediaId,
      segments: Array.from({ length: 51 }, (_, i) => ({ start: i, end: i + 0.5, src: `s${i}`, dst: `d${i}` })),
    });
    const segs = await segments(id);
    const big = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: segs.map((s) => ({ id: s.id, dst: { text: 'x' } })) } });
    expect(big.status).toBe(422);
    const fifty = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: segs.slice(0, 50).map((s) => ({ id: s.id, dst: { text: 'x' } })) } });
    expect(fifty.status).toBe(200);
    expect(fifty.json.segments).toHaveLength(50);
    const ghost = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: [{ id: '00000000-0000-4000-8000-000000000000', end: 3 }] } });
    expect(ghost.status).toBe(404);
    const dup = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: [{ id: segs[0]!.id }, { id: segs[0]!.id }] } });
    expect(dup.status).toBe(400);
  });

  it('is refused while the project is being processed, and for another account', async () => {
    const id = await seedProject(h, u, { mediaId, status: 'voiceover_started' });
    const [a] = await segments(id);
    const r = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: [{ id: a!.id, dst: { text: 'x' } }] } });
    expect(r.status).toBe(409);
    const id2 = await seedProject(h, u, { mediaId });
    const [b] = await segments(id2);
    const foreign = await api(h, 'PATCH', tpath(id2), { token: other.token, body: { segments: [{ id: b!.id, dst: { text: 'x' } }] } });
    expect(foreign.status).toBe(403);
    expect(foreign.json.detail).toMatch(/^You have no access to this resource/);
  });
});

describe('POST, DELETE, merge (and split as PATCH + POST)', () => {
  it('adds segments with the same rules', async () => {
    const id = await seedProject(h, u, { mediaId });
    const r = await api(h, 'POST', tpath(id), {
      token: u.token,
      body: { segments: [{ start: 8, end: 9.5, speaker: 'SPEAKER_2', src: { lang: 'en', text: 'Bye.' }, dst: { lang: 'es', text: 'Adiós.' } }] },
    });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.segments[0]).toMatchObject({ start: 8, end: 9.5, speaker: 'SPEAKER_2', status: 'updated', dst: { text: 'Adiós.' } });
    const p = await api(h, 'GET', `/api/project/${id}`, { token: u.token });
    expect(p.json.speakers.map((s: { id: string }) => s.id)).toContain('SPEAKER_2');
    const overlap = await api(h, 'POST', tpath(id), { token: u.token, body: { segments: [{ start: 1, end: 2, speaker: 'SPEAKER_0' }] } });
    expect(overlap.status).toBe(400);
    const backwards = await api(h, 'POST', tpath(id), { token: u.token, body: { segments: [{ start: 12, end: 11, speaker: 'SPEAKER_0' }] } });
    expect(backwards.status).toBe(400);
    const negative = await api(h, 'POST', tpath(id), { token: u.token, body: { segments: [{ start: -1, end: 0.2, speaker: 'SPEAKER_0' }] } });
    expect(negative.status).toBe(422);
  });

  it('splits a segment with PATCH + POST', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a] = await segments(id);
    const cut = await api(h, 'PATCH', tpath(id), { token: u.token, body: { segments: [{ id: a!.id, end: 1.5, dst: { text: 'Ho-' } }] } });
    expect(cut.status).toBe(200);
    const add = await api(h, 'POST', tpath(id), { token: u.token, body: { segments: [{ start: 1.5, end: 2.5, speaker: 'SPEAKER_0', dst: { text: '-la.' } }] } });
    expect(add.status).toBe(200);
    expect((await segments(id)).map((s) => [s.start, s.end])).toEqual([[0.5, 1.5], [1.5, 2.5], [3, 5], [5.5, 7]]);
  });

  it('deletes one segment', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a] = await segments(id);
    expect((await api(h, 'DELETE', tpath(id, `/${a!.id}`), { token: u.token })).status).toBe(200);
    expect(await segments(id)).toHaveLength(2);
    expect((await api(h, 'DELETE', tpath(id, `/${a!.id}`), { token: u.token })).status).toBe(404);
    expect((await api(h, 'GET', `/api/project/${id}`, { token: u.token })).json.status).toBe('transcript_edited');
  });

  it('merges segments into the first, in time order', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a, b, c] = await segments(id);
    const r = await api(h, 'POST', tpath(id, '/merge'), { token: u.token, body: { segment_ids: [b!.id, a!.id] } });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.segments).toEqual([
      expect.objectContaining({ id: a!.id, start: 0.5, end: 5, speaker: 'SPEAKER_0', src: { lang: 'en', text: 'Hello there. How are you?' }, dst: { lang: 'es', text: 'Hola. ¿Cómo estás?' }, status: 'updated' }),
    ]);
    expect((await segments(id)).map((s) => s.id)).toEqual([a!.id, c!.id]);
    const one = await api(h, 'POST', tpath(id, '/merge'), { token: u.token, body: { segment_ids: [a!.id] } });
    expect(one.status).toBe(422);
  });

  it('refuses a merge that would overlap another segment of the speaker', async () => {
    const id = await seedProject(h, u, {
      mediaId,
      segments: [
        { start: 0, end: 1, speaker: 'A' },
        { start: 1.5, end: 2, speaker: 'B' },
        { start: 3, end: 4, speaker: 'A' },
      ],
    });
    const [a, b] = await segments(id);
    // A(0-1) + B(1.5-2) becomes A(0-2): it ends before A's next segment (3-4), so it is fine.
    const r = await api(h, 'POST', tpath(id, '/merge'), { token: u.token, body: { segment_ids: [a!.id, b!.id] } });
    expect(r.status).toBe(200);
    expect(r.json.segments[0]).toMatchObject({ start: 0, end: 2, speaker: 'A' });
    const id2 = await seedProject(h, u, {
      mediaId,
      segments: [
        { start: 0, end: 1, speaker: 'B' },
        { start: 1.5, end: 2, speaker: 'A' },
        { start: 3, end: 4, speaker: 'B' },
        { start: 5, end: 6, speaker: 'B' },
      ],
    });
    const s2 = await segments(id2);
    // Merging B(0-1) and B(5-6) would cover B(3-4).
    const bad = await api(h, 'POST', tpath(id2, '/merge'), { token: u.token, body: { segment_ids: [s2[0]!.id, s2[3]!.id] } });
    expect(bad.status).toBe(400);
    expect(bad.json.detail).toMatch(/^Segments of the same speaker cannot overlap/);
  });
});
