// The client of the tool spawner (./tool-spawner.mjs): the main thread starts it once, early, while this
// process is still small; every thread (the engines' worker threads too) connects to it and asks it to start
// tools, so starting one never forks this large process (see the spawner's header). When the spawner is off
// (TOOL_SPAWNER=0), not started yet or gone, tools start directly as before, and a spawner that died is
// started again on the next tool.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { isMainThread } from 'node:worker_threads';
import { FrameReader, frame } from './spawner-wire.mjs';

const HELPER = new URL('./tool-spawner.mjs', import.meta.url);
/** Names the spawner's abstract socket for the threads of this process (they read it from process.env). */
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

let enabled = process.env.TOOL_SPAWNER !== '0';
let helper: ChildProcess | null = null;
let starting: Promise<void> | null = null;
let conn: Connection | null = null;
let connecting = false;
let retryAt = 0;

class Connection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly reader = new FrameReader();
  closed = false;

  constructor(private readonly sock: Socket) {
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
    if (conn === this) conn = null;
    retryAt = 0;
    // The spawner is gone, and with it the tools it ran: each caller gets a clear failure.
    for (const p of this.pending.values()) p.resolve({ t: 'error', code: 'ESPAWNER', message: 'the tool spawner stopped while the tool ran' });
    this.pending.clear();
  }
}

function openConnection(name: string): Promise<void> {
  if (connecting) return Promise.resolve();
  connecting = true;
  return new Promise((resolve) => {
    const sock = connect('\0' + name);
    sock.once('connect', () => {
      connecting = false;
      conn = new Connection(sock);
      resolve();
    });
    sock.once('error', () => {
      connecting = false;
      retryAt = Date.now() + RETRY_MS;
      sock.destroy();
      resolve();
    });
  });
}

/**
 * Starts the spawner (main thread only; once; later calls wait for the same start). Resolves when it listens,
 * or without it when it cannot start (tools then start directly). Call it early: the spawner is a copy of this
 * process until it execs Node, so the smaller this process is then, the cheaper that one fork.
 */
export function startToolSpawner(): Promise<void> {
  if (!enabled || !isMainThread) return Promise.resolve();
  if (starting) return starting;
  // One name for the life of this process (a restarted spawner takes it again): threads read it once.
  // (A name inherited from a parent process names the parent's: it has another process id in it.)
  const inherited = process.env[ENV_NAME];
  const name = inherited?.startsWith(`dubbing-tools-${process.pid}-`) ? inherited : `dubbing-tools-${process.pid}-${randomBytes(6).toString('hex')}`;
  process.env[ENV_NAME] = name;
  const child = spawn(process.execPath, [fileURLToPath(HELPER), name], { stdio: ['pipe', 'pipe', 'inherit'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  helper = child;
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
      if (ok) void openConnection(name).then(resolve);
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
      if (helper === child) {
        // Gone (killed, crashed): the next tool after a pause starts another.
        helper = null;
        starting = null;
        retryAt = Date.now() + RETRY_MS;
      }
      done(false);
    });
    child.once('error', () => done(false));
  });
  starting = started;
  return started;
}

/**
 * The connection tools start through, or null to start this one directly (spawner off, not ready yet, or
 * gone: then one is started or connected to in the background for the next tools).
 */
export function spawnerConnection(): Connection | null {
  if (!enabled) return null;
  if (conn && !conn.closed) return conn;
  if (connecting || Date.now() < retryAt) return null;
  if (isMainThread && !helper) {
    void startToolSpawner();
    return null;
  }
  const name = process.env[ENV_NAME];
  if (name?.startsWith(`dubbing-tools-${process.pid}-`)) void openConnection(name);
  return null;
}

/** Turns the spawner on or off (TOOL_SPAWNER; on by default). Off closes it; tools then start directly. */
export function setToolSpawner(on: boolean): void {
  enabled = on;
  if (!on) stopToolSpawner();
}

/** Stops the spawner (tests; process exit stops it anyway). */
export function stopToolSpawner(): void {
  const h = helper;
  const c = conn;
  helper = null;
  starting = null;
  conn = null;
  c?.close();
  h?.kill('SIGKILL');
}

/** The spawner's process id while it runs (tests, health). @internal */
export function toolSpawnerPid(): number | null {
  return helper && helper.exitCode === null ? (helper.pid ?? null) : null;
}
