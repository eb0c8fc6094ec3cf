// The hottest reads' results kept between requests (server/cache/kept-reads.ts, server/db/changes.ts): the transcript's
// and the project list's access facts and versions are asked of the database once, then answered from memory while
// nothing changes; every change this process makes (over the API, or any write through its database) is seen by the
// next request: a member removed or a space disabled is refused at once, an edit is read at once. Runs on PGlite and
// (TEST_DB=pg) on PostgreSQL; other processes' changes are in tests/pipeline/db/change-notices.test.ts.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEXT } from '../../../contract/errors';
import { AppState } from '../../../server/cache/index';
import { ChangeClock, mayWrite } from '../../../server/db/changes';
import type { Db } from '../../../server/db/index';
import { KEPT_READ_MS, keptRead } from '../../../server/cache/kept-reads';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, usingPostgres, type Harness } from '../harness';
import { queriesDuring } from '../helpers';
import { makeUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';
import { createSpace, grantPlan } from '../spaces/spaces-fixtures';
import { typedClient } from '../typed-client';

let h: Harness;
let owner: TestUser;
let mediaId: string;
let n = 0;
const email = (p: string) => `${p}-${++n}@kept.example`;

beforeAll(async () => {
  h = await createHarness();
  owner = await makeUser(h, email('owner'));
  await grantPlan(h, owner.id, 'enterprise'); // Teamspaces of one's own come with a plan
  mediaId = await uploadOk(h, owner, await makeSpeechVideo({ seconds: 4 }));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/** A space of the owner with one member (an editor), and a seeded project in it. */
async function spaceWithMember() {
  const memberEmail = email('member');
  const space = await createSpace(h, owner, `Kept ${n}`, 'ocean', [memberEmail]);
  const member = await makeUser(h, memberEmail); // claims the invite: a member of the space
  const projectId = await seedProject(h, owner, { mediaId, spaceId: space.id as string });
  return { spaceId: space.id as string, member, projectId };
}

const transcript = (u: TestUser, id: string) => typedClient(h, u.token).GET('/api/project/{id}/transcript', { params: { path: { id } } });
const list = (u: TestUser, spaceId: string) => typedClient(h, u.token).GET('/api/project/paginated', { params: { query: { space_id: spaceId } } });
/** The status and error of an answer, to match at once. */
const refusal = (r: { response: Response; error?: unknown }) => ({ status: r.response.status, error: r.error });

describe('kept reads over the API', () => {
  it('a repeated transcript or list read asks the database nothing, and a member removed is refused at once', async () => {
    const { spaceId, member, projectId } = await spaceWithMember();
    expect((await transcript(member, projectId)).response.status).toBe(200);
    expect((await list(member, spaceId)).response.status).toBe(200);
    // On PostgreSQL the notices of the writes above come back to this process too (as another's would): once they
    // all have, nothing changes any more.
    await h.deps.db.changes.caughtUp();
    expect((await transcript(member, projectId)).response.status).toBe(200);
    expect((await list(member, spaceId)).response.status).toBe(200);
    // Read again: access facts, versions and the answers themselves are all kept.
    expect(await queriesDuring(h.deps.db, async () => {
      expect((await transcript(member, projectId)).response.status).toBe(200);
      expect((await list(member, spaceId)).data!.total).toBe(1);
    })).toBe(0);

    const removed = await typedClient(h, owner.token).DELETE('/api/space/{id}/members/remove', {
      params: { path: { id: spaceId }, query: { member_id: member.id } },
    });
    expect(removed.response.status, JSON.stringify(removed.error)).toBe(200);
    // The very next requests: refused, not answered from what was kept.
    expect(refusal(await transcript(member, projectId))).toMatchObject({ status: 403, error: { detail: TEXT.noAccess } });
    expect(refusal(await list(member, spaceId))).toMatchObject({ status: 403, error: { detail: TEXT.noAccess } });
    // The owner's own reads still work (and are read again, not refused from the member's entries).
    expect((await transcript(owner, projectId)).response.status).toBe(200);
    expect((await list(owner, spaceId)).data!.total).toBe(1);
  });

  it('a space disabled by a write through the database is refused to its members at once, and kept for its owner', async () => {
    const { spaceId, member, projectId } = await spaceWithMember();
    expect((await transcript(member, projectId)).response.status).toBe(200);
    expect((await list(member, spaceId)).response.status).toBe(200);
    await h.deps.db.query(`UPDATE spaces SET is_active = false WHERE id = $1`, [spaceId]);
    expect(refusal(await transcript(member, projectId))).toMatchObject({ status: 403, error: { detail: `${TEXT.noAccess}: this Teamspace is disabled` } });
    expect((await list(member, spaceId)).response.status).toBe(403);
    expect((await transcript(owner, projectId)).response.status).toBe(200);
    await h.deps.db.query(`UPDATE spaces SET is_active = true WHERE id = $1`, [spaceId]);
    expect((await transcript(member, projectId)).response.status).toBe(200);
  });

  it('segments written inside a transaction are read once it commits; a deleted project is gone at once', async () => {
    const { spaceId, member, projectId } = await spaceWithMember();
    const first = await transcript(member, projectId);
    expect(first.data!.segments).toHaveLength(3);
    await h.deps.db.tx(async (t) => {
      await t.query(`UPDATE segments SET dst_text = 'Cambiado.' WHERE project_id = $1`, [projectId]);
    });
    const after = await transcript(member, projectId);
    expect(after.response.headers.get('etag')).not.toBe(first.response.headers.get('etag'));
    expect(after.data!.segments.map((s) => s.dst.text)).toEqual(['Cambiado.', 'Cambiado.', 'Cambiado.']);

    // A project added to the space is counted by the very next page.
    const before = (await list(member, spaceId)).data!.total;
    await seedProject(h, owner, { mediaId, spaceId, name: 'Second' });
    expect((await list(member, spaceId)).data!.total).toBe(before + 1);

    const del = await typedClient(h, owner.token).DELETE('/api/project/{id}', { params: { path: { id: projectId } } });
    expect(del.response.status).toBe(200);
    expect((await transcript(member, projectId)).response.status).toBe(404);
  });
});

/** The little a kept read uses of a database: its app state (server/cache) and change clock. */
const fakeDb = (clock = new ChangeClock(null)) => ({ state: new AppState(clock), changes: clock }) as unknown as Db;

describe('keptRead', () => {
  it('reads once per epoch, again after any change, and concurrent reads share one query', async () => {
    const db = fakeDb();
    let loads = 0;
    const load = async () => ++loads;
    expect(await keptRead(db, 'x', 'k', load)).toBe(1);
    expect(await keptRead(db, 'x', 'k', load)).toBe(1);
    expect(await keptRead(db, 'x', 'other', load)).toBe(2); // keys apart
    expect(await keptRead(db, 'y', 'k', load)).toBe(3); // names apart
    db.changes.bump();
    expect(await keptRead(db, 'x', 'k', load)).toBe(4);
    db.changes.bump();
    const [a, b, c] = await Promise.all([keptRead(db, 'x', 'k', load), keptRead(db, 'x', 'k', load), keptRead(db, 'x', 'k', load)]);
    expect([a, b, c]).toEqual([5, 5, 5]);
  });

  it('never keeps a result read across a change, nor a failure', async () => {
    const db = fakeDb();
    let loads = 0;
    let release!: () => void;
    const slow = () => new Promise<number>((r) => (release = () => r(++loads)));
    const inFlight = keptRead(db, 'x', 'k', slow);
    db.changes.bump(); // a write finishes while the read is in flight
    const after = keptRead(db, 'x', 'k', async () => ++loads); // after the change: not joined to the old read
    expect(await after).toBe(1);
    release(); // the old read ends after the newer one: it must not replace it
    expect(await inFlight).toBe(2);
    expect(await keptRead(db, 'x', 'k', async () => ++loads)).toBe(1); // the read made after the change is kept
    const stale = keptRead(db, 'x', 'stale', slow);
    db.changes.bump();
    release();
    expect(await stale).toBe(3);
    expect(await keptRead(db, 'x', 'stale', async () => ++loads)).toBe(4); // read across a change: not kept

    const failing = keptRead(db, 'f', 'k', () => Promise.reject(new Error('connection lost')));
    await expect(failing).rejects.toThrow('connection lost');
    expect(await keptRead(db, 'f', 'k', async () => 'read again')).toBe('read again');
  });

  it('keeps nothing while the change notices are not followed, and nothing past KEPT_READ_MS', async () => {
    // A listener that never connects: the clock is not live, so every read asks.
    const offline = fakeDb(new ChangeClock(() => new Promise(() => {})));
    let loads = 0;
    expect(await keptRead(offline, 'x', 'k', async () => ++loads)).toBe(1);
    expect(await keptRead(offline, 'x', 'k', async () => ++loads)).toBe(2);

    const db = fakeDb();
    const now = vi.spyOn(Date, 'now');
    try {
      now.mockReturnValue(1_000_000);
      expect(await keptRead(db, 'x', 'k', async () => ++loads)).toBe(3);
      now.mockReturnValue(1_000_000 + KEPT_READ_MS - 1);
      expect(await keptRead(db, 'x', 'k', async () => ++loads)).toBe(3);
      now.mockReturnValue(1_000_000 + KEPT_READ_MS);
      expect(await keptRead(db, 'x', 'k', async () => ++loads)).toBe(4);
    } finally {
      now.mockRestore();
    }
  });
});

describe("the database's change clock", () => {
  it('moves on after a write, a transaction or an exec, and not after a plain read', async () => {
    const db = h.deps.db;
    await db.changes.caughtUp(); // (PostgreSQL) the notices of earlier writes are in
    const e0 = db.changes.epoch;
    await db.query(`SELECT 1`);
    await db.query(`WITH x AS (SELECT 1 AS a) SELECT a FROM x`);
    expect(db.changes.epoch).toBe(e0);
    await db.query(`UPDATE spaces SET name = name WHERE false`);
    expect(db.changes.epoch).toBeGreaterThan(e0);
    await db.changes.caughtUp(); // (PostgreSQL) and its own notice is in
    const e1 = db.changes.epoch;
    await db.tx(async (t) => {
      await t.query(`SELECT 1`);
      expect(db.changes.epoch).toBe(e1); // nothing is visible before the commit
    });
    expect(db.changes.epoch).toBeGreaterThan(e1);
    const e2 = db.changes.epoch;
    await expect(db.tx(async () => Promise.reject(new Error('rolled back')))).rejects.toThrow('rolled back');
    expect(db.changes.epoch).toBeGreaterThan(e2);
  });

  it('runs after-commit callbacks after the commit, never after a rollback, at once outside a transaction', async () => {
    const db = h.deps.db;
    const seen: string[] = [];
    db.afterCommit(() => seen.push('outside'));
    expect(seen).toEqual(['outside']);
    await db.tx(async (t) => {
      t.afterCommit(() => seen.push('committed'));
      await t.tx(async (nested) => nested.afterCommit(() => seen.push('joined')));
      expect(seen).toEqual(['outside']);
    });
    expect(seen).toEqual(['outside', 'committed', 'joined']);
    await expect(db.tx(async (t) => {
      t.afterCommit(() => seen.push('rolled back'));
      throw new Error('no');
    })).rejects.toThrow('no');
    expect(seen).toEqual(['outside', 'committed', 'joined']);
  });

  it('counts as a write every statement but plain reads', () => {
    for (const sql of ['SELECT 1', ' select * from projects', 'WITH page AS (SELECT id FROM projects) SELECT * FROM page', 'SELECT updated_at FROM projects']) {
      expect(mayWrite(sql), sql).toBe(false);
    }
    for (const sql of [
      'UPDATE projects SET name = $2', 'insert into x values (1)', 'DELETE FROM spaces', 'WITH d AS (DELETE FROM x RETURNING id) SELECT * FROM d',
      'SELECT id FROM projects FOR UPDATE', 'TRUNCATE projects', 'CALL p()', 'BEGIN', 'LOCK TABLE projects',
    ]) {
      expect(mayWrite(sql), sql).toBe(true);
    }
  });
});

describe("the operator's view", () => {
  it('shows at /metrics whether the change notices are followed', async () => {
    const { member, projectId } = await spaceWithMember();
    expect((await transcript(member, projectId)).response.status).toBe(200); // a kept read: PostgreSQL starts following
    await h.deps.db.changes.caughtUp();
    const text = await (await h.app.request('/metrics')).text();
    const now = usingPostgres() ? 'following' : 'embedded';
    for (const state of ['embedded', 'idle', 'following', 'lost']) {
      expect(text).toContain(`dubbing_change_notices{state="${state}"} ${state === now ? 1 : 0}`);
    }
  });
});
