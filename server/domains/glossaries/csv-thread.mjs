// The dictionary CSV import's worker thread (./parse.ts): decodes and parses one file off the event loop that
// answers the API, posts the result and ends. TypeScript through tsx, as in the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { parseCsvFile } = await import(workerData.module);
parentPort.postMessage(parseCsvFile(workerData.bytes, workerData.maxRows));
