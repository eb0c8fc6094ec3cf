// The in-process state of ONE app: its caches (accounts, kept reads, kept answers), its live event bus and the
// listeners its composition root (server/bootstrap.ts buildDeps) wires in. Made with the app's database and
// carried by it (Db.state, shared by its transaction handles), never module-wide: two apps in one process (tests,
// a worker beside the API) share nothing.
//
// Each part declares its typed namespace once (`namespace(name, make)`, a constant) and reads it with
// `state.of(ns)`: the value is made on first use, with the database's change clock; no string keys, no casts.
import type { ChangeClock } from '../db/changes';

export interface Namespace<T> {
  readonly name: string;
  readonly make: (changes: ChangeClock) => T;
}

/** Declares a typed part of the app state (made on first use by `make`). */
export function namespace<T>(name: string, make: (changes: ChangeClock) => T): Namespace<T> {
  return Object.freeze({ name, make });
}

export class AppState {
  readonly #parts = new Map<Namespace<unknown>, unknown>();
  constructor(readonly changes: ChangeClock) {}

  /** The app's part `ns` (made on first use). */
  of<T>(ns: Namespace<T>): T {
    if (!this.#parts.has(ns)) this.#parts.set(ns, ns.make(this.changes));
    return this.#parts.get(ns) as T;
  }
}
