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
const { runTask, cancelTask, closeThread } = await import(workerData.tasks);
// run: start a task; cancel: stop it at its next safe point; close: release what the tasks hold (model
// sessions) and end the thread by letting its event loop empty (never by terminating it mid-call).
parentPort.on('message', (m) => {
  if (m.type === 'run') void runTask(m.id, m.task, m.payload);
  else if (m.type === 'cancel') cancelTask(m.id);
  else if (m.type === 'close') void closeThread().finally(() => parentPort.close());
});
