// The live project events bus belongs to its database (server/live/events.ts): two apps in one process do not
// hear each other, except through Redis on the channel of their queue prefix, as two processes would.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { AppState } from '../../../server/cache/index';
import { ChangeClock } from '../../../server/db/changes';
import type { Db } from '../../../server/db/index';
import type { ProjectEvent } from '../../../contract/events';
import { projectEventsOf } from '../../../server/live/events';

const REDIS = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** What the bus uses of a database: its app state (server/cache) and change clock. */
const fakeDb = (changes = new ChangeClock(null)) => ({ state: new AppState(changes), changes }) as unknown as Db;
const event = (id: string): ProjectEvent => ({ id, space_id: 's', status: 'transcription_started', progress: 12 });
const bridged: Array<ReturnType<typeof projectEventsOf>> = [];
afterAll(async () => {
  await Promise.all(bridged.map((b) => b.unbridge()));
});

async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(ok(), what).toBe(true);
}

describe('project events bus', () => {
  it('is one per database: a second app in the process does not hear the first', () => {
    const a = fakeDb();
    const b = fakeDb();
    expect(projectEventsOf(a)).toBe(projectEventsOf(a));
    const heardA: string[] = [];
    const heardB: string[] = [];
    projectEventsOf(a).subscribe(() => true, (e) => heardA.push(e.id));
    projectEventsOf(b).subscribe(() => true, (e) => heardB.push(e.id));
    projectEventsOf(a).publish(event('p1'));
    expect(heardA).toEqual(['p1']);
    expect(heardB).toEqual([]);
  });

  it('reaches the buses of other processes through Redis on its prefix only, without echo', async () => {
    const prefix = `t-${randomBytes(4).toString('hex')}`;
    const dbs = [fakeDb(), fakeDb(), fakeDb()];
    const [one, two, elsewhere] = dbs.map((d) => projectEventsOf(d));
    await one!.bridge(REDIS, prefix);
    await two!.bridge(REDIS, prefix);
    await elsewhere!.bridge(REDIS, `${prefix}-other`);
    bridged.push(one!, two!, elsewhere!);
    const got = { one: [] as string[], two: [] as string[], elsewhere: [] as string[] };
    // What the receiving database's change clock read when each event was heard (kept reads: see below).
    const epochs = { one: [] as number[], two: [] as number[] };
    const twoEpoch0 = dbs[1]!.changes.epoch;
    one!.subscribe(() => true, (e) => {
      got.one.push(e.id);
      epochs.one.push(dbs[0]!.changes.epoch);
    });
    two!.subscribe(() => true, (e) => {
      got.two.push(e.id);
      epochs.two.push(dbs[1]!.changes.epoch);
    });
    elsewhere!.subscribe(() => true, (e) => got.elsewhere.push(e.id));
    one!.publish(event('from-one'));
    await until(() => got.two.length === 1, 'the other bus of the prefix hears the event');
    two!.publish(event('from-two'));
    await until(() => got.one.length === 2, 'and the first hears the second');
    expect(got.one).toEqual(['from-one', 'from-two']); // its own event once (locally), not echoed back
    expect(got.two).toEqual(['from-one', 'from-two']);
    expect(got.elsewhere).toEqual([]);
    // Another process's event moves the receiving database's clock before its listeners hear it (so a listener that
    // reads the project on the event never gets a result kept from before); one's own event does not.
    expect(epochs.two[0]).toBeGreaterThan(twoEpoch0);
    expect(epochs.one).toEqual([0, 1]);
  });
});
