// Built-in background separation (DSP) that follows the speech: a per-cell gain over the centre channel's
// short-time spectrum (./speech-separation.ts) moves the speech to the voice estimate; the background is the input
// minus it on both channels (stereo kept, no band cut). Runs in worker threads (seconds of CPU for an hour of
// audio must not stall the API), a long input in two parts at once. Deterministic; the background has exactly the
// input's length; works on mono input.
import { EngineError, type SeparationEngine, type SpeechRegion } from '../types';
import { prepareSeparationOutputs, separationParts, type SeparateFileRequest, type SpeechSeparationOptions } from './speech-separation';
import { runInThread, runInThreads } from './threads';

export type DspSeparationOptions = SpeechSeparationOptions;

/** The built-in engine, plus what a benchmark needs: the same gains applied to other signals (true stems). */
export interface DspSeparationEngine extends SeparationEngine {
  /**
   * Separates `input` and writes, for each of `stems` (WAV files of the input's length and rate), the part of it
   * that stays in the background (`stemsOut`): the decomposition of the background into the stems' parts.
   */
  decompose(input: string, regions: SpeechRegion[], stems: string[], stemsOut: string[], background: string): Promise<void>;
}

function cleanRegions(regions: readonly SpeechRegion[]): SpeechRegion[] {
  return regions
    .filter((r) => Number.isFinite(r.start) && Number.isFinite(r.end) && r.end > r.start)
    .map((r) => ({ start: Math.max(0, r.start), end: r.end }))
    .sort((a, b) => a.start - b.start);
}

export function createDspSeparation(opts: DspSeparationOptions = {}): DspSeparationEngine {
  // A long input is separated in two parts at once, a thread each (2 cores: about half the time); see separationParts.
  const run = async (req: SeparateFileRequest, o: { signal?: AbortSignal; onProgress?: (f: number) => void } = {}) => {
    try {
      const parts = separationParts(req);
      if (parts.length === 1) {
        await runInThread<void>('separate', req, o);
        return;
      }
      prepareSeparationOutputs(req);
      const done = parts.map(() => 0);
      const progress = (i: number) => (f: number) => {
        done[i] = f * (parts[i]!.to - parts[i]!.from);
        o.onProgress?.(done.reduce((a, b) => a + b, 0) / parts.at(-1)!.to);
      };
      // the parts' threads end with them: a long recognition follows, which they would only hold memory through
      await runInThreads<void>(parts.map((part, i) => ({ task: 'separate', payload: { ...req, part }, onProgress: progress(i) })), o.signal);
    } catch (e) {
      const err = e as Error & { code?: string };
      if (err.name === 'AbortError' || o.signal?.aborted) throw e;
      if (err.name === 'MediaError') throw new EngineError('bad_input', `separation failed: ${err.message}`, { cause: e });
      throw new EngineError('failed', `separation failed: ${err.message}`, { cause: e });
    }
  };
  return {
    id: 'dsp-separation',
    label: 'Built-in speech-following separation',
    available: () => true,
    async init() {},
    async separate(inputWav, regions, out, o = {}) {
      await run(
        { input: inputWav, regions: cleanRegions(regions), background: out.background, voice: out.voice, voiceSampleRate: out.voiceSampleRate, options: opts },
        { signal: o.signal, onProgress: o.onProgress },
      );
    },
    async decompose(input, regions, stems, stemsOut, background) {
      await run({ input, regions: cleanRegions(regions), background, options: opts, also: stems, alsoOut: stemsOut });
    },
  };
}
