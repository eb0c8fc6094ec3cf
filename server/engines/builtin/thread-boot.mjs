// Entry of the engines' worker threads (./threads.ts): TypeScript through tsx (as in the main thread),
// then the task table, which answers the parent's task messages.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { runTask } = await import(workerData.tasks);
parentPort.on('message', (m) => void runTask(m.id, m.task, m.payload));
