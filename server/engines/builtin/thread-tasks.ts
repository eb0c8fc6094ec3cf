// The tasks the engines run in worker threads (./threads.ts), by name. Each posts progress and then its
// result (or its error) to the parent thread. A thread runs one task at a time.
import { parentPort } from 'node:worker_threads';
import type { SpeechRegion } from '../types';
import { diarizeFile, diarizeFromParts, diarizePartFeatures, type DiarizationPartFrames, type DspDiarizationOptions } from './dsp-diarization';
import { detectFile, releaseSileroSessions, type SileroVadOptions } from './silero-vad';
import { buildSpeechSample, measureVoiceFile, type SpeechSampleRequest } from './voice-sample';
import { separateFile, type SeparateFileRequest } from './speech-separation';
import type { ThreadMessage, ThreadTaskName } from './thread-protocol';

const TASKS = {
  async vad(p: { wav: string; options: SileroVadOptions }, onProgress: (f: number) => void, signal: AbortSignal) {
    return detectFile(p.wav, p.options, { onProgress, signal });
  },
  async diarize(p: { wav: string; regions: SpeechRegion[]; options: DspDiarizationOptions & { numSpeakers?: number } }, onProgress: (f: number) => void) {
    const r = diarizeFile(p.wav, p.regions, { ...p.options, onProgress });
    return { labels: r.labels, profiles: r.profiles };
  },
  async diarizeFeatures(p: { wav: string; regions: SpeechRegion[]; spool: string }, onProgress: (f: number) => void, signal: AbortSignal) {
    return diarizePartFeatures(p.wav, p.regions, p.spool, { onProgress, signal });
  },
  async diarizeParts(p: { regions: SpeechRegion[]; parts: DiarizationPartFrames[]; options: DspDiarizationOptions & { numSpeakers?: number } }, _: unknown, signal: AbortSignal) {
    const r = diarizeFromParts(p.regions, p.parts, { ...p.options, signal });
    return { labels: r.labels, profiles: r.profiles };
  },
  async speechSample(p: SpeechSampleRequest) {
    return buildSpeechSample(p);
  },
  async measureVoice(p: { wav: string }) {
    return measureVoiceFile(p.wav);
  },
  async separate(p: SeparateFileRequest, onProgress: (f: number) => void, signal: AbortSignal) {
    await separateFile(p, { onProgress, signal });
  },
} as const satisfies Record<ThreadTaskName, unknown>;

/** The tasks running in this thread, by the parent's id, with what stops them and their end. */
const running = new Map<number, { ac: AbortController; done: Promise<void> }>();

/** Asks a running task to stop at its next safe point (it then posts an AbortError). */
export function cancelTask(id: number): void {
  running.get(id)?.ac.abort('cancel');
}

/** Releases what the tasks hold open (model sessions) before the thread ends. */
export async function closeThread(): Promise<void> {
  // A session is never released under a running model call: the tasks stop at their next safe point first.
  const ends = [...running.values()].map((r) => {
    r.ac.abort('close');
    return r.done;
  });
  await Promise.all(ends);
  await releaseSileroSessions();
}

/** Runs one task and posts its progress and outcome, tagged with the parent's task id. */
export async function runTask(id: number, task: ThreadTaskName, payload: never): Promise<void> {
  const post = (m: ThreadMessage) => parentPort!.postMessage(m);
  let last = 0;
  const onProgress = (fraction: number) => {
    const now = Date.now();
    if (fraction < 1 && now - last < 250) return;
    last = now;
    post({ id, type: 'progress', fraction });
  };
  const ac = new AbortController();
  let end!: () => void;
  running.set(id, { ac, done: new Promise<void>((r) => (end = r)) });
  try {
    const value = await (TASKS[task] as (p: unknown, f: (x: number) => void, s: AbortSignal) => Promise<unknown>)(payload, onProgress, ac.signal);
    post({ id, type: 'result', value });
  } catch (e) {
    const err = e as Error & { code?: string };
    post({ id, type: 'error', name: err?.name ?? 'Error', message: err?.message ?? String(e), code: err?.code, stack: err?.stack });
  } finally {
    running.delete(id);
    end();
  }
}
