// Creates a new PGlite data directory (initdb) in a worker thread of its own (server/db/index.ts): initdb's
// WebAssembly memory (about 370 MB) is freed with the thread instead of staying in the server's heap.
// Plain JavaScript: it needs nothing but PGlite, so the thread does not load the TypeScript loader.
import { workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const pg = new PGlite(workerData.dataDir);
await pg.waitReady;
await pg.close();
