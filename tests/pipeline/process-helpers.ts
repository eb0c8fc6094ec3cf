// Real processes for the fault tests: `npm run worker` / `npm start` children, a private redis-server on a
// free loopback port, and a TCP proxy on loopback that can cut every connection (a database going away).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect, type Server, type Socket, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');

export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}

export interface Child {
  proc: ChildProcess;
  pid: number;
  output(): string;
  /** Resolves with the first match of `re` in the output (stdout + stderr). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code/signal; rejects after `timeoutMs`. */
  exited(timeoutMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(sig?: NodeJS.Signals): void;
}

export function startChild(script: 'server/worker.ts' | 'server/main.ts' | `tests/pipeline/${string}-child.ts`, env: Record<string, string>): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ONNXRUNTIME_NODE_INSTALL: 'skip', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    if (out.length > 200_000) out = out.slice(-100_000);
    for (const l of listeners) l();
  };
  proc.stdout!.on('data', onData);
  proc.stderr!.on('data', onData);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exitP = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    proc.once('exit', (code, signal) => {
      exit = { code, signal };
      for (const l of listeners) l();
      r(exit);
    }),
  );
  return {
    proc,
    pid: proc.pid!,
    output: () => out,
    waitFor(re, timeoutMs = 90_000) {
      return new Promise((res, rej) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            cleanup();
            res(m);
          } else if (exit) {
            cleanup();
            rej(new Error(`process exited (${JSON.stringify(exit)}) before ${re}; output:\n${out.slice(-3000)}`));
          }
        };
        const t = setTimeout(() => {
          cleanup();
          rej(new Error(`timed out waiting for ${re}; output:\n${out.slice(-3000)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(t);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    exited(timeoutMs = 60_000) {
      return Promise.race([
        exitP,
        new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`process ${proc.pid} did not exit in ${timeoutMs} ms`)), timeoutMs).unref()),
      ]);
    },
    kill(sig = 'SIGKILL') {
      if (!exit) proc.kill(sig);
    },
  };
}

/** A redis-server of the test's own on `port` (no persistence): stopping it loses every key, as a restart does. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const p = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((res, rej) => {
    let out = '';
    const t = setTimeout(() => rej(new Error(`redis-server did not start: ${out}`)), 20_000);
    p.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Ready to accept connections/.test(out)) {
        clearTimeout(t);
        res();
      }
    });
    p.once('exit', () => {
      clearTimeout(t);
      rej(new Error(`redis-server exited: ${out}`));
    });
  });
  return p;
}

export async function stopProcess(p: ChildProcess, sig: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  await new Promise((r) => {
    p.once('exit', r);
    p.kill(sig);
  });
}

/** A TCP proxy to `target`: `cut()` destroys every connection through it (a database that went away). */
export interface Proxy {
  port: number;
  connections(): number;
  /** Stops forwarding what clients send (queries hang in flight) until cut() or release(). */
  hold(): void;
  release(): void;
  /** Messages held back since hold(). */
  held(): number;
  cut(): void;
  close(): Promise<void>;
}

export async function startProxy(targetHost: string, targetPort: number): Promise<Proxy> {
  const sockets = new Set<Socket>();
  let held = false;
  const pending: Array<() => void> = [];
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.on('data', (d: Buffer) => {
      if (held) pending.push(() => upstream.write(d));
      else upstream.write(d);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => sockets.size / 2,
    hold() {
      held = true;
    },
    held: () => pending.length,
    release() {
      held = false;
      for (const f of pending.splice(0)) f();
    },
    cut() {
      held = false;
      pending.length = 0;
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}
