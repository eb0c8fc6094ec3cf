// The tool spawner: a small Node process, started early by the server or worker (./spawner.ts), that starts the
// pipeline's tools (ffmpeg, pocketsphinx, espeak-ng...) for it. Starting a process from a large one copies its
// page tables and write-protects its memory (fork), which stalls the API's event loop for tens of milliseconds
// per tool once the process holds hundreds of megabytes; from this ~40 MB process it costs nothing there.
//
// It listens on the abstract Unix socket named by argv[2]; each thread of the parent connects on its own. A
// message is a 4-byte length and a v8-serialized object (./spawner-wire.mjs):
//   in:  { t: 'run', id, cmd, args, cwd, env, input, nice }   { t: 'kill', id }
//   out: { t: 'error', id, code, message }   { t: 'close', id, code, signal, stdout, stderr }
// Its stdin is a pipe from the parent: when the parent ends, however it ends, the pipe closes and the spawner
// kills the tools it started and exits, so nothing is left running.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { setPriority } from 'node:os';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import { FrameReader, frame } from './spawner-wire.mjs';

const MAX_STDERR = 256 * 1024; // characters of stderr kept (the tail), as the direct runner keeps
const running = new Set();

const server = createServer((sock) => {
  const mine = new Map();
  const reader = new FrameReader();
  const send = (msg) => {
    if (!sock.destroyed) sock.write(frame(msg));
  };
  const start = (m) => {
    let child;
    try {
      child = spawn(m.cmd, m.args, { cwd: m.cwd ?? undefined, env: m.env, stdio: [m.input == null ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    } catch (e) {
      send({ t: 'error', id: m.id, code: e.code ?? null, message: e.message });
      return;
    }
    if (m.nice > 0 && child.pid) {
      try {
        setPriority(child.pid, m.nice);
      } catch {
        // gone already, or not allowed: niceness is a preference
      }
    }
    mine.set(m.id, child);
    running.add(child);
    const out = [];
    let err = '';
    let settled = false;
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => {
      err += d.toString('utf8');
      if (err.length > MAX_STDERR) err = err.slice(err.length - MAX_STDERR / 2);
    });
    const forget = () => {
      settled = true;
      mine.delete(m.id);
      running.delete(child);
    };
    child.on('error', (e) => {
      if (settled) return;
      forget();
      send({ t: 'error', id: m.id, code: e.code ?? null, message: e.message });
    });
    child.on('close', (code, signal) => {
      if (settled) return;
      forget();
      send({ t: 'close', id: m.id, code, signal, stdout: Buffer.concat(out), stderr: err });
    });
    if (m.input != null && child.stdin) {
      child.stdin.on('error', () => {}); // EPIPE when the tool exits early
      child.stdin.end(m.input);
    }
  };
  sock.on('data', (d) => {
    for (const m of reader.push(d)) {
      if (m.t === 'run') start(m);
      else if (m.t === 'kill') mine.get(m.id)?.kill('SIGKILL');
    }
  });
  // The thread that asked is gone: so are its tools.
  sock.on('close', () => {
    for (const child of mine.values()) child.kill('SIGKILL');
    mine.clear();
  });
  sock.on('error', () => {});
});

function stop() {
  for (const child of running) child.kill('SIGKILL');
  process.exit(0);
}
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.on('error', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
process.on('SIGINT', () => {}); // Ctrl-C reaches the whole group: the parent decides, and its exit ends us

// The name stays the process's for its life: a spawner started again takes it over once the one before is gone.
let tries = 0;
server.on('error', (e) => {
  if (e.code === 'EADDRINUSE' && ++tries < 50) {
    setTimeout(() => server.listen('\0' + process.argv[2]), 100);
    return;
  }
  process.stderr.write(`tool spawner: ${e.message}\n`);
  process.exit(1);
});
server.listen('\0' + process.argv[2], () => process.stdout.write('ready\n'));
