// Raw video frames in and out of ffmpeg, streamed (a long video never sits in memory): a reader that
// yields one frame buffer at a time from a decoding ffmpeg, and a writer that feeds frames to an encoding
// ffmpeg with back-pressure. Used by the face check and the built-in lip-sync engine. Argument arrays come
// from ./args (decodeFramesArgs, encodeFramesArgs).
import { spawn, type ChildProcess } from 'node:child_process';
import { FFMPEG, decodeFramesArgs, encodeFramesArgs, type DecodeFramesOptions, type EncodeFramesOptions } from './args';
import { CommandError, MediaError } from './errors';
import { probe, type ProbeResult } from './probe';

/** Bytes of one raw frame. */
export function frameBytes(width: number, height: number, pixFmt: DecodeFramesOptions['pixFmt']): number {
  if (pixFmt === 'rgb24') return width * height * 3;
  if (width % 2 || height % 2) throw new Error(`yuv420p frames need even sizes (got ${width}x${height})`);
  return (width * height * 3) / 2;
}

/** An even size no larger than `max` on its longer side, keeping the aspect ratio. */
export function fitSize(width: number, height: number, max: number): { width: number; height: number } {
  const s = Math.min(1, max / Math.max(width, height));
  const even = (x: number) => Math.max(2, Math.round((x * s) / 2) * 2);
  return { width: even(width), height: even(height) };
}

/** The frame rate of a probed video as an ffmpeg rate string ('30000/1001' stays exact). */
export function rateOf(p: Pick<ProbeResult, 'fps' | 'fpsRational'>): string {
  const r = p.fpsRational;
  if (r && /^\d+(\/\d+)?$/.test(r) && !/^0(\/|$)/.test(r) && !/\/0$/.test(r)) return r;
  return String(p.fps && p.fps > 0 && p.fps <= 240 ? p.fps : 25);
}

function stderrCollector(child: ChildProcess): () => string {
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString('utf8');
    if (err.length > 64 * 1024) err = err.slice(-32 * 1024);
  });
  return () => err.trim().slice(-2000);
}

function abortError(cmd: string, args: readonly string[]): CommandError {
  return new CommandError(`${cmd} aborted`, cmd, args, null, '', 'aborted');
}

function exitError(cmd: string, args: readonly string[], code: number | null, sig: string | null, tail: string): MediaError {
  const t = tail;
  if (/No such file or directory/i.test(t)) return new MediaError('not_found', `${cmd}: ${t}`);
  if (/Invalid data found|moov atom not found|could not find codec parameters|Error opening input/i.test(t)) {
    return new MediaError('corrupt', `unreadable media: ${t}`);
  }
  const e = new CommandError(`${cmd} failed (${code === null ? `signal ${sig}` : `exit ${code}`})${t ? `: ${t}` : ''}`, cmd, args, code, t, 'exit');
  return new MediaError('failed', e.message, { cause: e });
}

/**
 * Decodes `input` into raw frames of `o.width`x`o.height` at the constant rate `o.fps` and yields them one
 * by one (each buffer is a fresh copy the caller may keep or change). Stops ffmpeg when the loop is left
 * early or the signal aborts.
 */
export async function* readFrames(input: string, o: DecodeFramesOptions & { signal?: AbortSignal }): AsyncGenerator<Buffer> {
  const size = frameBytes(o.width, o.height, o.pixFmt);
  const args = decodeFramesArgs(input, o);
  if (o.signal?.aborted) throw abortError(FFMPEG, args);
  const child = spawn(FFMPEG, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const tail = stderrCollector(child);
  const exited = new Promise<{ code: number | null; sig: string | null; error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ code: null, sig: null, error }));
    child.once('close', (code, sig) => resolve({ code, sig }));
  });
  const onAbort = () => child.kill('SIGKILL');
  o.signal?.addEventListener('abort', onAbort, { once: true });
  let pending: Buffer[] = [];
  let pendingLen = 0;
  let finished = false;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      pending.push(chunk);
      pendingLen += chunk.length;
      if (pendingLen < size) continue;
      let all = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingLen);
      let off = 0;
      while (all.length - off >= size) {
        yield Buffer.from(all.subarray(off, off + size));
        off += size;
      }
      all = all.subarray(off);
      pending = all.length ? [Buffer.from(all)] : [];
      pendingLen = all.length;
    }
    const r = await exited;
    if (o.signal?.aborted) throw abortError(FFMPEG, args);
    if (r.error) {
      const msg = (r.error as NodeJS.ErrnoException).code === 'ENOENT' ? `${FFMPEG} is not installed (command not found)` : r.error.message;
      throw new MediaError('failed', msg);
    }
    if (r.code !== 0) throw exitError(FFMPEG, args, r.code, r.sig, tail());
    finished = true;
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    if (!finished && child.exitCode === null) child.kill('SIGKILL');
  }
}

export interface FrameWriter {
  /** Queues one raw yuv420p frame; resolves when ffmpeg is ready for more (back-pressure). */
  write(frame: Buffer): Promise<void>;
  /** Closes the input and waits for the encoder to finish the file. */
  finish(): Promise<void>;
  /** Kills the encoder (the output is incomplete). */
  abort(): void;
}

/** Starts an encoding ffmpeg fed with raw yuv420p frames (see encodeFramesArgs). */
export function openFrameWriter(o: EncodeFramesOptions & { signal?: AbortSignal }): FrameWriter {
  const size = frameBytes(o.width, o.height, 'yuv420p');
  const args = encodeFramesArgs(o);
  if (o.signal?.aborted) throw abortError(FFMPEG, args);
  const child = spawn(FFMPEG, args, { stdio: ['pipe', 'ignore', 'pipe'] });
  const tail = stderrCollector(child);
  let failure: Error | null = null;
  const exited = new Promise<{ code: number | null; sig: string | null }>((resolve) => {
    child.once('error', (e) => {
      failure = new MediaError('failed', (e as NodeJS.ErrnoException).code === 'ENOENT' ? `${FFMPEG} is not installed (command not found)` : e.message);
      resolve({ code: null, sig: null });
    });
    child.once('close', (code, sig) => resolve({ code, sig }));
  });
  const onAbort = () => child.kill('SIGKILL');
  o.signal?.addEventListener('abort', onAbort, { once: true });
  child.stdin!.on('error', () => {}); // EPIPE when the encoder died; its exit status tells why
  const check = async () => {
    if (o.signal?.aborted) throw abortError(FFMPEG, args);
    if (failure) throw failure;
    if (child.exitCode !== null) {
      const r = await exited;
      throw exitError(FFMPEG, args, r.code, r.sig, tail());
    }
  };
  return {
    async write(frame) {
      if (frame.length !== size) throw new Error(`frame of ${frame.length} bytes, expected ${size}`);
      await check();
      if (!child.stdin!.write(frame)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            child.stdin!.off('drain', done);
            child.off('close', done);
            resolve();
          };
          child.stdin!.on('drain', done);
          child.once('close', done);
        });
        await check();
      }
    },
    async finish() {
      child.stdin!.end();
      const r = await exited;
      o.signal?.removeEventListener('abort', onAbort);
      if (o.signal?.aborted) throw abortError(FFMPEG, args);
      if (failure) throw failure;
      if (r.code !== 0) throw exitError(FFMPEG, args, r.code, r.sig, tail());
    },
    abort() {
      o.signal?.removeEventListener('abort', onAbort);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

/** Facts about a video needed to re-render it frame by frame. */
export interface VideoGeometry {
  width: number;
  height: number;
  /** Even render size (odd sources lose one pixel row/column). */
  evenWidth: number;
  evenHeight: number;
  rate: string;
  fps: number;
  durationSec: number;
  frames: number;
  probe: ProbeResult;
}

export async function videoGeometry(input: string, o: { signal?: AbortSignal } = {}): Promise<VideoGeometry> {
  const p = await probe(input, o);
  if (!p.hasVideo || !p.width || !p.height) throw new MediaError('failed', 'the file has no video stream');
  const rate = rateOf(p);
  const [a, b] = rate.split('/').map(Number);
  const fps = b ? a! / b : a!;
  return {
    width: p.width,
    height: p.height,
    evenWidth: p.width - (p.width % 2),
    evenHeight: p.height - (p.height % 2),
    rate,
    fps,
    durationSec: p.durationSec,
    frames: Math.max(1, Math.round(p.durationSec * fps)),
    probe: p,
  };
}
