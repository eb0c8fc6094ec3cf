// Audio plumbing of the HTTP adapters, in pure JS (no ffmpeg): cutting a time span out of a WAV to
// upload it, checking that a WAV the service returned is complete, wrapping raw PCM in a WAV header,
// and writing files atomically (temp file + rename) so a failed call never leaves a half-written file.
import { closeSync, openSync, readSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { type MediaError } from '../../media/errors';
import { parseWavHeader, readWavInfo, type WavInfo } from '../../media/wav';
import { EngineResponseError } from './errors';

/** A canonical 44-byte header for PCM (format 1) or float (format 3) sample data. */
export function wavHeader(o: { sampleRate: number; channels: number; bitsPerSample: number; format: 1 | 3; dataBytes: number }): Buffer {
  const h = Buffer.alloc(44);
  const blockAlign = (o.channels * o.bitsPerSample) / 8;
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + o.dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(o.format, 20);
  h.writeUInt16LE(o.channels, 22);
  h.writeUInt32LE(o.sampleRate, 24);
  h.writeUInt32LE(o.sampleRate * blockAlign, 28);
  h.writeUInt16LE(blockAlign, 32);
  h.writeUInt16LE(o.bitsPerSample, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(o.dataBytes, 40);
  return h;
}

/** The [startSec, endSec) span of a WAV file as a new WAV (same format), read without decoding. */
export function sliceWav(path: string, startSec: number, endSec: number, info: WavInfo = readWavInfo(path)): Buffer {
  const blockAlign = (info.channels * info.bitsPerSample) / 8;
  const first = Math.max(0, Math.min(info.frames, Math.floor(startSec * info.sampleRate)));
  const last = Math.max(first, Math.min(info.frames, Math.ceil(endSec * info.sampleRate)));
  const dataBytes = (last - first) * blockAlign;
  const out = Buffer.alloc(44 + dataBytes);
  wavHeader({ ...info, dataBytes }).copy(out, 0);
  const fd = openSync(path, 'r');
  try {
    let done = 0;
    while (done < dataBytes) {
      const n = readSync(fd, out, 44 + done, dataBytes - done, info.dataOffset + first * blockAlign + done);
      if (n <= 0) break;
      done += n;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

/** Declared size of the data chunk, or null when the header does not state one (streaming sizes). */
function declaredDataSize(buf: Buffer): number | null {
  let pos = 12;
  while (pos + 8 <= buf.length) {
    const id = buf.toString('ascii', pos, pos + 4);
    const size = buf.readUInt32LE(pos + 4);
    if (id === 'data') return size === 0 || size === 0xffffffff ? null : size;
    pos += 8 + size + (size % 2);
  }
  return null;
}

/**
 * Checks a WAV body returned by a service and returns it with a canonical header (exact sizes).
 * Not a WAV, no data chunk, a data chunk shorter than its header says, or no samples at all are
 * EngineResponseErrors: a truncated body must never become an audio file.
 */
export function completeWav(engine: string, body: Buffer, what: string): { wav: Buffer; info: WavInfo } {
  let info: WavInfo;
  try {
    info = parseWavHeader(body);
  } catch (e) {
    const head = body.subarray(0, 4).toString('latin1');
    throw new EngineResponseError(engine, `${what}: expected a WAV file, got ${body.length} bytes starting '${head.replace(/[^\x20-\x7e]/g, '?')}' (${(e as MediaError).message})`);
  }
  const declared = declaredDataSize(body);
  if (declared !== null && declared > body.length - info.dataOffset) {
    throw new EngineResponseError(engine, `${what}: the WAV is truncated (${body.length - info.dataOffset} of ${declared} data bytes)`);
  }
  if (info.frames === 0) throw new EngineResponseError(engine, `${what}: the WAV holds no audio`);
  const data = body.subarray(info.dataOffset, info.dataOffset + info.dataBytes);
  return { wav: Buffer.concat([wavHeader({ ...info, dataBytes: data.length }), data]), info };
}

/** Raw signed 16-bit little-endian PCM -> WAV. An odd byte count means the stream was cut. */
export function pcm16ToWav(engine: string, pcm: Buffer, sampleRate: number, what: string): { wav: Buffer; durationSec: number } {
  if (pcm.length === 0) throw new EngineResponseError(engine, `${what}: the audio is empty`);
  if (pcm.length % 2 !== 0) throw new EngineResponseError(engine, `${what}: the PCM stream is truncated (odd byte count)`);
  const h = wavHeader({ sampleRate, channels: 1, bitsPerSample: 16, format: 1, dataBytes: pcm.length });
  return { wav: Buffer.concat([h, pcm]), durationSec: pcm.length / 2 / sampleRate };
}

/** Writes a file via a temporary sibling and a rename: readers see the old file or the whole new one. */
export function writeFileAtomic(path: string, data: Buffer | string): void {
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.part`);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
