// Pure-JS WAV reading and writing (RIFF PCM 8/16/24/32-bit integer and 32/64-bit float,
// WAVE_FORMAT_EXTENSIBLE included). Used to measure clip durations exactly and to hand PCM
// samples to the built-in engines (VAD, diarization).
import { openSync, readSync, closeSync, fstatSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { MediaError } from './errors';

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** 1 = integer PCM, 3 = IEEE float. */
  format: 1 | 3;
  /** Byte offset of the first sample. */
  dataOffset: number;
  /** Bytes of sample data actually present in the file. */
  dataBytes: number;
  /** Samples per channel. */
  frames: number;
  durationSec: number;
}

export interface WavData extends WavInfo {
  /** One Float32Array per channel, samples in [-1, 1]. */
  channelData: Float32Array[];
}

/** Parses a RIFF/WAVE header from the start of a file. `fileSize` bounds a lying data size. */
export function parseWavHeader(buf: Buffer, fileSize = buf.length): WavInfo {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new MediaError('corrupt', 'not a RIFF/WAVE file');
  }
  let pos = 12;
  let fmt: { format: number; channels: number; sampleRate: number; bits: number } | null = null;
  while (pos + 8 <= buf.length) {
    const id = buf.toString('ascii', pos, pos + 4);
    const size = buf.readUInt32LE(pos + 4);
    const body = pos + 8;
    if (id === 'fmt ') {
      if (body + 16 > buf.length) break;
      let format = buf.readUInt16LE(body);
      const channels = buf.readUInt16LE(body + 2);
      const sampleRate = buf.readUInt32LE(body + 4);
      const bits = buf.readUInt16LE(body + 14);
      if (format === 0xfffe && size >= 40 && body + 26 <= buf.length) format = buf.readUInt16LE(body + 24);
      fmt = { format, channels, sampleRate, bits };
    } else if (id === 'data') {
      if (!fmt) throw new MediaError('corrupt', 'WAV data chunk before fmt chunk');
      if (fmt.format !== 1 && fmt.format !== 3) throw new MediaError('corrupt', `unsupported WAV format ${fmt.format}`);
      if (!fmt.channels || !fmt.sampleRate || !fmt.bits) throw new MediaError('corrupt', 'invalid WAV fmt chunk');
      const frameBytes = (fmt.bits / 8) * fmt.channels;
      const avail = Math.max(0, fileSize - body);
      let dataBytes = size === 0 || size === 0xffffffff || size > avail ? avail : size;
      dataBytes -= dataBytes % frameBytes;
      const frames = dataBytes / frameBytes;
      return {
        sampleRate: fmt.sampleRate,
        channels: fmt.channels,
        bitsPerSample: fmt.bits,
        format: fmt.format as 1 | 3,
        dataOffset: body,
        dataBytes,
        frames,
        durationSec: frames / fmt.sampleRate,
      };
    }
    pos = body + size + (size % 2);
  }
  throw new MediaError('corrupt', 'WAV file has no data chunk');
}

/** Reads only the header of a WAV file (no sample data). */
export function readWavInfo(path: string): WavInfo {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new MediaError('not_found', `cannot open ${path}: ${(e as Error).message}`);
  }
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, 1 << 20));
    readSync(fd, buf, 0, buf.length, 0);
    return parseWavHeader(buf, size);
  } finally {
    closeSync(fd);
  }
}

/** Exact duration of a WAV file in seconds, from its header and size. */
export function wavDurationSec(path: string): number {
  return readWavInfo(path).durationSec;
}

/** Decodes `frames` frames of sample data starting at byte `p` of `buf` into `channelData` at `at`. */
function decodeFrames(buf: Buffer, p: number, frames: number, info: WavInfo, channelData: Float32Array[], at: number): void {
  const { channels, bitsPerSample: bits, format } = info;
  const bps = bits / 8;
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < channels; c++) {
      let v: number;
      if (format === 3) v = bits === 64 ? buf.readDoubleLE(p) : buf.readFloatLE(p);
      else if (bits === 16) v = buf.readInt16LE(p) / 32768;
      else if (bits === 8) v = (buf[p]! - 128) / 128;
      else if (bits === 24) v = buf.readIntLE(p, 3) / 8388608;
      else v = buf.readInt32LE(p) / 2147483648;
      channelData[c]![at + i] = v;
      p += bps;
    }
  }
}

export function decodeWav(buf: Buffer): WavData {
  const info = parseWavHeader(buf);
  const channelData = Array.from({ length: info.channels }, () => new Float32Array(info.frames));
  decodeFrames(buf, info.dataOffset, info.frames, info, channelData, 0);
  return { ...info, channelData };
}

/**
 * Reads a WAV file piece by piece: memory stays the size of the pieces asked for, whatever the file's
 * length. Samples are the ones readWav gives, mixed down to mono the way toMono does.
 */
export class WavReader {
  readonly info: WavInfo;
  private fd: number | null;

  constructor(readonly path: string) {
    this.info = readWavInfo(path);
    try {
      this.fd = openSync(path, 'r');
    } catch (e) {
      throw new MediaError('not_found', `cannot open ${path}: ${(e as Error).message}`);
    }
  }

  /** Mono samples of frames [start, start + count) (cut at the end of the file; zero-length past it). */
  readMono(start: number, count: number): Float32Array {
    if (this.fd === null) throw new Error('WavReader is closed');
    const { frames, channels, bitsPerSample, dataOffset } = this.info;
    const s = Math.max(0, Math.min(frames, Math.floor(start)));
    const n = Math.max(0, Math.min(frames - s, Math.ceil(count)));
    const frameBytes = (bitsPerSample / 8) * channels;
    const buf = Buffer.allocUnsafe(n * frameBytes);
    let got = 0;
    while (got < buf.length) {
      const r = readSync(this.fd, buf, got, buf.length - got, dataOffset + s * frameBytes + got);
      if (r <= 0) break;
      got += r;
    }
    const chans = Array.from({ length: channels }, () => new Float32Array(n));
    decodeFrames(buf, 0, Math.floor(got / frameBytes), this.info, chans, 0);
    return toMono(chans);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

export function readWav(path: string): WavData {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    throw new MediaError('not_found', `cannot read ${path}: ${(e as Error).message}`);
  }
  return decodeWav(buf);
}

/** Mono mix-down (mean of channels). Returns the same array for mono input. */
export function toMono(channelData: Float32Array[]): Float32Array {
  if (channelData.length === 1) return channelData[0]!;
  const n = channelData[0]?.length ?? 0;
  const out = new Float32Array(n);
  for (const ch of channelData) for (let i = 0; i < n; i++) out[i]! += ch[i]!;
  for (let i = 0; i < n; i++) out[i]! /= channelData.length;
  return out;
}

/** The canonical 44-byte header of a 16-bit PCM WAV holding `frames` samples per channel. */
export function wavHeader(frames: number, sampleRate: number, channels: number): Buffer {
  const buf = Buffer.alloc(44);
  writeHeader(buf, frames * channels * 2, sampleRate, channels);
  return buf;
}

function writeHeader(buf: Buffer, dataBytes: number, sampleRate: number, channels: number): void {
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + dataBytes, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(channels, 22);
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * channels * 2, 28);
  buf.writeUInt16LE(channels * 2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(dataBytes, 40);
}

/** 16-bit PCM sample of a float in [-1, 1] (clipped), as encodeWav writes it. */
export function toPcm16(v: number): number {
  const c = Math.max(-1, Math.min(1, v));
  return Math.round(c < 0 ? c * 32768 : c * 32767);
}

/** 16-bit PCM WAV with a canonical 44-byte header. */
export function encodeWav(channelData: Float32Array[], sampleRate: number): Buffer {
  const channels = channelData.length;
  const frames = channelData[0]?.length ?? 0;
  const dataBytes = frames * channels * 2;
  const buf = Buffer.alloc(44 + dataBytes);
  writeHeader(buf, dataBytes, sampleRate, channels);
  let p = 44;
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < channels; c++) {
      buf.writeInt16LE(toPcm16(channelData[c]![i]!), p);
      p += 2;
    }
  }
  return buf;
}

export function writeWav(path: string, channelData: Float32Array[], sampleRate: number): void {
  writeFileSync(path, encodeWav(channelData, sampleRate));
}

/** Sums of squares per window, filled chunk by chunk (the reading, sync or async, is the caller's). */
function rmsAccumulator(info: WavInfo, hopSec: number, weights?: readonly number[]) {
  const { sampleRate, channels, bitsPerSample: bits, format, frames } = info;
  const hop = Math.max(1, Math.round(hopSec * sampleRate));
  const n = Math.ceil(frames / hop);
  const sums = new Float64Array(n);
  const bps = bits / 8;
  const frameBytes = bps * channels;
  const chunkFrames = 1 << 16;
  return {
    frames,
    chunkFrames,
    frameBytes,
    buf: Buffer.alloc(chunkFrames * frameBytes),
    /** Adds `got` bytes of `buf` starting at frame `start`; false once the data has ended. */
    add(buf: Buffer, got: number, start: number, count: number): boolean {
      const whole = Math.floor(got / frameBytes);
      let p = 0;
      for (let i = 0; i < whole; i++) {
        let v = 0;
        for (let c = 0; c < channels; c++) {
          let x: number;
          if (format === 3) x = bits === 64 ? buf.readDoubleLE(p) : buf.readFloatLE(p);
          else if (bits === 16) x = buf.readInt16LE(p) / 32768;
          else if (bits === 8) x = (buf[p]! - 128) / 128;
          else if (bits === 24) x = buf.readIntLE(p, 3) / 8388608;
          else x = buf.readInt32LE(p) / 2147483648;
          v += weights ? (weights[c] ?? 0) * x : x / channels;
          p += bps;
        }
        sums[Math.floor((start + i) / hop)]! += v * v;
      }
      return whole >= count;
    },
    result(): { hopSec: number; rms: Float32Array } {
      const rms = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const len = Math.min(hop, frames - i * hop);
        rms[i] = len > 0 ? Math.sqrt(sums[i]! / len) : 0;
      }
      return { hopSec: hop / sampleRate, rms };
    },
  };
}

/**
 * RMS level of a WAV file (all channels mixed) in consecutive windows of `hopSec`, read in chunks so an
 * hour-long track never sits in memory. Returns one value per window, linear amplitude in [0, 1].
 * Synchronous: for worker threads and short files; on the API's event loop use wavRmsEnvelopeAsync.
 */
export function wavRmsEnvelope(path: string, hopSec: number): { hopSec: number; rms: Float32Array } {
  const info = readWavInfo(path);
  const acc = rmsAccumulator(info, hopSec);
  const fd = openSync(path, 'r');
  try {
    for (let start = 0; start < acc.frames; start += acc.chunkFrames) {
      const count = Math.min(acc.chunkFrames, acc.frames - start);
      const got = readSync(fd, acc.buf, 0, count * acc.frameBytes, info.dataOffset + start * acc.frameBytes);
      if (!acc.add(acc.buf, got, start, count)) break;
    }
  } finally {
    closeSync(fd);
  }
  return acc.result();
}

/**
 * wavRmsEnvelope that gives the event loop back between chunks (about 1.4 s of 48 kHz audio each), so measuring
 * an hour of audio never stalls the requests served beside it.
 */
export async function wavRmsEnvelopeAsync(
  path: string,
  hopSec: number,
  o: { weights?: readonly number[] } = {},
): Promise<{ hopSec: number; rms: Float32Array }> {
  const info = readWavInfo(path);
  // channel weights: e.g. [0.5, -0.5] for the side channel (L-R)/2 of a stereo file; default the mean
  const acc = rmsAccumulator(info, hopSec, o.weights);
  const fh = await open(path, 'r');
  try {
    for (let start = 0; start < acc.frames; start += acc.chunkFrames) {
      const count = Math.min(acc.chunkFrames, acc.frames - start);
      const { bytesRead } = await fh.read(acc.buf, 0, count * acc.frameBytes, info.dataOffset + start * acc.frameBytes);
      if (!acc.add(acc.buf, bytesRead, start, count)) break;
    }
  } finally {
    await fh.close();
  }
  return acc.result();
}
