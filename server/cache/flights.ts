// Work running in this app, by key: one run per key at a time (`Flights`: two clicks make a file once), or runs
// of one key one after the other (`KeyedQueue`: one checkout per user at a time). Parts of the app's state
// (server/cache, Db.state), never module-wide: two apps in one process do not wait for each other's work.
import { namespace, type Namespace } from './index';

/** Runs by key: a second caller of a running key gets the running work. */
export class Flights<T> {
  readonly #running = new Map<string, Promise<T>>();

  /** The running work of `key`, or `make()` started now (forgotten when it settles). */
  run(key: string, make: () => Promise<T>): Promise<T> {
    const cur = this.#running.get(key);
    if (cur) return cur;
    const p = make().finally(() => {
      if (this.#running.get(key) === p) this.#running.delete(key);
    });
    this.#running.set(key, p);
    return p;
  }

  has(key: string): boolean {
    return this.#running.has(key);
  }

  get size(): number {
    return this.#running.size;
  }

  /** Resolves when every run started so far (and those they start meanwhile) has settled. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()]);
  }
}

/** Runs by key, one after the other (a failed run does not stop the next). */
export class KeyedQueue {
  readonly #tails = new Map<string, Promise<unknown>>();

  async serial<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.#tails.get(key) ?? Promise.resolve();
    const run = prev.catch(() => {}).then(fn);
    this.#tails.set(key, run);
    try {
      return await run;
    } finally {
      if (this.#tails.get(key) === run) this.#tails.delete(key);
    }
  }
}

/** Declares an app's runs by key named `name` (a constant of its owner). */
export function flights<T>(name: string): Namespace<Flights<T>> {
  return namespace(`flights:${name}`, () => new Flights<T>());
}

/** Declares an app's queues by key named `name` (a constant of its owner). */
export function keyedQueue(name: string): Namespace<KeyedQueue> {
  return namespace(`queue:${name}`, () => new KeyedQueue());
}
