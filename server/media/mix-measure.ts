// The mix measured in-process (issue 30): the voice track is ours and the background is a WAV the separation wrote,
// so the integrated loudness (EBU R128 / ITU-R BS.1770) of their sum, and the level envelopes the quality report
// needs, are computed from the PCM itself in one read of both files, instead of a whole ffmpeg decode-and-mix pass
// only to measure. The sum is the one the mix graph makes (server/media/args.ts mixGraph): a mono track is
// up-mixed to stereo at -3 dB on each side (ffmpeg's rematrix), the voice multiplied by its gain curve.
import { open, type FileHandle } from 'node:fs/promises';
import { readWavInfo, type WavInfo } from './wav';

/** ffmpeg's mono -> stereo up-mix: the centre goes to each side at -3 dB. */
export const MONO_TO_STEREO = Math.SQRT1_2;

/** K-weighting of BS.1770 at 48 kHz (the rate ffmpeg's ebur128 filter runs at): a high shelf, then a high-pass. */
const SHELF = { b0: 1.53512485958697, b1: -2.69169618940638, b2: 1.19839281085285, a1: -1.69065929318241, a2: 0.73248077421585 };
const HIGHPASS = { b0: 1, b1: -2, b2: 1, a1: -1.99004745483398, a2: 0.99007225036621 };
/** The rate the K-weighting coefficients are for. */
export const LOUDNESS_RATE = 48000;

/**
 * Integrated loudness of a stereo (or mono) signal at 48 kHz, fed in pieces: K-weighted energy per 100 ms, then
 * 400 ms blocks every 100 ms gated at -70 LUFS and 10 LU under the mean of the blocks above that.
 */
export class LoudnessMeter {
  private readonly state: Float64Array; // per channel: shelf x1 x2 y1 y2, high-pass y1 y2
  private sub: Float64Array = new Float64Array(1024);
  private subs = 0;
  private inSub = 0;
  private acc = 0;
  private readonly subLen: number;

  constructor(readonly channels: number) {
    this.state = new Float64Array(channels * 6);
    this.subLen = LOUDNESS_RATE / 10;
  }

  /** Adds `frames` frames of channel data (each array holds one channel's samples from `offset`). */
  add(chans: readonly Float32Array[], offset: number, frames: number): void {
    let done = 0;
    while (done < frames) {
      const n = Math.min(frames - done, this.subLen - this.inSub);
      for (let c = 0; c < this.channels; c++) this.acc += this.filter(c, chans[c]!, offset + done, n);
      done += n;
      this.inSub += n;
      if (this.inSub === this.subLen) {
        if (this.subs === this.sub.length) {
          const grown = new Float64Array(this.sub.length * 2);
          grown.set(this.sub);
          this.sub = grown;
        }
        this.sub[this.subs++] = this.acc / this.subLen;
        this.acc = 0;
        this.inSub = 0;
      }
    }
  }

  /** K-weights samples [from, from + n) of one channel; returns the sum of squares. */
  private filter(c: number, x: Float32Array, from: number, n: number): number {
    const s = this.state;
    const k = c * 6;
    // shelf: inputs x1 x2, outputs y1 y2; high-pass: inputs are the shelf's outputs (y1 y2), outputs z1 z2
    let x1 = s[k]!, x2 = s[k + 1]!, y1 = s[k + 2]!, y2 = s[k + 3]!, z1 = s[k + 4]!, z2 = s[k + 5]!;
    let sum = 0;
    for (let i = from, end = from + n; i < end; i++) {
      const x0 = x[i]!;
      const y0 = SHELF.b0 * x0 + SHELF.b1 * x1 + SHELF.b2 * x2 - SHELF.a1 * y1 - SHELF.a2 * y2;
      const z0 = HIGHPASS.b0 * y0 + HIGHPASS.b1 * y1 + HIGHPASS.b2 * y2 - HIGHPASS.a1 * z1 - HIGHPASS.a2 * z2;
      x2 = x1; x1 = x0;
      y2 = y1; y1 = y0;
      z2 = z1; z1 = z0;
      sum += z0 * z0;
    }
    s[k] = x1; s[k + 1] = x2; s[k + 2] = y1; s[k + 3] = y2; s[k + 4] = z1; s[k + 5] = z2;
    return sum;
  }

  /** Integrated loudness so far (LUFS; -Infinity when every block is under the absolute gate). */
  integrated(): number {
    const blocks: number[] = [];
    for (let i = 0; i + 4 <= this.subs; i++) blocks.push((this.sub[i]! + this.sub[i + 1]! + this.sub[i + 2]! + this.sub[i + 3]!) / 4);
    const lufs = (p: number) => -0.691 + 10 * Math.log10(p);
    const abs = blocks.filter((p) => p > 0 && lufs(p) > -70);
    if (abs.length === 0) return -Infinity;
    const rel = lufs(abs.reduce((a, b) => a + b, 0) / abs.length) - 10;
    const gated = abs.filter((p) => lufs(p) > rel);
    if (gated.length === 0) return -Infinity;
    return lufs(gated.reduce((a, b) => a + b, 0) / gated.length);
  }
}

export interface Envelope {
  hopSec: number;
  rms: Float32Array;
}

/** What the in-process measurement reads: 16-bit or float WAV at 48 kHz, mono or stereo. */
export function measurableWav(info: WavInfo): boolean {
  return info.sampleRate === LOUDNESS_RATE && (info.channels === 1 || info.channels === 2) &&
    ((info.format === 1 && info.bitsPerSample === 16) || (info.format === 3 && info.bitsPerSample === 32));
}

/** Decodes `frames` whole frames of `buf` into `out` (stereo; mono up-mixed as ffmpeg does), times `gain`. */
function decodeStereo(buf: Buffer, frames: number, info: WavInfo, out: [Float32Array, Float32Array], gain: number): void {
  const ch = info.channels;
  const up = ch === 1 ? gain * MONO_TO_STEREO : gain;
  if (info.format === 1) {
    const pcm = new Int16Array(buf.buffer, buf.byteOffset, frames * ch);
    const k = up / 32768;
    if (ch === 1) for (let i = 0; i < frames; i++) out[0][i] = out[1][i] = pcm[i]! * k;
    else for (let i = 0, q = 0; i < frames; i++, q += 2) { out[0][i] = pcm[q]! * k; out[1][i] = pcm[q + 1]! * k; }
  } else {
    const f = new Float32Array(buf.buffer, buf.byteOffset, frames * ch);
    if (ch === 1) for (let i = 0; i < frames; i++) out[0][i] = out[1][i] = f[i]! * up;
    else for (let i = 0, q = 0; i < frames; i++, q += 2) { out[0][i] = f[q]! * up; out[1][i] = f[q + 1]! * up; }
  }
}

class ChunkReader {
  private constructor(private readonly fh: FileHandle, readonly info: WavInfo, private readonly buf: Buffer) {}
  static async open(path: string, chunkFrames: number): Promise<ChunkReader> {
    const info = readWavInfo(path);
    const frameBytes = (info.bitsPerSample / 8) * info.channels;
    // a fresh allocation: aligned for the typed-array views
    return new ChunkReader(await open(path, 'r'), info, Buffer.alloc(chunkFrames * frameBytes));
  }
  /** Frames [start, start + count) into `out` (zeros past the end of the file). */
  async read(start: number, count: number, out: [Float32Array, Float32Array], gain: number): Promise<void> {
    const { frames, channels, bitsPerSample, dataOffset } = this.info;
    const frameBytes = (bitsPerSample / 8) * channels;
    const have = Math.max(0, Math.min(count, frames - start));
    let got = 0;
    while (got < have * frameBytes) {
      const { bytesRead } = await this.fh.read(this.buf, got, have * frameBytes - got, dataOffset + start * frameBytes + got);
      if (bytesRead <= 0) break;
      got += bytesRead;
    }
    const whole = Math.floor(got / frameBytes);
    decodeStereo(this.buf, whole, this.info, out, gain);
    out[0].fill(0, whole, count);
    out[1].fill(0, whole, count);
  }
  close(): Promise<void> {
    return this.fh.close();
  }
}

export interface MixMeasureInput {
  voice: string;
  background: string;
  /** The voice's gain curve: linear amplitude at `rate` samples per second, interpolated linearly, held after its end. */
  voiceGain?: { rate: number; samples: Float32Array } | null;
  voiceGainDb?: number;
  backgroundGainDb?: number;
  /** Length of the mix (padded or cut); by default the background's. */
  durationSec?: number;
  /** Hop of the envelopes, seconds. */
  hopSec?: number;
  signal?: AbortSignal;
}

export interface MixMeasure {
  /** Integrated loudness of the plain sum (LUFS; -Infinity: silence). */
  lufs: number;
  /** Level envelopes (all channels mixed): the plain sum and the background as read. */
  mix: Envelope;
  background: Envelope;
}

/** Both inputs can be measured in-process (else the mix is measured by ffmpeg). */
export function canMeasureMix(voice: string, background: string): boolean {
  try {
    return measurableWav(readWavInfo(voice)) && measurableWav(readWavInfo(background));
  } catch {
    return false;
  }
}

/**
 * The plain sum of the voice (times its gain curve) and the background, read once in pieces (the event loop is given
 * back between them): its integrated loudness and the level envelopes of the sum and of the background.
 */
export async function measureMix(o: MixMeasureInput): Promise<MixMeasure> {
  const CHUNK = 1 << 15;
  const sr = LOUDNESS_RATE;
  const voice = await ChunkReader.open(o.voice, CHUNK);
  const bg = await ChunkReader.open(o.background, CHUNK).catch(async (e) => {
    await voice.close();
    throw e;
  });
  try {
    const total = o.durationSec === undefined ? bg.info.frames : Math.round(o.durationSec * sr);
    const hop = Math.max(1, Math.round((o.hopSec ?? 0.02) * sr));
    const nEnv = Math.ceil(total / hop);
    const mixSums = new Float64Array(nEnv);
    const bgSums = new Float64Array(nEnv);
    const meter = new LoudnessMeter(2);
    const v: [Float32Array, Float32Array] = [new Float32Array(CHUNK), new Float32Array(CHUNK)];
    const b: [Float32Array, Float32Array] = [new Float32Array(CHUNK), new Float32Array(CHUNK)];
    const vGain = 10 ** ((o.voiceGainDb ?? 0) / 20);
    const bGain = 10 ** ((o.backgroundGainDb ?? 0) / 20);
    const curve = o.voiceGain;
    // the background's envelope is the mean of its own channels (a mono file is not up-mixed for it)
    const bgScale = bg.info.channels === 1 ? 1 / MONO_TO_STEREO : 1;
    for (let start = 0; start < total; start += CHUNK) {
      if (o.signal?.aborted) throw o.signal.reason ?? new Error('aborted');
      const count = Math.min(CHUNK, total - start);
      await voice.read(start, count, v, vGain);
      await bg.read(start, count, b, 1);
      for (let i = 0; i < count; i++) {
        const n = start + i;
        let g = 1;
        if (curve) {
          const t = (n / sr) * curve.rate;
          const k = Math.floor(t);
          const last = curve.samples.length - 1;
          g = k >= last ? curve.samples[last]! : curve.samples[k]! + (curve.samples[k + 1]! - curve.samples[k]!) * (t - k);
        }
        const bl = b[0][i]!;
        const br = b[1][i]!;
        const l = v[0][i]! * g + bl * bGain;
        const r = v[1][i]! * g + br * bGain;
        v[0][i] = l;
        v[1][i] = r;
        const e = Math.floor(n / hop);
        const m = (l + r) / 2;
        mixSums[e]! += m * m;
        const mb = ((bl + br) / 2) * bgScale;
        bgSums[e]! += mb * mb;
      }
      meter.add(v, 0, count);
    }
    const env = (sums: Float64Array): Envelope => {
      const rms = new Float32Array(nEnv);
      for (let i = 0; i < nEnv; i++) {
        const len = Math.min(hop, total - i * hop);
        rms[i] = len > 0 ? Math.sqrt(sums[i]! / len) : 0;
      }
      return { hopSec: hop / sr, rms };
    };
    return { lufs: meter.integrated(), mix: env(mixSums), background: env(bgSums) };
  } finally {
    await voice.close();
    await bg.close();
  }
}
