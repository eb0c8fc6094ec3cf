// Two apps built in one process (two buildDeps, each with its own data directory and database) share nothing: the
// status listeners, the live project events, the caches and the debit listeners of one are not the other's
// (server/cache: an app's state is made with its database and wired by its composition root).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ledger from '../../../server/domains/billing/ledger';
import { cachedEmbedIdentity, rememberEmbedIdentity } from '../../../server/domains/users/cache';
import { keptRead } from '../../../server/cache/kept-reads';
import { rememberSessionToken, recentSessionToken, tokenKnown, tokenSeen } from '../../../server/domains/shop/token';
import { cpuSlots, takeCpuSlot, toolNiceness, withCpuSlot, withToolLimits } from '../../../server/media/run';
import { projectEventsOf } from '../../../server/live/events';
import { setStatus, type StatusChange } from '../../../server/pipeline/stages';
import type { ProjectEvent } from '../../../contract/events';
import { makeSpeechVideo } from '../../fixtures/media';
import { createHarness, type Harness } from '../harness';
import { newUser, seedProject, uploadOk, type TestUser } from '../projects/projects-fixtures';

let a: Harness;
let b: Harness;
let video: string;
beforeAll(async () => {
  // Different CPU slots and niceness: each app's tools take its own (server/media/run.ts).
  [a, b] = await Promise.all([createHarness({ PIPELINE_CPU_SLOTS: '1', PIPELINE_NICE: '4' }), createHarness({ PIPELINE_CPU_SLOTS: '2', PIPELINE_NICE: '6' })]);
  video = await makeSpeechVideo({ seconds: 3 });
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

async function projectOf(h: Harness): Promise<{ u: TestUser; id: string }> {
  const u = await newUser(h, 'twoapps');
  const id = await seedProject(h, u, { mediaId: await uploadOk(h, u, video) });
  return { u, id };
}

async function debited(h: Harness): Promise<number> {
  const m = await h.deps.metrics.minutesDebited.get();
  return m.values.reduce((s, v) => s + v.value, 0);
}

describe('two apps in one process', () => {
  it('each has its own state, made with its own database', () => {
    expect(a.dataDir).not.toBe(b.dataDir);
    expect(a.deps.db).not.toBe(b.deps.db);
    expect(a.deps.state).toBe(a.deps.db.state);
    expect(a.deps.state).not.toBe(b.deps.state);
    expect(a.deps.listeners).not.toBe(b.deps.listeners);
  });

  it('a status listener and the live events of one app never hear the other', async () => {
    const [pa, pb] = await Promise.all([projectOf(a), projectOf(b)]);
    const heardByListener: StatusChange[] = [];
    a.deps.listeners.onStatusChange(async (_db, c) => {
      heardByListener.push(c);
    });
    const eventsA: ProjectEvent[] = [];
    const eventsB: ProjectEvent[] = [];
    const offA = projectEventsOf(a.deps.db).subscribe(() => true, (e) => eventsA.push(e));
    const offB = projectEventsOf(b.deps.db).subscribe(() => true, (e) => eventsB.push(e));
    try {
      await setStatus(b.deps.db, pb.id, 'voiceover_started');
      expect(heardByListener).toEqual([]);
      expect(eventsA).toEqual([]);
      expect(eventsB.map((e) => [e.id, e.status])).toEqual([[pb.id, 'voiceover_started']]);

      await setStatus(a.deps.db, pa.id, 'voiceover_started');
      expect(heardByListener.map((c) => [c.projectId, c.status])).toEqual([[pa.id, 'voiceover_started']]);
      expect(eventsA.map((e) => [e.id, e.status])).toEqual([[pa.id, 'voiceover_started']]);
      expect(eventsB).toHaveLength(1);
    } finally {
      offA();
      offB();
    }
  }, 60_000);

  it('a cache entry of one app is not seen by the other', async () => {
    rememberEmbedIdentity(a.deps.db, 'shop.example|42', { identityId: 'i-1', email: 'x@example.com' });
    expect(cachedEmbedIdentity(a.deps.db, 'shop.example|42')?.identityId).toBe('i-1');
    expect(cachedEmbedIdentity(b.deps.db, 'shop.example|42')).toBeNull();

    // PostgreSQL: a read is kept once its app follows the change notices (server/db/changes.ts).
    await Promise.all([a.deps.db.changes.caughtUp(), b.deps.db.changes.caughtUp()]);
    let loads = 0;
    const load = async () => ++loads;
    expect(await keptRead(a.deps.db, 'two-apps', 'k', load)).toBe(1);
    expect(await keptRead(a.deps.db, 'two-apps', 'k', load)).toBe(1); // kept by a
    expect(await keptRead(b.deps.db, 'two-apps', 'k', load)).toBe(2); // b reads for itself
  });

  it('a debit counts in the metrics of its own app only', async () => {
    const u = await newUser(b, 'twoapps-debit');
    await ledger.post(b.deps.db, { spaceId: u.defaultSpaceId, kind: 'purchase', minutes: 5, ref: 'two-apps-pack' });
    const [beforeA, beforeB] = [await debited(a), await debited(b)];
    await b.deps.db.tx((t) => ledger.debit(t, { spaceId: u.defaultSpaceId, minutes: 2, ref: 'two-apps-debit' }));
    expect(await debited(b)).toBe(beforeB + 2);
    expect(await debited(a)).toBe(beforeA);
  });

  it('each has its own CPU slots and tool niceness: a slot held in one never makes the other wait', async () => {
    expect(a.deps.tools).not.toBe(b.deps.tools);
    expect([a.deps.tools.slots.limit, a.deps.tools.nice]).toEqual([1, 4]);
    expect([b.deps.tools.slots.limit, b.deps.tools.nice]).toEqual([2, 6]);
    expect(withToolLimits(a.deps.tools, () => [cpuSlots().limit, toolNiceness()])).toEqual([1, 4]);
    expect(withToolLimits(b.deps.tools, () => [cpuSlots().limit, toolNiceness()])).toEqual([2, 6]);
    // A's only slot is taken: a second task of A waits, B's tasks run at once.
    const release = await withToolLimits(a.deps.tools, () => takeCpuSlot());
    let aSecondRan = false;
    const aSecond = withToolLimits(a.deps.tools, () => withCpuSlot(async () => void (aSecondRan = true)));
    await withToolLimits(b.deps.tools, () => Promise.all([withCpuSlot(async () => {}), withCpuSlot(async () => {})]));
    expect(aSecondRan).toBe(false);
    expect(a.deps.tools.slots).toEqual({ limit: 1, inUse: 1, waiting: 1 });
    expect(b.deps.tools.slots).toEqual({ limit: 2, inUse: 0, waiting: 0 });
    release();
    await aSecond;
    expect(aSecondRan).toBe(true);
    expect(a.deps.tools.slots.inUse).toBe(0);
  });

  it('a shop token remembered by one app is not known to the other', () => {
    const shop = 'two-apps.myshopify.com';
    rememberSessionToken(a.deps.db, shop, 'session-a', Date.now() + 60_000);
    tokenSeen(a.deps.db, shop);
    expect(recentSessionToken(a.deps.db, shop)).toBe('session-a');
    expect(tokenKnown(a.deps.db, shop)).toBe(true);
    expect(recentSessionToken(b.deps.db, shop)).toBeNull();
    expect(tokenKnown(b.deps.db, shop)).toBe(false);
  });
});
