// Built-in background separation (DSP): centre/side split with the centre's speech band (a fixed FIR band
// filter) gated to the speech regions. See server/media/args.ts separationArgs for the filter graph.
// Deterministic; outputs have exactly the input's length; works on mono input (side is then silent).
import { separateVoice } from '../../media/ffmpeg';
import { EngineError, type SeparationEngine } from '../types';
import { which } from './util';

export interface DspSeparationOptions {
  bandHz?: [number, number];
  voiceShare?: number;
  rampSec?: number;
}

export function createDspSeparation(opts: DspSeparationOptions = {}): SeparationEngine {
  return {
    id: 'dsp-separation',
    label: 'Built-in centre/side separation',
    available: () => !!which('ffmpeg'),
    async init() {},
    async separate(inputWav, regions, out, o = {}) {
      const clean = regions
        .filter((r) => Number.isFinite(r.start) && Number.isFinite(r.end) && r.end > r.start)
        .map((r) => ({ start: Math.max(0, r.start), end: r.end }))
        .sort((a, b) => a.start - b.start);
      try {
        await separateVoice(
          {
            input: inputWav,
            voiceOut: out.voice,
            backgroundOut: out.background,
            regions: clean,
            bandHz: opts.bandHz,
            voiceShare: opts.voiceShare,
            rampSec: opts.rampSec,
          },
          { signal: o.signal },
        );
      } catch (e) {
        if ((e as Error).name === 'MediaError') throw new EngineError('failed', `separation failed: ${(e as Error).message}`, { cause: e });
        throw e;
      }
    },
  };
}
