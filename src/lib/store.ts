// The jotai store of the app. React reads it through <Provider store>; non-React code (the http client's
// space_id, the global error effects) reads and writes the same store here.
import { createStore } from 'jotai';

export type AppStore = ReturnType<typeof createStore>;

let store: AppStore = createStore();

export function getAppStore(): AppStore {
  return store;
}

/** A fresh store (tests, or a remount after sign-out without reload). @internal */
export function resetAppStore(): AppStore {
  store = createStore();
  return store;
}
