// Entry of the engines' worker threads (./threads.ts): TypeScript through tsx (as in the main thread),
// then the task table, which answers the parent's task messages. The thread takes the pipeline's niceness
// (PIPELINE_NICE): on Linux a thread has its own, so the API's thread keeps its priority.
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

if (workerData.nice > 0) {
  try {
    setPriority(workerData.nice);
  } catch {
    // a system that does not allow it keeps the thread at the API's priority
  }
}
register();
const { runTask } = await import(workerData.tasks);
parentPort.on('message', (m) => void runTask(m.id, m.task, m.payload));
