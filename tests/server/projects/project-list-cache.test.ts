// Pages of the project list are kept serialized per version (server/domains/projects/list.ts): a page read again
// unchanged is the same answer (compressed for clients that accept it), and every kind of change to what a page shows
// gives the next read the new page, whoever made it: the API, a pipeline stage or plain SQL. Access is checked first.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { newUser, seedProject, uploadOk, type TestUser } from './projects-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let u: TestUser;
let other: TestUser;
let mediaId: string;

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'lists');
  other = await newUser(h, 'outsider');
  mediaId = await uploadOk(h, u, await makeSpeechVideo({ seconds: 4 }));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

interface Page {
  data: Array<{ id: string }>;
}
/** The raw path of a page, for the byte-level reads (kept answer, compression). */
const listPath = () => `/api/project/paginated?space_id=${u.defaultSpaceId}&limit=5`;
const list = (token: string, query: { offset?: string; name?: string } = {}) =>
  typedClient(h, token).GET('/api/project/paginated', { params: { query: { space_id: u.defaultSpaceId, limit: '5', ...query } } });
const transcript = (token: string, id: string) => typedClient(h, token).GET('/api/project/{id}/transcript', { params: { path: { id } } });
async function page(query: { offset?: string; name?: string } = {}) {
  const r = await list(u.token, query);
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  return r.data!;
}

describe('the kept project list', () => {
  it('answers an unchanged page again, compressed for clients that accept it', async () => {
    for (let i = 0; i < 3; i++) await seedProject(h, u, { mediaId, name: `Kept ${i}` });
    const first = await h.request('GET', listPath(), { token: u.token });
    const json = await first.text();
    expect(first.headers.get('vary')).toBe('Accept-Encoding');
    const again = await h.request('GET', listPath(), { token: u.token });
    expect(await again.text()).toBe(json);
    const gz = await h.request('GET', listPath(), { token: u.token, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString('utf8')).toBe(json);
    // Another page of the same space is another answer.
    const second = await page({ offset: '1' });
    expect(second.data[0]!.id).toBe((JSON.parse(json) as Page).data[1]!.id);
    expect(second.offset).toBe(1);
  });

  it('shows every change on the next read: API edits, pipeline writes, speakers, segments, deletions', async () => {
    const id = await seedProject(h, u, { mediaId, name: 'Changing' });
    const row = async () => (await page()).data.find((p) => p.id === id)!;
    expect((await row()).name).toBe('Changing');

    const renamed = await typedClient(h, u.token).PATCH('/api/project/{id}', { params: { path: { id } }, body: { name: 'Renamed' } });
    expect(renamed.response.status, JSON.stringify(renamed.error)).toBe(200);
    expect((await row()).name).toBe('Renamed');

    // A stage moving progress, as the pipeline does (another process in scale-out mode).
    await h.deps.db.query(`UPDATE projects SET status = 'voiceover_started', progress = 57 WHERE id = $1`, [id]);
    expect(await row()).toMatchObject({ status: 'voiceover_started', progress: 57 });

    await h.deps.db.query(`UPDATE speakers SET name = 'Narrator' WHERE project_id = $1 AND id = 'SPEAKER_0'`, [id]);
    expect((await row()).speakers.find((s) => s.id === 'SPEAKER_0')!.name).toBe('Narrator');
    await h.deps.db.query(`DELETE FROM speakers WHERE project_id = $1 AND id = 'SPEAKER_1'`, [id]);
    expect((await row()).speakers.map((s) => s.id)).toEqual(['SPEAKER_0']);

    expect((await row()).changed_segments).toBe(0);
    await h.deps.db.query(`UPDATE segments SET status = 'updated' WHERE project_id = $1 AND start_sec < 1`, [id]);
    expect((await row()).changed_segments).toBe(1);

    const before = (await page()).total;
    const del = await typedClient(h, u.token).DELETE('/api/project/{id}', { params: { path: { id } } });
    expect(del.response.status, JSON.stringify(del.error)).toBeLessThan(300);
    const after = await page();
    expect(after.total).toBe(before - 1);
    expect(after.data.map((p) => p.id)).not.toContain(id);
  });

  it('checks access before answering a kept page, and keeps filters apart', async () => {
    await seedProject(h, u, { mediaId, name: 'Findable needle' });
    expect((await page()).total).toBeGreaterThan(1);
    const refused = await list(other.token);
    expect(refused.response.status).toBe(403);
    // A member gets the kept page; once the space is disabled, only its owner does (the guard's rule, same query).
    await h.deps.db.query(`INSERT INTO space_members (space_id, user_id, role) VALUES ($1, $2, 'editor')`, [u.defaultSpaceId, other.id]);
    const asMember = await list(other.token);
    expect(asMember.response.status).toBe(200);
    expect(asMember.data).toEqual(await page());
    const someProject = asMember.data!.data[0]!.id;
    expect((await transcript(other.token, someProject)).response.status).toBe(200);
    await h.deps.db.query(`UPDATE spaces SET is_active = false WHERE id = $1`, [u.defaultSpaceId]);
    try {
      for (const [what, read] of [['the list', list], ['a transcript', (token: string) => transcript(token, someProject)]] as const) {
        const disabled = await read(other.token);
        expect(disabled.response.status, what).toBe(403);
        expect(disabled.error!.detail).toMatch(/disabled/);
        expect((await read(u.token)).response.status, what).toBe(200);
      }
    } finally {
      await h.deps.db.query(`UPDATE spaces SET is_active = true WHERE id = $1`, [u.defaultSpaceId]);
      await h.deps.db.query(`DELETE FROM space_members WHERE space_id = $1 AND user_id = $2`, [u.defaultSpaceId, other.id]);
    }
    expect((await list(other.token)).response.status).toBe(403);
    const found = await page({ name: 'needle' });
    expect(found.data.map((p) => p.name)).toEqual(['Findable needle']);
    expect(found.total).toBe(1);
  });
});
