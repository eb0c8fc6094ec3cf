// Small helpers shared by the built-in engines.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const whichCache = new Map<string, string | null>();

/** Absolute path of an executable on PATH, or null. Cached per process. */
export function which(cmd: string): string | null {
  if (whichCache.has(cmd)) return whichCache.get(cmd)!;
  let found: string | null = null;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, cmd);
    try {
      accessSync(p, constants.X_OK);
      found = p;
      break;
    } catch {
      /* keep looking */
    }
  }
  whichCache.set(cmd, found);
  return found;
}

/** Memoises an async function of no arguments; a rejected attempt is forgotten so it can be retried. */
export function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | null = null;
  return () => {
    if (!p) {
      p = fn();
      p.catch(() => {
        p = null;
      });
    }
    return p;
  };
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) {
    const e = signal.reason instanceof Error ? signal.reason : new Error('aborted');
    if (!(signal.reason instanceof Error)) e.name = 'AbortError';
    throw e;
  }
}

/** Runs `fn` over items with at most `limit` in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}
