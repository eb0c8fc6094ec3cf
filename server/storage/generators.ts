// Derived files made on first request: a signed URL may name a generator that writes the object under its
// key when it does not exist yet (voice samples). Concurrent requests for one key share one run.
import type { AppDeps } from '../deps';

export type FileGenerator = (deps: AppDeps, key: string, args: Record<string, string>) => Promise<void>;

const generators = new Map<string, FileGenerator>();
const running = new Map<string, Promise<void>>();

export function registerFileGenerator(kind: string, gen: FileGenerator): void {
  generators.set(kind, gen);
}

/** Makes the object under `key` with the named generator; false when no such generator exists. */
export async function materialize(deps: AppDeps, key: string, gen: { kind: string; args: Record<string, string> }): Promise<boolean> {
  const g = generators.get(gen.kind);
  if (!g) return false;
  let p = running.get(key);
  if (!p) {
    p = g(deps, key, gen.args).finally(() => running.delete(key));
    running.set(key, p);
  }
  await p;
  return true;
}
