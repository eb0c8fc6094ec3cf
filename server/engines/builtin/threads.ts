// CPU-heavy work of the built-in engines (VAD inference, diarization features and clustering) runs in
// worker threads, never on the event loop that answers the API. A task holds one of the process's CPU
// slots (server/media/run.ts) until its thread is free again (a cancelled native task keeps it until it has
// stopped, so cancelling and starting again never piles up threads). Threads are kept a short while after a task (TypeScript loaded,
// model sessions open) and end when idle.
//
// A thread that has loaded a native addon (onnxruntime-node, for the VAD) is never terminated: terminating a
// thread while a native call is in flight makes the addon throw a C++ exception on a dying V8 isolate, which
// aborts the whole process ('terminate called after throwing an instance of Napi::Error'). Such a thread is
// asked to cancel instead; its task stops at the next safe point (between two model calls), the caller's
// promise rejects at once, and the thread ends by itself (its sessions released) when it is no longer needed.
// Threads that run plain JavaScript are terminated on abort, which is safe and immediate.
import { Worker } from 'node:worker_threads';
import { engineThreadEnv, takeCpuSlot, toolNiceness } from '../../media/run';
import { MediaError } from '../../media/errors';
import { EngineError } from '../types';
import type { ThreadMessage, ThreadTaskName } from './thread-protocol';

const BOOT = new URL('./thread-boot.mjs', import.meta.url);
const TASKS = new URL('./thread-tasks.ts', import.meta.url).href;
/** An idle thread ends after this long. */
const IDLE_MS = 20_000;
/** Tasks whose thread holds a native addon: cancelled cooperatively, never terminated. */
const NATIVE_TASKS: ReadonlySet<ThreadTaskName> = new Set<ThreadTaskName>(['vad']);

interface Thread {
  worker: Worker;
  native: boolean;
  /** The task running in it (its id), or null when idle. */
  running: number | null;
  /** Resolves when the thread has ended. */
  exited: Promise<void>;
  idleTimer?: NodeJS.Timeout;
}

const threads = new Set<Thread>();
let nextId = 1;
let stopping = false;

/** The young generation of an engine thread's heap (MB). */
const THREAD_YOUNG_GENERATION_MB = 4;

function startThread(native: boolean): Thread {
  // The app's niceness and tool spawner (its environment names it) at the thread's start.
  // A small young generation: the tasks' short-lived garbage (per-frame arrays, tensors) is collected before it
  // grows the process (the VAD, separation and speaker threads of a 1-hour job: 16-65 MB less each, no slower).
  const worker = new Worker(BOOT, {
    workerData: { tasks: TASKS, nice: toolNiceness() },
    env: engineThreadEnv(),
    resourceLimits: { maxYoungGenerationSizeMb: THREAD_YOUNG_GENERATION_MB },
  });
  const t: Thread = { worker, native, running: null, exited: new Promise((r) => worker.once('exit', () => r())) };
  threads.add(t);
  void t.exited.then(() => threads.delete(t));
  // A thread never ends the process by an unhandled 'error' event: its task's listener reports it.
  worker.on('error', () => {});
  return t;
}

function takeThread(native: boolean): Thread {
  for (const t of threads) {
    if (t.native === native && t.running === null && t.idleTimer) {
      clearTimeout(t.idleTimer);
      t.idleTimer = undefined;
      t.worker.ref();
      return t;
    }
  }
  return startThread(native);
}

/** Ends a thread the safe way for its kind: a native one closes itself, a plain one is terminated. */
function endThread(t: Thread): Promise<void> {
  if (t.idleTimer) clearTimeout(t.idleTimer);
  t.idleTimer = undefined;
  if (t.native) t.worker.postMessage({ type: 'close' });
  else void t.worker.terminate();
  return t.exited;
}

function keepThread(t: Thread): void {
  t.running = null;
  if (stopping) {
    void endThread(t);
    return;
  }
  t.worker.unref();
  t.idleTimer = setTimeout(() => void endThread(t), IDLE_MS);
  t.idleTimer.unref();
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
export async function runInThread<R>(
  task: ThreadTaskName,
  payload: unknown,
  o: {
    signal?: AbortSignal;
    onProgress?: (fraction: number) => void;
    /** false: the thread ends with its task instead of waiting for the next one (what it holds is given back at once). */
    keep?: boolean;
  } = {},
): Promise<R> {
  const releaseSlot = await takeCpuSlot(o.signal);
  return new Promise<R>((resolve, reject) => {
    if (o.signal?.aborted || stopping) {
      releaseSlot();
      return reject(o.signal?.aborted ? abortError(o.signal) : new DOMException('The engine threads are stopping', 'AbortError'));
    }
    const native = NATIVE_TASKS.has(task);
    const t = takeThread(native);
    const { worker } = t;
    const id = nextId++;
    t.running = id;
    let settled = false;
    // The caller is answered once; the thread is let go once its task has really ended.
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      o.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const release = (reuse: boolean) => {
      releaseSlot();
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (reuse) keepThread(t);
      else void endThread(t);
    };
    const onAbort = () => {
      settle(() => reject(abortError(o.signal!)));
      if (native) {
        // Stops at its next safe point; the thread is released when its outcome arrives.
        worker.postMessage({ type: 'cancel', id });
      } else {
        release(false);
      }
    };
    const onMessage = (m: ThreadMessage) => {
      if (m.id !== id) return;
      if (m.type === 'progress') {
        if (!settled) o.onProgress?.(m.fraction);
        return;
      }
      release(o.keep !== false);
      if (m.type === 'result') settle(() => resolve(m.value as R));
      else settle(() => reject(rebuild(m)));
    };
    const onError = (e: Error) => {
      release(false);
      settle(() => reject(e));
    };
    const onExit = (code: number) => {
      release(false);
      settle(() => reject(new Error(`the ${task} worker thread stopped (exit ${code})`)));
    };
    o.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage({ type: 'run', id, task, payload });
  });
}

/**
 * Runs tasks side by side, a thread each (a long input in parts: 2 cores, about half the time), and resolves with
 * their results in order. One failing stops the others (it is the error passed on), as `signal` stops them all. Their
 * threads end with them (keep: false): what they hold is given back at once.
 */
export async function runInThreads<R>(
  tasks: ReadonlyArray<{ task: ThreadTaskName; payload: unknown; onProgress?: (fraction: number) => void }>,
  signal?: AbortSignal,
): Promise<R[]> {
  const all = new AbortController();
  const stop = () => all.abort(signal?.reason);
  if (signal?.aborted) stop();
  else signal?.addEventListener('abort', stop, { once: true });
  try {
    return await Promise.all(
      tasks.map((t) =>
        runInThread<R>(t.task, t.payload, { signal: all.signal, onProgress: t.onProgress, keep: false }).catch((e: unknown) => {
          all.abort(e);
          throw e;
        }),
      ),
    );
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

/**
 * Stops every engine thread the safe way (shutdown): running tasks are cancelled, native threads finish their
 * current model call and close themselves, plain threads are terminated. Resolves when all have ended, or after
 * `timeoutMs` (a native call that never returns is then left to the process's exit).
 */
export async function stopThreads(timeoutMs = 20_000): Promise<void> {
  stopping = true;
  try {
    const ends = [...threads].map((t) => {
      if (t.running !== null && t.native) {
        t.worker.postMessage({ type: 'cancel', id: t.running });
        t.worker.postMessage({ type: 'close' });
        return t.exited;
      }
      return endThread(t);
    });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(ends), new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  } finally {
    stopping = false;
  }
}

/** How many engine threads are alive, by kind (tests). @internal */
export function threadCounts(): { native: number; plain: number; running: number } {
  let native = 0;
  let plain = 0;
  let running = 0;
  for (const t of threads) {
    if (t.native) native++;
    else plain++;
    if (t.running !== null) running++;
  }
  return { native, plain, running };
}
