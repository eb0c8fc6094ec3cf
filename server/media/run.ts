// The one process runner used by server/media (ffmpeg, ffprobe, yt-dlp, rubberband) and by the
// built-in engines' CLIs (pocketsphinx, apertium, espeak-ng). Never uses a shell. Tools start from the app's tool
// spawner (./spawner.ts, ToolLimits.spawner) when it runs, so starting one never forks this (large) process;
// directly otherwise (off, not ready, or outside any app).
import { AsyncLocalStorage } from 'node:async_hooks';
import { spawn } from 'node:child_process';
import { availableParallelism, getPriority, setPriority } from 'node:os';
import { CommandError } from './errors';
import { threadEnv, ToolSpawner } from './spawner';

// ------------------------------------------------------------------ CPU slots and niceness
// The pipeline's heavy work (media tools, decoders, worker threads) takes a CPU slot first: however many
// jobs run at once (WORKER_CONCURRENCY), at most `limit` heavy tasks run in this app, so two jobs keep
// every core busy without starting twice the processes (and twice the memory). FIFO, so no job starves.
// The pipeline is batch work: its tools run at a lower scheduling priority than the API that answers people
// (PIPELINE_NICE), so a busy worker slows other jobs, not requests.
//
// With them, the app's tool spawner (./spawner.ts): the process its tools start from.
//
// All belong to an app (its composition root makes one `ToolLimits` from its config: AppDeps.tools), never to
// the module: the app's requests and jobs run inside `withToolLimits(limits, ...)` (server/app/app.ts, the
// pipeline), and the tools they start, however deep, read the limits of their scope. Work outside any app (a
// script, a test calling ffmpeg) runs its tools at once, at the process's priority, started directly.

export class ToolLimits {
  readonly #waiters: Array<() => void> = [];
  #limit: number;
  #inUse = 0;
  /** The niceness (0-19) given to CPU-slot tools (engine threads take the same). */
  readonly nice: number;
  /** The app's tool spawner (null: its tools start directly). Its app stops it (shutdownDeps). */
  readonly spawner: ToolSpawner | null;

  constructor(o: { cpuSlots?: number; nice?: number; spawner?: ToolSpawner | null } = {}) {
    this.#limit = Math.max(1, Math.floor(o.cpuSlots ?? availableParallelism()));
    this.nice = Math.min(19, Math.max(0, Math.floor(o.nice ?? 0)));
    this.spawner = o.spawner ?? null;
  }

  /** The slot limit and use (tests, metrics). */
  get slots(): { limit: number; inUse: number; waiting: number } {
    return { limit: this.#limit, inUse: this.#inUse, waiting: this.#waiters.length };
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw abortError(signal);
    if (this.#inUse < this.#limit) {
      this.#inUse++;
      return;
    }
    const waiters = this.#waiters;
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = waiters.indexOf(grant);
        if (i >= 0) waiters.splice(i, 1);
        reject(abortError(signal!));
      };
      waiters.push(grant);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next(); // the slot passes straight to the next waiter
    else this.#inUse = Math.max(0, this.#inUse - 1);
  }
}

/** Where the current request's or job's limits are found (a constant: the limits are the app's). */
const scope = new AsyncLocalStorage<ToolLimits>();

/** Runs `fn` (and everything it starts) under the app's tool limits. */
export function withToolLimits<T>(limits: ToolLimits, fn: () => T): T {
  return scope.run(limits, fn);
}

/** The limits in scope: the app's, or null outside any app. */
export function toolLimits(): ToolLimits | null {
  return scope.getStore() ?? null;
}

/** The CPU slot limit and use in scope (outside an app: no limit, reported as the CPU count). */
export function cpuSlots(): { limit: number; inUse: number; waiting: number } {
  return toolLimits()?.slots ?? { limit: Math.max(1, availableParallelism()), inUse: 0, waiting: 0 };
}

function abortError(signal: AbortSignal): Error {
  const r = signal.reason;
  if (r instanceof Error) return r;
  return new DOMException(typeof r === 'string' ? `aborted (${r})` : 'aborted', 'AbortError');
}

/**
 * Takes one CPU slot (waits for a free one; an abort while waiting rejects) and answers its release, which may be
 * called any number of times: for work whose caller stops waiting before the work itself has stopped.
 */
export async function takeCpuSlot(signal?: AbortSignal): Promise<() => void> {
  const limits = toolLimits();
  if (!limits) {
    if (signal?.aborted) throw abortError(signal);
    return () => {};
  }
  await limits.acquire(signal);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    limits.release();
  };
}

/** Runs `fn` holding one CPU slot (waits for a free one; an abort while waiting rejects). */
export async function withCpuSlot<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  const release = await takeCpuSlot(signal);
  try {
    return await fn();
  } finally {
    release();
  }
}

/**
 * The environment of an engine thread started in scope: its tools start from the app's spawner
 * (ToolSpawner.ofThread), as the niceness it is given is the app's.
 */
export function engineThreadEnv(): NodeJS.ProcessEnv {
  return threadEnv(toolLimits()?.spawner ?? null);
}

/** In an engine thread (no app scope there): the spawner of the app that started the thread (else null). */
const THREAD_SPAWNER = ToolSpawner.ofThread();

/** The niceness given to CPU-slot tools in scope (engine threads take the same). */
export function toolNiceness(): number {
  return toolLimits()?.nice ?? 0;
}

/**
 * Lowers a started tool's priority. A process that has already ended (ESRCH), or a system that does not
 * allow it, keeps the priority it had: niceness is a preference, never a reason to fail a job.
 */
export function lowerPriority(pid: number | undefined, nice = toolNiceness()): void {
  if (!pid || nice <= 0) return;
  try {
    setPriority(pid, nice);
  } catch {
    // see above
  }
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Kill the process (SIGKILL) after this many milliseconds. */
  timeoutMs?: number;
  cwd?: string;
  /** Written to the process's stdin, which is then closed. Without it stdin is /dev/null. */
  input?: string | Buffer;
  env?: NodeJS.ProcessEnv;
  /** Characters of stderr kept for error messages (default 2000). */
  stderrTailChars?: number;
  /** Take a CPU slot for the process's lifetime (media tools, decoders): see ToolLimits. Such a tool also runs
   * at the app's niceness (ToolLimits.nice). */
  cpuSlot?: boolean;
}

export interface RunResult {
  stdout: string;
  stderr: string;
  code: number;
}

const MAX_KEEP = 256 * 1024; // bytes of stderr kept in memory (the tail)

function tail(s: string, n: number): string {
  const t = s.trimEnd();
  return t.length > n ? '…' + t.slice(t.length - n) : t;
}

/**
 * Runs `cmd args` and resolves with its output when it exits with status 0. Rejects with a
 * CommandError whose message names the command, the exit status and the tail of stderr; when the
 * signal aborts or the timeout passes, the process is killed and the error says so.
 */
export function run(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  if (!opts.cpuSlot) return runNow(cmd, args, opts);
  return withCpuSlot(() => runNow(cmd, args, opts), opts.signal).catch((e: unknown) => {
    if (e instanceof CommandError) throw e;
    throw new CommandError(`${cmd} aborted before start`, cmd, args, null, '', 'aborted');
  });
}

/** The result of an ended tool, or the CommandError that says why it failed. */
function outcomeOf(
  cmd: string,
  args: readonly string[],
  opts: RunOptions,
  reason: 'timeout' | 'aborted' | null,
  code: number | null,
  sig: NodeJS.Signals | null,
  stdout: string,
  err: string,
): RunResult | CommandError {
  const tailChars = opts.stderrTailChars ?? 2000;
  if (reason === 'aborted') return new CommandError(`${cmd} aborted`, cmd, args, code, tail(err, tailChars), 'aborted');
  if (reason === 'timeout') {
    return new CommandError(`${cmd} timed out after ${opts.timeoutMs} ms`, cmd, args, code, tail(err, tailChars), 'timeout');
  }
  if (code !== 0) {
    const t = tail(err, tailChars);
    return new CommandError(`${cmd} failed (${code === null ? `signal ${sig}` : `exit ${code}`})${t ? `: ${t}` : ''}`, cmd, args, code, t, 'exit');
  }
  return { stdout, stderr: err, code: 0 };
}

function notStarted(cmd: string, args: readonly string[], code: string | null | undefined, message: string): CommandError {
  const msg = code === 'ENOENT' ? `${cmd} is not installed (command not found)` : `${cmd} could not be started: ${message}`;
  return new CommandError(msg, cmd, args, null, '', 'spawn');
}

function runNow(cmd: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  if (opts.signal?.aborted) return Promise.reject(new CommandError(`${cmd} aborted before start`, cmd, args, null, '', 'aborted'));
  const via = (toolLimits()?.spawner ?? THREAD_SPAWNER)?.connection();
  return via ? runThroughSpawner(via, cmd, args, opts) : runDirectly(cmd, args, opts);
}

/** Starts the tool from the tool spawner (./spawner.ts): same outcome as runDirectly, no fork of this process. */
function runThroughSpawner(via: NonNullable<ReturnType<ToolSpawner['connection']>>, cmd: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  // The tool takes the calling thread's niceness, as a child started here would (engine threads run niced).
  const nice = Math.max(opts.cpuSlot ? toolNiceness() : 0, threadNiceness());
  const started = via.start({ cmd, args, cwd: opts.cwd, env: opts.env ?? process.env, input: opts.input, nice });
  let reason: 'timeout' | 'aborted' | null = null;
  const kill = (why: 'timeout' | 'aborted') => {
    if (reason) return;
    reason = why;
    started.kill();
  };
  const onAbort = () => kill('aborted');
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = opts.timeoutMs ? setTimeout(() => kill('timeout'), opts.timeoutMs) : null;
  return started.outcome.then((o) => {
    if (timer) clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
    if (o.t === 'error') throw notStarted(cmd, args, o.code, o.message);
    const r = outcomeOf(cmd, args, opts, reason, o.code, o.signal, Buffer.from(o.stdout.buffer, o.stdout.byteOffset, o.stdout.byteLength).toString('utf8'), o.stderr);
    if (r instanceof CommandError) throw r;
    return r;
  });
}

function threadNiceness(): number {
  try {
    return getPriority(); // on Linux: the calling thread's
  } catch {
    return 0;
  }
}

function runDirectly(cmd: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  return new Promise<RunResult>((resolve, reject) => {
    let child;
    try {
      child = spawn(cmd, args as string[], {
        cwd: opts.cwd,
        env: opts.env ?? process.env,
        stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
    } catch (e) {
      reject(notStarted(cmd, args, null, (e as Error).message));
      return;
    }
    if (opts.cpuSlot) lowerPriority(child.pid);
    const out: Buffer[] = [];
    let err = '';
    let settled = false;
    let reason: 'timeout' | 'aborted' | null = null;
    child.stdout!.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      if (err.length > MAX_KEEP) err = err.slice(err.length - MAX_KEEP / 2);
    });
    const kill = (why: 'timeout' | 'aborted') => {
      if (reason || settled) return;
      reason = why;
      child.kill('SIGKILL');
    };
    const onAbort = () => kill('aborted');
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = opts.timeoutMs ? setTimeout(() => kill('timeout'), opts.timeoutMs) : null;
    const done = () => {
      settled = true;
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (settled) return;
      done();
      reject(notStarted(cmd, args, e.code, e.message));
    });
    child.on('close', (code, sig) => {
      if (settled) return;
      done();
      const r = outcomeOf(cmd, args, opts, reason, code, sig, Buffer.concat(out).toString('utf8'), err);
      if (r instanceof CommandError) reject(r);
      else resolve(r);
    });
    if (opts.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {}); // EPIPE when the tool exits early; the exit status tells the story
      child.stdin.end(opts.input);
    }
  });
}
