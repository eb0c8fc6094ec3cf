// CPU-heavy work of the built-in engines (VAD inference, diarization features and clustering) runs in
// worker threads, never on the event loop that answers the API. A task holds one of the process's CPU
// slots (server/media/run.ts) while it runs; an abort terminates its thread at once. Threads are kept a
// short while after a task (TypeScript loaded, model sessions open) and end when idle.
import { Worker } from 'node:worker_threads';
import { toolNiceness, withCpuSlot } from '../../media/run';
import { MediaError } from '../../media/errors';
import { EngineError } from '../types';
import type { ThreadMessage, ThreadTaskName } from './thread-tasks';

const BOOT = new URL('./thread-boot.mjs', import.meta.url);
const TASKS = new URL('./thread-tasks.ts', import.meta.url).href;
/** An idle thread ends after this long. */
const IDLE_MS = 20_000;

const idle: Array<{ worker: Worker; timer: NodeJS.Timeout }> = [];
let nextId = 1;

function takeWorker(): Worker {
  const w = idle.pop();
  if (w) {
    clearTimeout(w.timer);
    w.worker.ref();
    return w.worker;
  }
  return new Worker(BOOT, { workerData: { tasks: TASKS, nice: toolNiceness() } });
}

function keepWorker(worker: Worker): void {
  worker.unref();
  const timer = setTimeout(() => {
    const i = idle.findIndex((x) => x.worker === worker);
    if (i >= 0) idle.splice(i, 1);
    void worker.terminate();
  }, IDLE_MS);
  timer.unref();
  idle.push({ worker, timer });
}

function abortError(signal: AbortSignal): Error {
  const r = signal.reason;
  if (r instanceof Error) return r;
  return new DOMException(typeof r === 'string' ? `The task was aborted (${r})` : 'The task was aborted', 'AbortError');
}

function rebuild(m: Extract<ThreadMessage, { type: 'error' }>): Error {
  let e: Error;
  if (m.name === 'EngineError') e = new EngineError((m.code ?? 'failed') as EngineError['code'], m.message);
  else if (m.name === 'MediaError') e = new MediaError((m.code ?? 'failed') as MediaError['code'], m.message);
  else {
    e = new Error(m.message);
    e.name = m.name;
  }
  if (m.stack) e.stack = m.stack;
  return e;
}

/** Runs `task` of thread-tasks.ts in a worker thread and resolves with its result. */
export function runInThread<R>(
  task: ThreadTaskName,
  payload: unknown,
  o: { signal?: AbortSignal; onProgress?: (fraction: number) => void } = {},
): Promise<R> {
  return withCpuSlot(
    () =>
      new Promise<R>((resolve, reject) => {
        if (o.signal?.aborted) return reject(abortError(o.signal));
        const worker = takeWorker();
        const id = nextId++;
        let settled = false;
        const finish = (fn: () => void, reuse: boolean) => {
          if (settled) return;
          settled = true;
          o.signal?.removeEventListener('abort', onAbort);
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
          if (reuse) keepWorker(worker);
          else void worker.terminate();
          fn();
        };
        const onAbort = () => finish(() => reject(abortError(o.signal!)), false);
        const onMessage = (m: ThreadMessage) => {
          if (m.id !== id) return;
          if (m.type === 'progress') {
            if (!settled) o.onProgress?.(m.fraction);
          } else if (m.type === 'result') finish(() => resolve(m.value as R), true);
          else finish(() => reject(rebuild(m)), true);
        };
        const onError = (e: Error) => finish(() => reject(e), false);
        const onExit = (code: number) => finish(() => reject(new Error(`the ${task} worker thread stopped (exit ${code})`)), false);
        o.signal?.addEventListener('abort', onAbort, { once: true });
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', onExit);
        worker.postMessage({ id, task, payload });
      }),
    o.signal,
  );
}
