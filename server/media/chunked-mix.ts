// The mix encoded in independent chunks (issue 30: a one-segment re-dub in seconds). The soundtrack is cut into
// chunks of CHUNK_FRAMES AAC frames (about 30 s); each chunk is mixed and encoded by its own ffmpeg pass from its
// inputs with a margin on both sides (the limiter, the gain curve's resampler and the encoder see the same signal
// around every boundary), and only the packets of its own frames are kept. The chunks' packets, concatenated, are
// the soundtrack: the decoder's overlap-add joins two chunks like two frames of one encode (the same signal was
// encoded on both sides of the boundary).
//
// A chunk's packets depend only on its inputs' samples in its window and on the mix settings, so a merge keeps a
// hash of those per chunk: a later merge re-encodes only the chunks whose hash changed and copies the others' packets,
// and its output is byte for byte what a full merge of the same inputs at the same gain writes.
import { createHash } from 'node:crypto';
import { open, readFile, writeFile } from 'node:fs/promises';
import { FFMPEG, num, type LoudnessFigures, type MixOptions } from './args';
import { MediaError } from './errors';
import { runToolOutput, type OpOptions } from './ffmpeg';
import { GAIN_CURVE_RATE } from './gate';
import { readWavInfo, type WavInfo } from './wav';

/** AAC frame length (samples). */
export const AAC_FRAME = 1024;
/** Frames per chunk: 30.04 s at 48 kHz. */
export const CHUNK_FRAMES = 1408;
/** Frames of margin before a chunk (the limiter's release and the gain curve's resampler settle) and after it. */
export const MARGIN_BEFORE = 48;
export const MARGIN_AFTER = 4;
const RATE = 48000;
/** Version of the chunk encoding: part of every chunk's hash (a change of the encoding re-encodes everything). */
const CHUNK_VERSION = 'mix-chunk-1';

export interface MixChunk {
  index: number;
  /** The chunk's own samples [start, end) of the soundtrack. */
  start: number;
  end: number;
  /** The samples encoded: [from, to) (the chunk and its margins, inside the soundtrack). */
  from: number;
  to: number;
  /** Packets of the chunk's encode to skip, and how many to keep (null: all the rest, the last chunk). */
  skip: number;
  keep: number | null;
}

/** The chunks of a soundtrack of `totalSamples` samples at 48 kHz. */
export function chunkPlan(totalSamples: number, chunkFrames = CHUNK_FRAMES): MixChunk[] {
  const size = chunkFrames * AAC_FRAME;
  const chunks: MixChunk[] = [];
  for (let start = 0, index = 0; start < totalSamples || index === 0; start += size, index++) {
    const end = Math.min(totalSamples, start + size);
    const last = end >= totalSamples;
    const from = Math.max(0, start - MARGIN_BEFORE * AAC_FRAME);
    const to = last ? totalSamples : Math.min(totalSamples, end + MARGIN_AFTER * AAC_FRAME);
    // packet j of an encode starting at `from` decodes samples [from + (j - 1) * 1024, from + j * 1024): the first
    // chunk keeps the encoder's priming packet, the others start at their first frame
    const skip = index === 0 ? 0 : (start - from) / AAC_FRAME + 1;
    const keep = last ? null : index === 0 ? (end - start) / AAC_FRAME + 1 : (end - start) / AAC_FRAME;
    chunks.push({ index, start, end, from, to, skip, keep });
    if (last) break;
  }
  return chunks;
}

/** ffmpeg's arguments for one chunk: the mix of its window at `gainDb`, limited, encoded to ADTS, measured (ebur128). */
export function chunkArgs(o: MixOptions, chunk: MixChunk, gainDb: number, out: string): string[] {
  const sec = (s: number) => num(s / RATE, 6);
  const len = chunk.to - chunk.from;
  const fmt = `aresample=${RATE},aformat=sample_fmts=fltp:channel_layouts=stereo`;
  const ins = ['-ss', sec(chunk.from), '-t', sec(len), '-i', o.voice, '-ss', sec(chunk.from), '-t', sec(len), '-i', o.background];
  const graph: string[] = [];
  if (o.voiceGain) {
    // the curve from the last of its samples at or before the window (its rate divides 48 kHz), trimmed to the window
    const step = RATE / GAIN_CURVE_RATE;
    const g0 = Math.floor(chunk.from / step) * step;
    ins.push('-ss', sec(g0), '-i', o.voiceGain);
    graph.push(
      `[0:a]aresample=${RATE},aformat=sample_fmts=fltp:channel_layouts=mono,apad=whole_len=${len}[v0]`,
      `[2:a]aresample=${RATE},aformat=sample_fmts=fltp:channel_layouts=mono,apad,atrim=start_sample=${chunk.from - g0}:end_sample=${chunk.from - g0 + len},asetpts=PTS-STARTPTS[g]`,
      `[v0][g]amultiply,${fmt},volume=${num(o.voiceGainDb ?? 0, 2)}dB[v]`,
    );
  } else {
    graph.push(`[0:a]${fmt},volume=${num(o.voiceGainDb ?? 0, 2)}dB,apad=whole_len=${len}[v]`);
  }
  const ln = o.loudness ?? { TP: -2 };
  const limit = Math.min(1, Math.max(0.0625, 10 ** (ln.TP / 20)));
  graph.push(
    `[1:a]${fmt},volume=${num(o.backgroundGainDb ?? 0, 2)}dB,apad=whole_len=${len}[b]`,
    `[v][b]amix=inputs=2:duration=longest:dropout_transition=0:normalize=0,volume=${num(gainDb, 2)}dB,` +
      `alimiter=limit=${num(limit, 4)}:attack=5:release=50:level=disabled:latency=1,apad=whole_len=${len},atrim=end_sample=${len},asplit=2[out][m]`,
    // the chunk's own samples measured: 100 ms momentary and 3 s short-term loudness, and the true peak
    `[m]atrim=start_sample=${chunk.start - chunk.from}:end_sample=${chunk.end - chunk.from},ebur128=peak=true:framelog=verbose[mm]`,
  );
  return [
    // the per-frame lines of ebur128 are printed at the verbose level
    '-nostdin', '-hide_banner', '-nostats', '-loglevel', 'verbose', '-y',
    ...ins,
    '-filter_complex', graph.join(';'),
    '-map', '[out]', '-ar', String(RATE), '-ac', '2',
    '-c:a', 'aac', '-aac_coder', 'fast', '-b:a', '192k',
    '-map_metadata', '-1', '-fflags', '+bitexact', '-flags:a', '+bitexact',
    '-f', 'adts', out,
    '-map', '[mm]', '-f', 'null', '-',
  ];
}

/** The ADTS frames of a buffer (each a whole packet with its header). */
export function adtsFrames(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  while (i + 7 <= buf.length) {
    if (buf[i] !== 0xff || (buf[i + 1]! & 0xf0) !== 0xf0) throw new MediaError('failed', `not an ADTS stream at byte ${i}`);
    const len = ((buf[i + 3]! & 3) << 11) | (buf[i + 4]! << 3) | (buf[i + 5]! >> 5);
    if (len < 7 || i + len > buf.length) throw new MediaError('failed', `a truncated ADTS frame at byte ${i}`);
    out.push(buf.subarray(i, i + len));
    i += len;
  }
  return out;
}

/** What a chunk's measurement gives: per 100 ms, the momentary (400 ms) and short-term (3 s) loudness; the true peak. */
export interface ChunkLoudness {
  /** Momentary loudness of the blocks that lie wholly inside the chunk (LUFS, one per 100 ms from 0.4 s). */
  m: number[];
  /** Short-term loudness of the windows wholly inside the chunk (one per 100 ms from 3 s). */
  s: number[];
  /** True peak, dBTP. */
  tp: number;
}

/** Parses ebur128's per-frame lines and summary. */
export function parseChunkLoudness(stderr: string): ChunkLoudness {
  const m: number[] = [];
  const s: number[] = [];
  const line = /t:\s*([\d.]+)\s+TARGET:\S+\s+LUFS\s+M:\s*(-?[\d.]+|-inf)\s+S:\s*(-?[\d.]+|-inf)/g;
  for (let r = line.exec(stderr); r; r = line.exec(stderr)) {
    const tenths = Math.round(Number(r[1]) * 10);
    const val = (x: string) => (x === '-inf' ? -Infinity : Number(x));
    if (tenths >= 4) m.push(val(r[2]!));
    if (tenths >= 30) s.push(val(r[3]!));
  }
  const at = stderr.lastIndexOf('True peak:');
  const p = at >= 0 ? /Peak:\s*(-?inf|-?[\d.]+)\s*dBFS/i.exec(stderr.slice(at)) : null;
  return { m, s, tp: p ? (/inf/i.test(p[1]!) ? -Infinity : Number(p[1])) : -Infinity };
}

/**
 * Loudness, range and true peak of the soundtrack from its chunks' measurements (EBU R128: the momentary blocks gated
 * at -70 LUFS and 10 LU under their mean; the range from the short-term values gated at -70 and 20 LU under theirs,
 * 10th to 95th percentile). The few blocks that straddle two chunks are left out.
 */
export function combineLoudness(chunks: readonly ChunkLoudness[]): LoudnessFigures {
  const pow = (l: number) => 10 ** ((l + 0.691) / 10);
  const lufs = (p: number) => -0.691 + 10 * Math.log10(p);
  const gatedMean = (vals: number[], rel: number): { mean: number; kept: number[] } => {
    const abs = vals.filter((v) => v > -70);
    if (abs.length === 0) return { mean: -Infinity, kept: [] };
    const gate = lufs(abs.reduce((a, v) => a + pow(v), 0) / abs.length) - rel;
    const kept = abs.filter((v) => v > gate);
    return { mean: kept.length ? lufs(kept.reduce((a, v) => a + pow(v), 0) / kept.length) : -Infinity, kept };
  };
  const I = gatedMean(chunks.flatMap((c) => c.m), 10).mean;
  const st = gatedMean(chunks.flatMap((c) => c.s), 20).kept.sort((a, b) => a - b);
  const pct = (q: number) => st[Math.min(st.length - 1, Math.max(0, Math.round(q * (st.length - 1))))]!;
  const LRA = st.length ? Math.round((pct(0.95) - pct(0.1)) * 10) / 10 : 0;
  const TP = chunks.reduce((a, c) => Math.max(a, c.tp), -Infinity);
  return { I: Number.isFinite(I) ? Math.round(I * 10) / 10 : -Infinity, LRA, TP: Number.isFinite(TP) ? Math.round(TP * 10) / 10 : TP };
}

/** Bytes [fromByte, toByte) of a file, fed to a hash in pieces (each read awaited: the event loop serves between them). */
async function hashRange(h: ReturnType<typeof createHash>, path: string, fromByte: number, toByte: number, buf: Buffer): Promise<void> {
  const fd = await open(path, 'r');
  try {
    for (let at = fromByte; at < toByte; ) {
      const { bytesRead } = await fd.read(buf, 0, Math.min(buf.length, toByte - at), at);
      if (bytesRead <= 0) break;
      h.update(buf.subarray(0, bytesRead));
      at += bytesRead;
    }
  } finally {
    await fd.close();
  }
}

/** The samples [from, to) of a WAV at `rate` as a byte range of the file (clamped to its data). */
function wavBytes(info: WavInfo, from: number, to: number, rate = RATE): [number, number] {
  const fb = (info.bitsPerSample / 8) * info.channels;
  const k = info.sampleRate / rate;
  const a = Math.max(0, Math.min(info.frames, Math.floor(from * k) - 2));
  const b = Math.max(a, Math.min(info.frames, Math.ceil(to * k) + 2));
  return [info.dataOffset + a * fb, info.dataOffset + b * fb];
}

/**
 * The hashes of what each chunk's packets depend on: its window's samples of the voice, the background and the gain
 * curve, the mix settings and the gain. Equal hashes: equal packets. The inputs are read in 1 MB pieces, each read
 * awaited (an hour's inputs are about a gigabyte: hashed in one go they held the event loop for a second).
 */
export async function chunkHashes(o: MixOptions, plan: readonly MixChunk[], gainDb: number): Promise<string[]> {
  const inputs = [o.voice, o.background].map((path) => ({ path, info: readWavInfo(path) }));
  const curve = o.voiceGain ? { path: o.voiceGain, info: readWavInfo(o.voiceGain) } : null;
  const buf = Buffer.alloc(1 << 20);
  const out: string[] = [];
  for (const chunk of plan) {
    const h = createHash('sha1');
    h.update(JSON.stringify([CHUNK_VERSION, chunk, num(gainDb, 2), o.voiceGainDb ?? 0, o.backgroundGainDb ?? 0, o.loudness?.TP ?? -2]));
    for (const { path, info } of inputs) {
      h.update(JSON.stringify([info.sampleRate, info.channels, info.bitsPerSample, info.format]));
      const [a, b] = wavBytes(info, chunk.from, chunk.to);
      await hashRange(h, path, a, b, buf);
    }
    if (curve) {
      // the curve's samples over the window and the resampler's reach (its input seeks to the 10 ms step before)
      const [a, b] = wavBytes(curve.info, Math.max(0, chunk.from - RATE), chunk.to + RATE);
      await hashRange(h, curve.path, a, b, buf);
    } else {
      h.update('no-curve');
    }
    out.push(h.digest('hex'));
  }
  return out;
}

/** Mixes and encodes one chunk: its kept ADTS packets to `out`, and its loudness figures. */
export async function encodeChunk(o: MixOptions, chunk: MixChunk, gainDb: number, out: string, op: OpOptions = {}): Promise<ChunkLoudness> {
  const raw = `${out}.full.aac`;
  const r = await runToolOutput(FFMPEG, chunkArgs(o, chunk, gainDb, raw), op);
  // ffmpeg may end with status 0 after a failed write (disk full): what it said, and a chunk without its packets,
  // are failures (ENOSPC keeps its meaning: the stage says the disk is full and the previous result is kept)
  if (/No space left on device/i.test(r.stderr)) throw Object.assign(new Error(`ENOSPC: no space left on device, write '${raw}'`), { code: 'ENOSPC' });
  const frames = adtsFrames(await readFile(raw));
  if (frames.length <= chunk.skip) throw new MediaError('failed', `chunk ${chunk.index}: the encoder wrote ${frames.length} packets`);
  const kept = frames.slice(chunk.skip, chunk.keep === null ? undefined : chunk.skip + chunk.keep);
  if (chunk.keep !== null && kept.length !== chunk.keep) throw new MediaError('failed', `chunk ${chunk.index}: ${frames.length} packets, ${chunk.skip + chunk.keep} expected`);
  await writeFile(out, Buffer.concat(kept));
  return parseChunkLoudness(r.stderr);
}

/** The soundtrack's ADTS stream: the chunks' packets in order (read and written a chunk at a time). Returns the number of packets. */
export async function concatChunks(files: readonly string[], out: string): Promise<number> {
  let packets = 0;
  const fd = await open(out, 'w');
  try {
    for (const f of files) {
      const buf = await readFile(f);
      packets += adtsFrames(buf).length;
      await fd.write(buf);
    }
  } finally {
    await fd.close();
  }
  return packets;
}

/**
 * The ADTS stream in an M4A as the single-pass encode writes it: the first packet is the encoder's priming (its 1024
 * samples are cut by an edit list), and the last packet lasts only up to the soundtrack's end (ADTS packets all
 * last a frame), so the track is exactly `totalSamples` long.
 */
export function adtsToM4aArgs(adts: string, out: string, totalSamples: number, packets: number): string[] {
  // packet p decodes samples [(p - 1) * 1024, p * 1024): the last one keeps what is left of the soundtrack
  const last = packets - 1;
  const left = totalSamples - (packets - 2) * AAC_FRAME;
  if (left <= 0 || left > AAC_FRAME) throw new MediaError('failed', `${packets} packets for ${totalSamples} samples`);
  return [
    '-nostdin', '-hide_banner', '-loglevel', 'error', '-y',
    '-itsoffset', num(-AAC_FRAME / RATE, 6), '-i', adts,
    '-map', '0:a:0', '-c:a', 'copy',
    '-bsf:a', `setts=duration='if(eq(N,${last}),DURATION*${left}/${AAC_FRAME},DURATION)'`,
    '-map_metadata', '-1', '-fflags', '+bitexact', '-f', 'mp4', out,
  ];
}

export async function adtsToM4a(adts: string, out: string, totalSamples: number, packets: number, op: OpOptions = {}): Promise<void> {
  await runToolOutput(FFMPEG, adtsToM4aArgs(adts, out, totalSamples, packets), op);
}
