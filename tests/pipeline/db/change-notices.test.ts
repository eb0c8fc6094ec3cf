// Scale-out: two API processes (two apps, each with its own PostgreSQL pool, change clock and kept reads) on one
// database. What one of them changes, the other's kept reads (server/cache/kept-reads.ts) never hide: every table the
// kept reads depend on sends a change notice when a statement writes it (migration 015), delivered at commit and
// not on rollback; while the notices cannot be followed (the listening connection lost) nothing is kept, and
// following resumes on its own.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT } from '../../../contract/errors';
import { buildDeps, shutdownDeps } from '../../../server/bootstrap';
import { CHANGES_CHANNEL } from '../../../server/db/changes';
import { openPostgres } from '../../../server/db/index';
import type { AppDeps } from '../../../server/deps';
import { createApp } from '../../../server/app/app';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { queriesDuring } from '../../server/helpers';
import { typedClient } from '../../server/typed-client';
import { makeUser, seedProject, uploadOk, type TestUser } from '../../server/projects/projects-fixtures';
import { createSpace, grantPlan } from '../../server/spaces/spaces-fixtures';

let a: Harness; // the first API process
let b: Harness; // the second, on the same database
let bDeps: AppDeps;
let owner: TestUser;
let mediaId: string;
let n = 0;
const email = (p: string) => `${p}-${++n}@notices.example`;

beforeAll(async () => {
  a = await createHarness({}, { db: 'pg' });
  const dbB = await openPostgres(a.config.databaseUrl!);
  bDeps = await buildDeps(a.config, { role: 'test', db: dbB });
  const appB = createApp(bDeps, { distDir: null, log: () => {} });
  b = {
    ...a,
    deps: bDeps,
    app: appB,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      return appB.request(path, { method, headers, body: opts.body !== undefined ? JSON.stringify(opts.body) : opts.raw });
    },
    close: async () => shutdownDeps(bDeps),
  };
  owner = await makeUser(a, email('owner'));
  await grantPlan(a, owner.id, 'enterprise');
  mediaId = await uploadOk(a, owner, await makeSpeechVideo({ seconds: 4 }));
}, 120_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
});

async function spaceWithMember() {
  const memberEmail = email('member');
  const space = await createSpace(a, owner, `Notices ${n}`, 'ocean', [memberEmail]);
  const member = await makeUser(a, memberEmail);
  const projectId = await seedProject(a, owner, { mediaId, spaceId: space.id as string });
  return { spaceId: space.id as string, member, projectId };
}

const transcript = (h: Harness, u: TestUser, id: string) => typedClient(h, u.token).GET('/api/project/{id}/transcript', { params: { path: { id } } });
const list = (h: Harness, u: TestUser, spaceId: string) => typedClient(h, u.token).GET('/api/project/paginated', { params: { query: { space_id: spaceId } } });
const removeMember = (h: Harness, spaceId: string, memberId: string) =>
  typedClient(h, owner.token).DELETE('/api/space/{id}/members/remove', { params: { path: { id: spaceId }, query: { member_id: memberId } } });

/** A's reads of the member, kept (nothing asked of the database when read again). */
async function keptInA(member: TestUser, spaceId: string, projectId: string): Promise<void> {
  await a.deps.db.changes.caughtUp();
  expect((await transcript(a, member, projectId)).response.status).toBe(200);
  expect((await list(a, member, spaceId)).response.status).toBe(200);
  expect(await queriesDuring(a.deps.db, async () => {
    expect((await transcript(a, member, projectId)).response.status).toBe(200);
    expect((await list(a, member, spaceId)).response.status).toBe(200);
  })).toBe(0);
}

async function until(ok: () => boolean, what: string, ms = 15_000): Promise<void> {
  const t0 = Date.now();
  while (!ok() && Date.now() - t0 < ms) await new Promise((r) => setTimeout(r, 20));
  expect(ok(), what).toBe(true);
}

describe('kept reads across two API processes', () => {
  it('a member removed on one process is refused by the other, which had the access kept', async () => {
    const { spaceId, member, projectId } = await spaceWithMember();
    await keptInA(member, spaceId, projectId);
    const removed = await removeMember(b, spaceId, member.id);
    expect(removed.response.status, JSON.stringify(removed.error)).toBe(200);
    // B's commit reaches A as a notice (A's own clock never saw B's write); once A has heard it:
    await a.deps.db.changes.caughtUp();
    const t = await transcript(a, member, projectId);
    expect(t.response.status).toBe(403);
    expect(t.error).toMatchObject({ detail: TEXT.noAccess });
    const l = await list(a, member, spaceId);
    expect(l.response.status).toBe(403);
    expect(l.error).toMatchObject({ detail: TEXT.noAccess });
    // The operator's view: A follows the notices; B, which has kept no read, has not started to (as a worker).
    expect(await (await a.app.request('/metrics')).text()).toContain('dubbing_change_notices{state="following"} 1');
    expect(await (await b.app.request('/metrics')).text()).toContain('dubbing_change_notices{state="idle"} 1');
  });

  it('an edit on one process, and segments written by another writer, are read by the other at once', async () => {
    const { spaceId, member, projectId } = await spaceWithMember();
    await keptInA(member, spaceId, projectId);
    const before = await transcript(a, member, projectId);
    const seg = before.data!.segments[0]!.id;
    const p = await typedClient(b, member.token).PATCH('/api/project/{id}/transcript', {
      params: { path: { id: projectId } },
      body: { segments: [{ id: seg, dst: { text: 'Editado en B.' } }] },
    });
    expect(p.response.status, JSON.stringify(p.error)).toBe(200);
    await a.deps.db.changes.caughtUp();
    const after = await transcript(a, member, projectId);
    expect(after.data!.segments[0]!.dst.text).toBe('Editado en B.');
    expect(after.response.headers.get('etag')).not.toBe(before.response.headers.get('etag'));

    // A writer that is neither app (a script, a worker): plain SQL on a connection of its own.
    const other = new pg.Client({ connectionString: a.config.databaseUrl! });
    await other.connect();
    try {
      await other.query(`UPDATE segments SET dst_text = 'Por SQL.' WHERE id = $1`, [seg]);
      await other.query(`UPDATE projects SET name = 'Renamed by SQL' WHERE id = $1`, [projectId]);
    } finally {
      await other.end();
    }
    await a.deps.db.changes.caughtUp();
    expect((await transcript(a, member, projectId)).data!.segments[0]!.dst.text).toBe('Por SQL.');
    expect((await list(a, member, spaceId)).data!.data[0]!.name).toBe('Renamed by SQL');
  });

  it('every table the kept reads depend on sends a notice at commit, and a rolled-back write sends none', async () => {
    const listener = new pg.Client({ connectionString: a.config.databaseUrl! });
    await listener.connect();
    const heard: string[] = [];
    listener.on('notification', (m) => {
      if (m.channel === CHANGES_CHANNEL && !m.payload?.startsWith('sync:')) heard.push(m.payload ?? '');
    });
    await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
    const writer = new pg.Client({ connectionString: a.config.databaseUrl! });
    await writer.connect();
    try {
      // A statement that writes no row still counts: the trigger is per statement.
      const column: Record<string, string> = {
        spaces: 'id', space_members: 'user_id', projects: 'id', speakers: 'project_id', transcript_revs: 'project_id', glossaries: 'id',
      };
      const tables = Object.keys(column);
      for (const t of tables) await writer.query(`UPDATE ${t} SET ${column[t]} = ${column[t]} WHERE false`);
      await writer.query('BEGIN');
      await writer.query(`UPDATE projects SET name = name WHERE false`);
      await writer.query('ROLLBACK');
      await writer.query(`SELECT pg_notify($1, 'marker')`, [CHANGES_CHANNEL]);
      await until(() => heard.includes('marker'), 'the marker arrives');
      expect(heard).toEqual([...tables, 'marker']); // in commit order; nothing from the rolled-back write
    } finally {
      await writer.end();
      await listener.end();
    }
  });

  it('keeps nothing while its listening connection is lost, and follows again on its own', async () => {
    const { spaceId, member, projectId } = await spaceWithMember();
    await keptInA(member, spaceId, projectId);
    const clock = a.deps.db.changes;
    const admin = new pg.Client({ connectionString: a.config.databaseUrl! });
    await admin.connect();
    try {
      const killed = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = $1 AND pid <> pg_backend_pid()`,
        [`LISTEN ${CHANGES_CHANNEL}`],
      );
      expect(killed.rowCount).toBeGreaterThanOrEqual(1); // A's listener (and B's, if it listens)
      await until(() => !clock.live, 'A notices its listener is gone');
      // While A hears nothing, a change made on B is still never hidden: A reads the database.
      const removed = await removeMember(b, spaceId, member.id);
      expect(removed.response.status).toBe(200);
      expect((await transcript(a, member, projectId)).response.status).toBe(403);
      expect((await list(a, member, spaceId)).response.status).toBe(403);
      // It follows again by itself, and reads are kept again.
      await until(() => clock.live, 'A listens again');
      await keptInA(owner, spaceId, projectId);
    } finally {
      await admin.end();
    }
  });
});
