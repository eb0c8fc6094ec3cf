// Results of the hottest reads kept between requests: the access facts and versions the editor's transcript and the
// project list ask for on every request (one database round trip each, most of what a kept answer costs; see
// server/cache/answers.ts for the answers themselves). A kept result is used again only while nothing has
// changed that this process could know of (server/db/changes.ts: its own writes, and every other process's writes
// to the tables those reads depend on, by change notices), and for KEPT_READ_MS at most whatever happens: a notice
// lost with its connection without the process noticing still ends there.
// Reads of one key that arrive together at one epoch share one query. A result is kept only when it was read wholly
// within one epoch, so a change that lands while a read is in flight is never hidden by it.
import { namespace } from './index';
import type { ChangeClock } from '../db/changes';
import type { Db } from '../db/index';

/** A kept result is read again after this long, whatever the change notices say (as the account caches). */
export const KEPT_READ_MS = 1500;
const MAX_ENTRIES = 20_000;

interface Entry {
  epoch: number;
  at: number;
  value: Promise<unknown>;
}

class KeptReads {
  private readonly entries = new Map<string, Entry>();
  constructor(private readonly clock: ChangeClock) {}

  read<T>(key: string, load: () => Promise<T>): Promise<T> {
    const clock = this.clock;
    const live = clock.live;
    const epoch = clock.epoch;
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && live && hit.epoch === epoch && now - hit.at < KEPT_READ_MS) return hit.value as Promise<T>;
    if (hit) this.entries.delete(key);
    const value = load();
    if (!live) return value;
    const entry: Entry = { epoch, at: now, value };
    if (this.entries.size >= MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, entry);
    value.then(
      () => {
        // Read across a change (or while the notices were lost): never used again.
        if (clock.epoch !== epoch || !clock.live) this.forget(key, entry);
      },
      () => this.forget(key, entry), // a failed read is not kept: the next request reads again
    );
    return value;
  }

  private forget(key: string, entry: Entry): void {
    if (this.entries.get(key) === entry) this.entries.delete(key);
  }
}

const KEPT_READS = namespace('kept-reads', (changes) => new KeptReads(changes));

/**
 * The result of `load` for `name`/`key`: kept from an earlier read while nothing changed since (see above), or read
 * now. Callers put in the key everything the read depends on (ids, the caller's user id, the query).
 */
export function keptRead<T>(db: Db, name: string, key: string, load: () => Promise<T>): Promise<T> {
  return db.state.of(KEPT_READS).read(`${name}\u0000${key}`, load);
}
