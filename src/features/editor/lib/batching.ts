// Segment saves (spec sections 5, 7, 9): changed segments go in chunks of SEGMENT_BATCH_SIZE, all chunks
// in parallel. Each chunk succeeds or fails on its own.
import { SEGMENT_BATCH_SIZE } from '../../../../contract/constants';

export function chunk<T>(items: readonly T[], size: number = SEGMENT_BATCH_SIZE): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new Error(`Chunk size must be a positive integer, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface BatchResult<T, R> {
  /** What the server returned for the chunks that succeeded. */
  saved: R[];
  /** Items of the chunks that failed. */
  failed: T[];
  /** The first failure, for logging. */
  error: unknown;
}

/** Sends `items` in chunks of `size` in parallel through `send`; never rejects. */
export async function saveInBatches<T, R>(
  items: readonly T[],
  send: (chunk: T[]) => Promise<R[]>,
  size: number = SEGMENT_BATCH_SIZE,
): Promise<BatchResult<T, R>> {
  const chunks = chunk(items, size);
  const results = await Promise.allSettled(chunks.map((c) => send(c)));
  const saved: R[] = [];
  const failed: T[] = [];
  let error: unknown = null;
  results.forEach((r, i) => {
    if (r.status === 'fulfilled') saved.push(...r.value);
    else {
      failed.push(...chunks[i]);
      if (error === null) error = r.reason;
    }
  });
  return { saved, failed, error };
}
