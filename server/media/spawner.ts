// The client of the tool spawner (./tool-spawner.mjs). An app's composition root makes one `ToolSpawner` (its
// ToolLimits carry it: AppDeps.tools.spawner) and starts it early, while the process is still small; the tools of
// the app's requests and jobs, and of the engine threads it starts, are started by it, so starting one never
// forks this large process (see the spawner's header). When it is off (TOOL_SPAWNER=0), not started yet or gone,
// tools start directly as before, and a spawner that died is started again on the next tool. Two apps in one
// process have two spawners; tools run outside any app start directly.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { FrameReader, frame } from './spawner-wire.mjs';

const HELPER = new URL('./tool-spawner.mjs', import.meta.url);
/** Names the spawner's abstract socket in the environment of an engine thread (see threadEnv). */
const ENV_NAME = 'DUBBING_TOOL_SPAWNER';
const RETRY_MS = 5_000;

export interface SpawnRequest {
  cmd: string;
  args: readonly string[];
  cwd?: string;
  env: NodeJS.ProcessEnv;
  input?: string | Buffer;
  /** Niceness of the started tool (0 keeps the spawner's). */
  nice: number;
}

export type SpawnOutcome =
  | { t: 'error'; code: string | null; message: string }
  | { t: 'close'; code: number | null; signal: NodeJS.Signals | null; stdout: Uint8Array; stderr: string };

interface Pending {
  resolve: (o: SpawnOutcome) => void;
}

class SpawnerConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly reader = new FrameReader();
  closed = false;

  constructor(
    private readonly sock: Socket,
    private readonly onClosed: (c: SpawnerConnection) => void,
  ) {
    sock.unref(); // referenced only while a tool runs, as a started child process would be
    sock.on('data', (d: Buffer) => this.onData(d));
    sock.on('error', () => {});
    sock.on('close', () => this.onClose());
  }

  /** Starts a tool; `kill` asks the spawner to SIGKILL it. The outcome arrives when the tool has ended. */
  start(req: SpawnRequest): { outcome: Promise<SpawnOutcome>; kill: () => void } {
    const id = this.nextId++;
    const outcome = new Promise<SpawnOutcome>((resolve) => this.pending.set(id, { resolve }));
    if (this.pending.size === 1) this.sock.ref();
    this.write({ t: 'run', id, cmd: req.cmd, args: [...req.args], cwd: req.cwd ?? null, env: { ...req.env }, input: req.input ?? null, nice: req.nice });
    return { outcome, kill: () => this.write({ t: 'kill', id }) };
  }

  /** Closes the connection: tools still running end with a clear failure (see onClose). */
  close(): void {
    this.sock.destroy();
  }

  private write(msg: unknown): void {
    if (this.closed) return;
    this.sock.write(frame(msg));
  }

  private onData(d: Buffer): void {
    for (const raw of this.reader.push(d)) {
      const m = raw as SpawnOutcome & { id: number };
      const p = this.pending.get(m.id);
      if (!p) continue;
      this.pending.delete(m.id);
      if (this.pending.size === 0) this.sock.unref();
      p.resolve(m);
    }
  }

  private onClose(): void {
    this.closed = true;
    this.onClosed(this);
    // The spawner is gone, and with it the tools it ran: each caller gets a clear failure.
    for (const p of this.pending.values()) p.resolve({ t: 'error', code: 'ESPAWNER', message: 'the tool spawner stopped while the tool ran' });
    this.pending.clear();
  }
}

/** A socket name of this process (a name from another process, e.g. inherited by a child, is not ours). */
const ours = (name: string | undefined): name is string => !!name?.startsWith(`dubbing-tools-${process.pid}-`);

/**
 * One app's tool spawner: the helper process it starts (main thread) and its connection to it. In an engine
 * thread, `ToolSpawner.ofThread()` connects to the spawner its app started (never starts one).
 */
export class ToolSpawner {
  /** The helper's abstract socket name: one for the life of this object (a restarted helper takes it again). */
  readonly name: string;
  /** Starts the helper (main thread) or only connects to it (an engine thread). */
  readonly #owner: boolean;
  readonly #enabled: boolean;
  /** Stopped with its app: tools start directly from then on. */
  #stopped = false;
  #helper: ChildProcess | null = null;
  #starting: Promise<void> | null = null;
  #conn: SpawnerConnection | null = null;
  #connecting = false;
  #retryAt = 0;

  /**
   * `enabled`: config.worker.toolSpawner (TOOL_SPAWNER; off: tools start directly). `connectTo`: the name of a
   * helper another ToolSpawner started (an engine thread's client, see ofThread).
   */
  constructor(o: { enabled: boolean; connectTo?: string }) {
    this.name = o.connectTo ?? `dubbing-tools-${process.pid}-${randomBytes(6).toString('hex')}`;
    this.#owner = o.connectTo === undefined;
    this.#enabled = o.enabled && (this.#owner ? isMainThread : ours(o.connectTo));
  }

  /** The client of an engine thread, for the spawner its app named in the thread's environment (or null). */
  static ofThread(): ToolSpawner | null {
    const name = process.env[ENV_NAME];
    return !isMainThread && ours(name) ? new ToolSpawner({ enabled: true, connectTo: name }) : null;
  }

  /** Whether tools start from it (TOOL_SPAWNER). */
  get enabled(): boolean {
    return this.#enabled;
  }

  /**
   * Starts the helper (main thread; once; later calls wait for the same start). Resolves when it listens, or
   * without it when it cannot start (tools then start directly). Call it early: the helper is a copy of this
   * process until it execs Node, so the smaller this process is then, the cheaper that one fork.
   */
  start(): Promise<void> {
    if (!this.#enabled || !this.#owner || this.#stopped) return Promise.resolve();
    if (this.#starting) return this.#starting;
    const name = this.name;
    const child = spawn(process.execPath, [fileURLToPath(HELPER), name], { stdio: ['pipe', 'pipe', 'inherit'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    this.#helper = child;
    child.unref();
    (child.stdin as Socket | null)?.unref();
    const started = new Promise<void>((resolve) => {
      let said = '';
      const timer = setTimeout(() => done(false), 10_000);
      timer.unref();
      let finished = false;
      const done = (ok: boolean) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        child.stdout?.removeAllListeners('data');
        (child.stdout as Socket | null)?.unref();
        if (ok) void this.#open().then(resolve);
        else {
          child.kill('SIGKILL');
          resolve();
        }
      };
      child.stdout?.on('data', (d: Buffer) => {
        said += d.toString();
        if (said.includes('ready\n')) done(true);
      });
      child.once('exit', () => {
        if (this.#helper === child) {
          // Gone (killed, crashed): the next tool after a pause starts another.
          this.#helper = null;
          this.#starting = null;
          this.#retryAt = Date.now() + RETRY_MS;
        }
        done(false);
      });
      child.once('error', () => done(false));
    });
    this.#starting = started;
    return started;
  }

  /**
   * The connection tools start through, or null to start this one directly (off, not ready yet, or gone: then
   * the helper is started or connected to in the background for the next tools).
   */
  connection(): SpawnerConnection | null {
    if (!this.#enabled || this.#stopped) return null;
    if (this.#conn && !this.#conn.closed) return this.#conn;
    if (this.#connecting || Date.now() < this.#retryAt) return null;
    if (this.#owner && !this.#helper) {
      void this.start();
      return null;
    }
    if (!this.#owner) void this.#open();
    return null;
  }

  /**
   * Stops the helper and closes the connection, for good: the app's shutdown (process exit stops the helper
   * anyway). Tools started after it start directly.
   */
  stop(): void {
    this.#stopped = true;
    const h = this.#helper;
    const c = this.#conn;
    this.#helper = null;
    this.#starting = null;
    this.#conn = null;
    c?.close();
    h?.kill('SIGKILL');
  }

  /** The helper's process id while it runs (tests, health). @internal */
  get pid(): number | null {
    const h = this.#helper;
    return h && h.exitCode === null ? (h.pid ?? null) : null;
  }

  #open(): Promise<void> {
    if (this.#connecting) return Promise.resolve();
    this.#connecting = true;
    return new Promise((resolve) => {
      const sock = connect('\0' + this.name);
      sock.once('connect', () => {
        this.#connecting = false;
        this.#conn = new SpawnerConnection(sock, (c) => {
          if (this.#conn === c) this.#conn = null;
          this.#retryAt = 0;
        });
        resolve();
      });
      sock.once('error', () => {
        this.#connecting = false;
        this.#retryAt = Date.now() + RETRY_MS;
        sock.destroy();
        resolve();
      });
    });
  }
}

/** The environment of an engine thread whose tools `spawner` starts (ToolSpawner.ofThread; null: directly). */
export function threadEnv(spawner: ToolSpawner | null, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out = { ...env };
  if (spawner?.enabled) out[ENV_NAME] = spawner.name;
  else delete out[ENV_NAME];
  return out;
}
