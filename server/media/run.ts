// The one process runner used by server/media (ffmpeg, ffprobe, yt-dlp, rubberband) and by the
// built-in engines' CLIs (pocketsphinx, apertium, espeak-ng). Never uses a shell.
import { spawn } from 'node:child_process';
import { CommandError } from './errors';

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
  const tailChars = opts.stderrTailChars ?? 2000;
  return new Promise<RunResult>((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new CommandError(`${cmd} aborted before start`, cmd, args, null, '', 'aborted'));
      return;
    }
    let child;
    try {
      child = spawn(cmd, args as string[], {
        cwd: opts.cwd,
        env: opts.env ?? process.env,
        stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      });
    } catch (e) {
      reject(new CommandError(`${cmd} could not be started: ${(e as Error).message}`, cmd, args, null, '', 'spawn'));
      return;
    }
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
      const msg =
        e.code === 'ENOENT' ? `${cmd} is not installed (command not found)` : `${cmd} could not be started: ${e.message}`;
      reject(new CommandError(msg, cmd, args, null, '', 'spawn'));
    });
    child.on('close', (code, sig) => {
      if (settled) return;
      done();
      const stdout = Buffer.concat(out).toString('utf8');
      if (reason === 'aborted') {
        reject(new CommandError(`${cmd} aborted`, cmd, args, code, tail(err, tailChars), 'aborted'));
      } else if (reason === 'timeout') {
        reject(
          new CommandError(`${cmd} timed out after ${opts.timeoutMs} ms`, cmd, args, code, tail(err, tailChars), 'timeout'),
        );
      } else if (code !== 0) {
        const t = tail(err, tailChars);
        reject(
          new CommandError(
            `${cmd} failed (${code === null ? `signal ${sig}` : `exit ${code}`})${t ? `: ${t}` : ''}`,
            cmd,
            args,
            code,
            t,
            'exit',
          ),
        );
      } else {
        resolve({ stdout, stderr: err, code: 0 });
      }
    });
    if (opts.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {}); // EPIPE when the tool exits early; the exit status tells the story
      child.stdin.end(opts.input);
    }
  });
}
