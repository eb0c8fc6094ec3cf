// Waveform peaks (the timeline editor): ffmpeg decodes the audio to raw mono 16-bit PCM on a pipe (a 3-hour
// track never sits in memory), the reducer keeps the min and max of every bucket at the finest resolution, and
// the coarser resolutions are made from those pairs (exact: the min of mins, the max of maxes).
import { spawn } from 'node:child_process';
import { FFMPEG, FFMPEG_BASE } from './args';
import { CommandError, MediaError } from './errors';
import { withCpuSlot } from './run';

/** Sample rate the audio is decoded at for peaks. */
export const PEAKS_DECODE_RATE = 16000;

/** ffmpeg arguments: the first audio stream of `input` as raw mono s16le PCM at `sampleRate` on stdout. */
export function peaksPcmArgs(input: string, sampleRate = PEAKS_DECODE_RATE): string[] {
  return [...FFMPEG_BASE, '-i', input, '-map', '0:a:0', '-vn', '-sn', '-dn', '-ac', '1', '-ar', String(sampleRate), '-f', 's16le', '-acodec', 'pcm_s16le', 'pipe:1'];
}

/** A 16-bit sample as a signed byte (-127..127); the min rounds down and the max up so quiet sound stays visible. */
const down = (s: number) => Math.max(-127, Math.floor((s * 127) / 32767));
const up = (s: number) => Math.min(127, Math.ceil((s * 127) / 32767));

/**
 * Min/max per bucket of `samplesPerBucket` samples, fed with PCM chunks of any length (a sample split across two
 * chunks is joined). `result()` gives min,max pairs as signed bytes; the last bucket may be partial.
 */
export class PeaksReducer {
  private out: Int8Array;
  private n = 0;
  private inBucket = 0;
  private lo = 32767;
  private hi = -32768;
  private carry: number | null = null;

  constructor(private readonly samplesPerBucket: number, expectedBuckets = 1024) {
    if (!Number.isInteger(samplesPerBucket) || samplesPerBucket < 1) throw new Error('samplesPerBucket must be a positive integer');
    this.out = new Int8Array(Math.max(2, expectedBuckets * 2));
  }

  private flush(): void {
    if (this.n * 2 + 2 > this.out.length) {
      const bigger = new Int8Array(this.out.length * 2);
      bigger.set(this.out);
      this.out = bigger;
    }
    this.out[this.n * 2] = down(this.lo);
    this.out[this.n * 2 + 1] = up(this.hi);
    this.n++;
    this.inBucket = 0;
    this.lo = 32767;
    this.hi = -32768;
  }

  /** Adds little-endian s16 PCM bytes. */
  push(chunk: Uint8Array): void {
    let bytes = chunk;
    if (this.carry !== null) {
      const joined = new Uint8Array(chunk.length + 1);
      joined[0] = this.carry;
      joined.set(chunk, 1);
      bytes = joined;
      this.carry = null;
    }
    const even = bytes.length & ~1;
    if (even !== bytes.length) this.carry = bytes[bytes.length - 1]!;
    const view = new DataView(bytes.buffer, bytes.byteOffset, even);
    const per = this.samplesPerBucket;
    let lo = this.lo;
    let hi = this.hi;
    let k = this.inBucket;
    for (let i = 0; i < even; i += 2) {
      const s = view.getInt16(i, true);
      if (s < lo) lo = s;
      if (s > hi) hi = s;
      if (++k === per) {
        this.lo = lo;
        this.hi = hi;
        this.flush();
        lo = 32767;
        hi = -32768;
        k = 0;
      }
    }
    this.lo = lo;
    this.hi = hi;
    this.inBucket = k;
  }

  /** The pairs so far (with the partial last bucket). */
  result(): Int8Array {
    if (this.inBucket > 0) this.flush();
    return this.out.slice(0, this.n * 2);
  }
}

/** Coarser pairs: every `factor` buckets of `pairs` become one (the last one may cover fewer). */
export function coarsen(pairs: Int8Array, factor: number): Int8Array {
  if (!Number.isInteger(factor) || factor < 1) throw new Error('factor must be a positive integer');
  const n = pairs.length / 2;
  const m = Math.ceil(n / factor);
  const out = new Int8Array(m * 2);
  for (let j = 0; j < m; j++) {
    let lo = 127;
    let hi = -127;
    const end = Math.min(n, (j + 1) * factor);
    for (let i = j * factor; i < end; i++) {
      const a = pairs[i * 2]!;
      const b = pairs[i * 2 + 1]!;
      if (a < lo) lo = a;
      if (b > hi) hi = b;
    }
    out[j * 2] = lo;
    out[j * 2 + 1] = hi;
  }
  return out;
}

export interface PeaksOptions {
  signal?: AbortSignal;
  /** Expected duration (seconds), to size the buffer once. */
  durationSec?: number | null;
}

/**
 * Peaks of the first audio stream of `input` at each resolution (buckets per second; each must divide the
 * decode rate and the finest must be a multiple of the others). Runs one ffmpeg, holding a CPU slot.
 */
export async function computePeaks(input: string, resolutions: readonly number[], o: PeaksOptions = {}): Promise<Map<number, Int8Array>> {
  const sorted = [...resolutions].sort((a, b) => b - a);
  const finest = sorted[0];
  if (!finest || PEAKS_DECODE_RATE % finest !== 0 || sorted.some((r) => finest % r !== 0)) {
    throw new Error(`unusable peak resolutions: ${resolutions.join(', ')}`);
  }
  const reducer = new PeaksReducer(PEAKS_DECODE_RATE / finest, Math.ceil((o.durationSec ?? 60) * finest) + 16);
  const args = peaksPcmArgs(input);
  await withCpuSlot(() => decodeInto(args, reducer, o.signal), o.signal);
  const fine = reducer.result();
  const out = new Map<number, Int8Array>();
  for (const r of sorted) out.set(r, r === finest ? fine : coarsen(fine, finest / r));
  return out;
}

function decodeInto(args: string[], reducer: PeaksReducer, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(new CommandError(`${FFMPEG} aborted`, FFMPEG, args, null, '', 'aborted'));
    const child = spawn(FFMPEG, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    let aborted = false;
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      if (err.length > 64 * 1024) err = err.slice(-32 * 1024);
    });
    child.stdout.on('data', (d: Buffer) => reducer.push(d));
    const onAbort = () => {
      aborted = true;
      child.kill('SIGKILL');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (e: NodeJS.ErrnoException) => {
      signal?.removeEventListener('abort', onAbort);
      reject(new MediaError('failed', e.code === 'ENOENT' ? `${FFMPEG} is not installed (command not found)` : e.message));
    });
    child.once('close', (code, sig) => {
      signal?.removeEventListener('abort', onAbort);
      const t = err.trim().slice(-2000);
      if (aborted) return reject(new CommandError(`${FFMPEG} aborted`, FFMPEG, args, code, t, 'aborted'));
      if (code === 0) return resolve();
      if (/matches no streams|does not contain any stream/i.test(t)) return reject(new MediaError('no_audio', `the media has no usable audio stream: ${t}`));
      if (/No such file or directory/i.test(t)) return reject(new MediaError('not_found', `${FFMPEG}: ${t}`));
      if (/Invalid data found|moov atom not found|could not find codec parameters|Error opening input/i.test(t)) {
        return reject(new MediaError('corrupt', `unreadable media: ${t}`));
      }
      reject(new MediaError('failed', `${FFMPEG} failed (${code === null ? `signal ${sig}` : `exit ${code}`})${t ? `: ${t}` : ''}`));
    });
  });
}
