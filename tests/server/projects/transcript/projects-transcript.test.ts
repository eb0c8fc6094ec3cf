// Transcript calls: GET (all or some), POST (add), PATCH (batches of up to 50, end < start and same-speaker
// overlaps rejected with a detail), DELETE, merge; edits move the project to transcript_edited.
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Segment } from '../../../../contract/schemas/project';
import { makeSpeechVideo } from '../../../fixtures/media';
import { createHarness, type Harness } from '../../harness';
import { typedClient } from '../../typed-client';
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

type Seg = v.InferOutput<typeof Segment>;
type PatchSeg = { id: string; start?: number; end?: number; speaker?: string; src?: { lang?: string; text: string }; dst?: { lang?: string; text: string } };
type AddSeg = Omit<PatchSeg, 'id'> & { start: number; end: number; speaker: string };
const as = (token = u.token) => typedClient(h, token);
const at = (id: string) => ({ params: { path: { id } } });
const patch = (id: string, segs: PatchSeg[], token = u.token) => as(token).PATCH('/api/project/{id}/transcript', { ...at(id), body: { segments: segs } });
const add = (id: string, segs: AddSeg[]) => as().POST('/api/project/{id}/transcript', { ...at(id), body: { segments: segs } });
const merge = (id: string, ids: string[]) => as().POST('/api/project/{id}/transcript/merge', { ...at(id), body: { segment_ids: ids } });
const remove = (id: string, segmentId: string) => as().DELETE('/api/project/{id}/transcript/{segmentId}', { params: { path: { id, segmentId } } });
const project = async (id: string) => (await as().GET('/api/project/{id}', at(id))).data!;

async function segments(id: string): Promise<Seg[]> {
  const r = await as().GET('/api/project/{id}/transcript', at(id));
  expect(r.response.status).toBe(200);
  return r.data!.segments.map((s) => v.parse(Segment, s));
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
    // Untyped: the repeated form of ?segments= (the document types it as one comma-separated string).
    const some = await api(h, 'GET', `/api/project/${id}/transcript?segments=${all[0]!.id}&segments=${all[2]!.id}`, { token: u.token });
    expect(some.json.segments.map((s: Seg) => s.id)).toEqual([all[0]!.id, all[2]!.id]);
    const csv = await as().GET('/api/project/{id}/transcript', { params: { path: { id }, query: { segments: `${all[1]!.id},${all[2]!.id}` } } });
    expect(csv.data!.segments).toHaveLength(2);
    expect((await as(other.token).GET('/api/project/{id}/transcript', at(id))).response.status).toBe(403);
  });
});

describe('PATCH transcript', () => {
  it('updates text, times and speaker, marks them updated and the project transcript_edited', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a, b] = await segments(id);
    const r = await patch(id, [{ ...a!, dst: { lang: 'es', text: 'Hola a todos.' } }, { id: b!.id, start: 3.2, end: 5.1 }]);
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.segments).toHaveLength(2);
    expect(r.data!.segments[0]).toMatchObject({ id: a!.id, dst: { text: 'Hola a todos.' }, status: 'updated' });
    expect(r.data!.segments[1]).toMatchObject({ id: b!.id, start: 3.2, end: 5.1, status: 'updated' });
    expect(await project(id)).toMatchObject({ status: 'transcript_edited', progress: 100, changed_segments: 2 });
  });

  it('rejects end < start with a detail', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a] = await segments(id);
    const r = await patch(id, [{ id: a!.id, start: 2, end: 1.5 }]);
    expect(r.response.status).toBe(400);
    expect(r.error!.detail).toBe(`Segment ${a!.id} must end after it starts (start 2, end 1.5)`);
    const zero = await patch(id, [{ id: a!.id, end: 0.5 }]);
    expect(zero.response.status).toBe(400);
    expect((await segments(id))[0]).toMatchObject({ start: 0.5, end: 2.5, status: 'done' });
  });

  it('rejects an overlap with the same speaker, allows it across speakers', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a, b, c] = await segments(id);
    const same = await patch(id, [{ id: c!.id, start: 2 }]);
    expect(same.response.status).toBe(400);
    expect(same.error!.detail).toMatch(/^Segments of the same speaker cannot overlap: /);
    expect(same.error!.detail).toContain(a!.id);
    expect(same.error!.detail).toContain(c!.id);
    const cross = await patch(id, [{ id: b!.id, start: 2 }]);
    expect(cross.response.status).toBe(200);
    // Changing the speaker into an overlap is refused too; touching ends are fine.
    const speaker = await patch(id, [{ id: b!.id, speaker: 'SPEAKER_0' }]);
    expect(speaker.response.status).toBe(400);
    const touch = await patch(id, [{ id: a!.id, end: 3 }, { id: b!.id, start: 3, speaker: 'SPEAKER_0', end: 5.5 }]);
    expect(touch.response.status, JSON.stringify(touch.error)).toBe(200);
  });

  it('checks a segment moved far away against where it lands, and a batch against its own new times', async () => {
    // the check reads only the segments near the patched ones' new times, not the whole transcript
    const id = await seedProject(h, u, {
      mediaId,
      segments: Array.from({ length: 120 }, (_, i) => ({ start: i * 2, end: i * 2 + 1.5, speaker: i % 2 ? 'B' : 'A', src: `s${i}`, dst: `d${i}` })),
    });
    const segs = await segments(id);
    const first = segs[0]!;
    const far = segs[100]!; // A, 200-201.5
    const landed = await patch(id, [{ id: first.id, start: 201, end: 203.6 }]);
    expect(landed.response.status).toBe(400);
    expect(landed.error!.detail).toContain(far.id);
    expect(landed.error!.detail).toContain(first.id);
    // across speakers it may land there; touching is fine
    const cross = await patch(id, [{ id: segs[1]!.id, start: 200.2, end: 201 }]);
    expect(cross.response.status, JSON.stringify(cross.error)).toBe(200);
    const touching = await patch(id, [{ id: first.id, start: 201.5, end: 202 }]);
    expect(touching.response.status, JSON.stringify(touching.error)).toBe(200);
    // two A segments swap places in one batch: neither old place counts
    const [x, y] = [segs[10]!, segs[50]!];
    const swap = await patch(id, [{ id: x.id, start: y.start, end: y.end }, { id: y.id, start: x.start, end: x.end }]);
    expect(swap.response.status, JSON.stringify(swap.error)).toBe(200);
    // two patched segments landing on each other are refused, and nothing of the batch is kept
    const clash = await patch(id, [{ id: segs[20]!.id, start: 300, end: 301 }, { id: segs[22]!.id, start: 300.5, end: 301.2, dst: { text: 'kept?' } }]);
    expect(clash.response.status).toBe(400);
    const after = await segments(id);
    expect(after.find((s) => s.id === segs[22]!.id)).toMatchObject({ start: 44, end: 45.5, dst: { text: 'd22' } });
    // an added segment is checked against where it goes too
    expect((await add(id, [{ start: 150.5, end: 151, speaker: 'B' }])).response.status).toBe(400);
    expect((await add(id, [{ start: 300, end: 301, speaker: 'B' }])).response.status).toBe(200);
  });

  it('takes at most 50 segments per batch and refuses unknown ids', async () => {
    const id = await seedProject(h, u, {
      mediaId,
      segments: Array.from({ length: 51 }, (_, i) => ({ start: i, end: i + 0.5, src: `s${i}`, dst: `d${i}` })),
    });
    const segs = await segments(id);
    const big = await patch(id, segs.map((s) => ({ id: s.id, dst: { text: 'x' } })));
    expect(big.response.status).toBe(422);
    const fifty = await patch(id, segs.slice(0, 50).map((s) => ({ id: s.id, dst: { text: 'x' } })));
    expect(fifty.response.status).toBe(200);
    expect(fifty.data!.segments).toHaveLength(50);
    const ghost = await patch(id, [{ id: '00000000-0000-4000-8000-000000000000', end: 3 }]);
    expect(ghost.response.status).toBe(404);
    const dup = await patch(id, [{ id: segs[0]!.id }, { id: segs[0]!.id }]);
    expect(dup.response.status).toBe(400);
  });

  it('is refused while the project is being processed, and for another account', async () => {
    const id = await seedProject(h, u, { mediaId, status: 'voiceover_started' });
    const [a] = await segments(id);
    const r = await patch(id, [{ id: a!.id, dst: { text: 'x' } }]);
    expect(r.response.status).toBe(409);
    const id2 = await seedProject(h, u, { mediaId });
    const [b] = await segments(id2);
    const foreign = await patch(id2, [{ id: b!.id, dst: { text: 'x' } }], other.token);
    expect(foreign.response.status).toBe(403);
    expect(foreign.error!.detail).toMatch(/^You have no access to this resource/);
  });
});

describe('POST, DELETE, merge (and split as PATCH + POST)', () => {
  it('adds segments with the same rules', async () => {
    const id = await seedProject(h, u, { mediaId });
    const r = await add(id, [{ start: 8, end: 9.5, speaker: 'SPEAKER_2', src: { lang: 'en', text: 'Bye.' }, dst: { lang: 'es', text: 'Adiós.' } }]);
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.segments[0]).toMatchObject({ start: 8, end: 9.5, speaker: 'SPEAKER_2', status: 'updated', dst: { text: 'Adiós.' } });
    expect((await project(id)).speakers.map((s) => s.id)).toContain('SPEAKER_2');
    const overlap = await add(id, [{ start: 1, end: 2, speaker: 'SPEAKER_0' }]);
    expect(overlap.response.status).toBe(400);
    const backwards = await add(id, [{ start: 12, end: 11, speaker: 'SPEAKER_0' }]);
    expect(backwards.response.status).toBe(400);
    const negative = await add(id, [{ start: -1, end: 0.2, speaker: 'SPEAKER_0' }]);
    expect(negative.response.status).toBe(422);
  });

  it('splits a segment with PATCH + POST', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a] = await segments(id);
    const cut = await patch(id, [{ id: a!.id, end: 1.5, dst: { text: 'Ho-' } }]);
    expect(cut.response.status).toBe(200);
    const added = await add(id, [{ start: 1.5, end: 2.5, speaker: 'SPEAKER_0', dst: { text: '-la.' } }]);
    expect(added.response.status).toBe(200);
    expect((await segments(id)).map((s) => [s.start, s.end])).toEqual([[0.5, 1.5], [1.5, 2.5], [3, 5], [5.5, 7]]);
  });

  it('deletes one segment', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a] = await segments(id);
    const removed = await remove(id, a!.id);
    expect(removed.response.status).toBe(200);
    expect(removed.data).toEqual({ id: a!.id });
    expect(await segments(id)).toHaveLength(2);
    expect((await remove(id, a!.id)).response.status).toBe(404);
    expect((await project(id)).status).toBe('transcript_edited');
  });

  it('merges segments into the first, in time order', async () => {
    const id = await seedProject(h, u, { mediaId });
    const [a, b, c] = await segments(id);
    const r = await merge(id, [b!.id, a!.id]);
    expect(r.response.status, JSON.stringify(r.error)).toBe(200);
    expect(r.data!.segments).toEqual([
      expect.objectContaining({ id: a!.id, start: 0.5, end: 5, speaker: 'SPEAKER_0', src: { lang: 'en', text: 'Hello there. How are you?' }, dst: { lang: 'es', text: 'Hola. ¿Cómo estás?' }, status: 'updated' }),
    ]);
    expect((await segments(id)).map((s) => s.id)).toEqual([a!.id, c!.id]);
    const one = await merge(id, [a!.id]);
    expect(one.response.status).toBe(422);
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
    const r = await merge(id, [a!.id, b!.id]);
    expect(r.response.status).toBe(200);
    expect(r.data!.segments[0]).toMatchObject({ start: 0, end: 2, speaker: 'A' });
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
    const bad = await merge(id2, [s2[0]!.id, s2[3]!.id]);
    expect(bad.response.status).toBe(400);
    expect(bad.error!.detail).toMatch(/^Segments of the same speaker cannot overlap/);
  });
});
