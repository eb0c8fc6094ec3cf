// The dictionary CSV import parses its file in a worker thread of its own (csv-thread.mjs), so a large file
// never holds the event loop that answers every other request. The thread ends once it has posted its result.
import { Worker } from 'node:worker_threads';
import type { ParsedCsv } from './csv';

const BOOT = new URL('./csv-thread.mjs', import.meta.url);
const MODULE = new URL('./csv.ts', import.meta.url).href;

/** Threads parsing a file right now (tests: the import really runs off the event loop). */
let active = 0;
/** @internal Used by tests only. */
export const csvThreadsRunning = () => active;

/** Decodes and parses `bytes` in a worker thread; stops after `maxRows` + 1 entries (tooMany). */
export function parseCsvInThread(bytes: Uint8Array, maxRows: number): Promise<ParsedCsv | { fileError: string }> {
  return new Promise((resolve, reject) => {
    active++;
    const worker = new Worker(BOOT, { workerData: { module: MODULE, bytes, maxRows } });
    let done = false;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      active--;
      fn();
    };
    worker.once('message', (m: ParsedCsv | { fileError: string }) => finish(() => resolve(m)));
    worker.once('error', (e) => finish(() => reject(e)));
    worker.once('exit', (code) => finish(() => reject(new Error(`the CSV parsing thread stopped (exit ${code})`))));
  });
}
