// Derived files made on first request: a signed URL may name a generator that writes the object under its
// key when it does not exist yet (voice samples). The generators are a table of the app (server/app/files.ts);
// concurrent requests for one key share one run (the app's runs, server/cache).
import { flights } from '../cache/flights';
import type { AppDeps } from '../deps';

export type FileGenerator = (deps: AppDeps, key: string, args: Record<string, string>) => Promise<void>;

const MAKING = flights<void>('storage.generated-files');

/** Makes the object under `key` with the named generator of `generators`; false when no such generator exists. */
export async function materialize(
  deps: AppDeps,
  generators: Readonly<Record<string, FileGenerator>>,
  key: string,
  gen: { kind: string; args: Record<string, string> },
): Promise<boolean> {
  const g = Object.hasOwn(generators, gen.kind) ? generators[gen.kind] : undefined;
  if (!g) return false;
  await deps.db.state.of(MAKING).run(key, () => g(deps, key, gen.args));
  return true;
}
