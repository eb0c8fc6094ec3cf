// Silero VAD v5 (the ONNX model shipped in @ricky0123/vad-web) on onnxruntime-node.
// 512-sample frames at 16 kHz with the 64-sample context the model was trained with; hysteresis
// thresholds, minimum speech/silence durations, edge padding, merging of close regions and splitting
// of long regions at their least speech-like point.
// The file is read in chunks (memory does not grow with its length) in a worker thread (./threads), so
// the inference never holds up the API's event loop.
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { WavReader } from '../../media/wav';
import { EngineError, type EngineCallOptions, type SpeechRegion, type VadEngine } from '../types';
import { runInThread } from './threads';

type Ort = typeof import('onnxruntime-node');
type Session = import('onnxruntime-node').InferenceSession;

export const SILERO_SAMPLE_RATE = 16000;
export const SILERO_FRAME = 512;
const CONTEXT = 64;

export interface SileroVadOptions {
  /** Speech starts when the probability reaches this (default 0.5). */
  threshold?: number;
  /** Speech ends when the probability stays under this (default threshold - 0.15). */
  negThreshold?: number;
  /** Regions shorter than this are dropped (default 250 ms). */
  minSpeechMs?: number;
  /** Silence needed to end a region (default 100 ms). */
  minSilenceMs?: number;
  /** Padding added at both edges (default 60 ms). */
  padMs?: number;
  /** Regions closer than this are merged (default 300 ms). */
  mergeGapMs?: number;
  /** Regions longer than this are split at their lowest-probability frame (default 15 s). */
  maxRegionSec?: number;
  /** Model file; defaults to silero_vad_v5.onnx resolved from node_modules. */
  modelPath?: string;
}

export function resolveSileroModel(): string {
  const require = createRequire(import.meta.url);
  return require.resolve('@ricky0123/vad-web/dist/silero_vad_v5.onnx');
}

let ortPromise: Promise<Ort> | null = null;
const sessions = new Map<string, Promise<Session>>();

async function getSession(modelPath: string): Promise<{ ort: Ort; session: Session }> {
  ortPromise ??= import('onnxruntime-node') as Promise<Ort>;
  const ort = await ortPromise;
  let s = sessions.get(modelPath);
  if (!s) {
    s = ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    sessions.set(modelPath, s);
    s.catch(() => sessions.delete(modelPath));
  }
  return { ort, session: await s };
}

/**
 * Releases the open model sessions (the thread that holds them is about to end). Waits for the ones still
 * being created; a failed one has nothing to release.
 */
export async function releaseSileroSessions(): Promise<void> {
  const open = [...sessions.values()];
  sessions.clear();
  for (const s of open) await s.then((x) => x.release()).catch(() => {});
}

/** Samples of a signal read piece by piece: a file (WavReader) or an array in memory. */
export interface SampleSource {
  readonly length: number;
  read(start: number, count: number): Float32Array;
}

/** Frames read from the source at a time: 32 s of audio. */
const CHUNK_FRAMES = 1000;
/**
 * A long file is detected as several streams at once (issue 30): one model call takes a batch of frames, one from
 * each stream, each with its own state (a call's cost is mostly fixed: 8 streams need about 2.2x less time per
 * frame). Each stream covers at least this many frames (60 s), so a clip under two minutes is one stream, as before.
 */
export const MIN_STREAM_FRAMES = 1875;
/** At most this many streams (the gain per frame levels off beyond). */
export const MAX_STREAMS = 8;
/**
 * Frames a stream runs before its own first frame, their probabilities discarded (3 s): the state settles on the
 * audio around it. It never holds exactly what one pass would (Silero's state remembers far back: a pass started
 * fresh still differs a minute later), so a long file's regions differ a little from one pass's; tested to find the
 * true speech as well (tests/pipeline/engines/vad-streams.test.ts).
 */
export const WARMUP_FRAMES = 94;

/** How many streams a file of `nFrames` frames is detected in. */
export function vadStreams(nFrames: number): number {
  return Math.max(1, Math.min(MAX_STREAMS, Math.floor(nFrames / MIN_STREAM_FRAMES)));
}

/** Speech probability of every 512-sample frame (32 ms) of 16 kHz mono samples. */
export async function sileroFrameProbabilities(
  samples: Float32Array | SampleSource,
  o: { modelPath?: string; signal?: AbortSignal; onProgress?: (fraction: number) => void; streams?: number } = {},
): Promise<Float32Array> {
  const src: SampleSource =
    samples instanceof Float32Array ? { length: samples.length, read: (s, n) => samples.subarray(s, s + n) } : samples;
  const { ort, session } = await getSession(o.modelPath ?? resolveSileroModel());
  const nFrames = Math.ceil(src.length / SILERO_FRAME);
  const probs = new Float32Array(nFrames);
  const B = Math.max(1, Math.min(o.streams ?? vadStreams(nFrames), nFrames));
  // stream k's own frames are [k * own, (k + 1) * own); a later one starts WARMUP_FRAMES earlier, and the first runs
  // as many frames past its end, so all of them take the same number of steps (a frame past the file is silence)
  const own = Math.ceil(nFrames / B);
  const warm = B > 1 ? WARMUP_FRAMES : 0;
  const steps = own + warm;
  const first = Array.from({ length: B }, (_, k) => (k === 0 ? 0 : k * own - warm));
  const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(SILERO_SAMPLE_RATE)]), []);
  let state = new ort.Tensor('float32', new Float32Array(2 * B * 128), [2, B, 128]);
  const W = CONTEXT + SILERO_FRAME;
  // per stream: its input row (the last 64 samples of its previous frame, then the frame), and the piece read
  const rows = new Float32Array(B * W);
  const pieces: Float32Array[] = new Array<Float32Array>(B).fill(new Float32Array(0));
  const pieceStart = new Array<number>(B).fill(-1);
  // each stream reads its share of the single stream's piece (the same memory in all)
  const pieceFrames = Math.ceil(CHUNK_FRAMES / B);
  for (let i = 0; i < steps; i++) {
    // Checked before every model call: a cancelled detection stops within one frame's inference.
    if (o.signal?.aborted) throw new DOMException(`The detection was stopped (${String(o.signal.reason)})`, 'AbortError');
    if (i > 0 && i % CHUNK_FRAMES === 0) o.onProgress?.(i / steps);
    for (let k = 0; k < B; k++) {
      const f = first[k]! + i;
      const row = rows.subarray(k * W, (k + 1) * W);
      // context = last 64 samples of the stream's previous frame
      row.copyWithin(0, SILERO_FRAME, SILERO_FRAME + CONTEXT);
      row.fill(0, CONTEXT);
      if (f >= nFrames) continue;
      if (pieceStart[k]! < 0 || f * SILERO_FRAME >= pieceStart[k]! + pieceFrames * SILERO_FRAME) {
        pieceStart[k] = f * SILERO_FRAME;
        pieces[k] = src.read(pieceStart[k]!, pieceFrames * SILERO_FRAME);
      }
      const at = f * SILERO_FRAME - pieceStart[k]!;
      const piece = pieces[k]!;
      row.set(piece.subarray(at, Math.min(at + SILERO_FRAME, piece.length)), CONTEXT);
    }
    const input = new ort.Tensor('float32', rows.slice(), [B, W]);
    const out = await session.run({ input, state, sr });
    const p = out.output!.data as Float32Array;
    for (let k = 0; k < B; k++) {
      const f = first[k]! + i;
      if (f >= k * own && f < (k + 1) * own && f < nFrames) probs[f] = p[k]!;
    }
    state = out.stateN as typeof state;
  }
  return probs;
}

/**
 * Turns frame probabilities into speech regions (seconds), the way silero-vad's get_speech_timestamps
 * does, then merges close regions and splits long ones.
 */
export function regionsFromProbabilities(
  probs: Float32Array,
  totalSamples: number,
  opts: SileroVadOptions = {},
): SpeechRegion[] {
  const sr = SILERO_SAMPLE_RATE;
  const frame = SILERO_FRAME;
  const thr = opts.threshold ?? 0.5;
  const neg = opts.negThreshold ?? Math.max(thr - 0.15, 0.01);
  const minSpeech = ((opts.minSpeechMs ?? 250) * sr) / 1000;
  const minSilence = ((opts.minSilenceMs ?? 100) * sr) / 1000;
  const pad = ((opts.padMs ?? 60) * sr) / 1000;
  const mergeGap = ((opts.mergeGapMs ?? 300) * sr) / 1000;
  const maxLen = (opts.maxRegionSec ?? 15) * sr;

  // 1. hysteresis
  const raw: Array<{ s: number; e: number }> = [];
  let triggered = false;
  let start = 0;
  let tempEnd = 0;
  for (let f = 0; f < probs.length; f++) {
    const p = probs[f]!;
    const pos = f * frame;
    if (p >= thr && tempEnd) tempEnd = 0;
    if (p >= thr && !triggered) {
      triggered = true;
      start = pos;
      continue;
    }
    if (p < neg && triggered) {
      if (!tempEnd) tempEnd = pos;
      if (pos - tempEnd < minSilence) continue;
      if (tempEnd - start >= minSpeech) raw.push({ s: start, e: tempEnd });
      triggered = false;
      tempEnd = 0;
    }
  }
  if (triggered && totalSamples - start >= minSpeech) raw.push({ s: start, e: totalSamples });

  // 2. pad edges (without crossing the neighbours' midpoints or the file), 3. merge close regions
  const padded = raw.map((r, i) => {
    const prevEnd = i > 0 ? raw[i - 1]!.e : -Infinity;
    const nextStart = i + 1 < raw.length ? raw[i + 1]!.s : Infinity;
    return {
      s: Math.max(0, r.s - pad, prevEnd === -Infinity ? 0 : (prevEnd + r.s) / 2),
      e: Math.min(totalSamples, r.e + pad, nextStart === Infinity ? totalSamples : (r.e + nextStart) / 2),
    };
  });
  const merged: Array<{ s: number; e: number }> = [];
  for (const r of padded) {
    const last = merged[merged.length - 1];
    if (last && r.s - last.e < mergeGap && r.e - last.s <= maxLen) last.e = Math.max(last.e, r.e);
    else merged.push({ ...r });
  }

  // 4. split long regions at the lowest-probability frame (recursively)
  const out: Array<{ s: number; e: number }> = [];
  const split = (r: { s: number; e: number }) => {
    if (r.e - r.s <= maxLen) {
      out.push(r);
      return;
    }
    const margin = Math.min(minSpeech * 4, (r.e - r.s) / 4);
    const f0 = Math.ceil((r.s + margin) / frame);
    const f1 = Math.floor((r.e - margin) / frame);
    let best = f0;
    for (let f = f0; f <= f1 && f < probs.length; f++) if (probs[f]! < probs[best]!) best = f;
    const cut = Math.min(Math.max((best + 0.5) * frame, r.s + 1), r.e - 1);
    split({ s: r.s, e: cut });
    split({ s: cut, e: r.e });
  };
  merged.forEach(split);
  return out.map((r) => ({ start: round3(r.s / sr), end: round3(r.e / sr) }));
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * Speech regions of a 16 kHz WAV file, read in chunks. Runs where it is called (the engine calls it in a
 * worker thread).
 */
export async function detectFile(
  wav16kMono: string,
  opts: SileroVadOptions = {},
  o: { signal?: AbortSignal; onProgress?: (fraction: number) => void } = {},
): Promise<SpeechRegion[]> {
  const reader = new WavReader(wav16kMono);
  try {
    if (reader.info.sampleRate !== SILERO_SAMPLE_RATE) {
      throw new EngineError('bad_input', `VAD needs 16 kHz audio, got ${reader.info.sampleRate} Hz`);
    }
    const source: SampleSource = { length: reader.info.frames, read: (s, n) => reader.readMono(s, n) };
    const probs = await sileroFrameProbabilities(source, { modelPath: opts.modelPath, signal: o.signal, onProgress: o.onProgress });
    return regionsFromProbabilities(probs, reader.info.frames, opts);
  } finally {
    reader.close();
  }
}

export function createSileroVad(opts: SileroVadOptions = {}): VadEngine {
  return {
    id: 'silero-vad',
    label: 'Silero VAD v5 (onnxruntime-node)',
    // The model is loaded by the worker thread that runs the detection; here only its presence counts.
    async init() {
      if (!existsSync(opts.modelPath ?? resolveSileroModel())) throw new EngineError('unavailable', 'the Silero VAD model is missing');
    },
    available() {
      try {
        return existsSync(opts.modelPath ?? resolveSileroModel());
      } catch {
        return false;
      }
    },
    async detect(wav16kMono: string, o: EngineCallOptions = {}): Promise<SpeechRegion[]> {
      // the thread (and its model session) ends with the detection: a project's regions are found once, and the
      // separation that follows needs the memory
      return runInThread<SpeechRegion[]>('vad', { wav: wav16kMono, options: opts }, { signal: o.signal, onProgress: o.onProgress, keep: false });
    },
  };
}
