// A long input in bounded memory: 20 minutes of speech (the LibriVox clips of pocketsphinx-testdata, repeated)
// through the chunked analysis (VAD, segmenting, speaker detection) in a process whose heap is limited to
// 96 MB (--max-old-space-size, which also bounds the worker threads the engines run in); the stages read the
// audio in chunks, so it completes, and the resident memory stays that of a short input.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { wavDurationSec } from '../../../server/media/wav';
import { makeLongSpeechWav } from '../../fixtures/media';
import { ROOT } from '../process-helpers';

const SECONDS = 1200;
const HEAP_MB = 96;

function runChild(wav: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, '--import', 'tsx', 'tests/pipeline/jobs/long-input-child.ts', wav], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ONNXRUNTIME_NODE_INSTALL: 'skip' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a 20-minute input with a low heap limit', () => {
  it('goes through VAD, segmenting and speaker detection', async () => {
    const { wav } = await makeLongSpeechWav(SECONDS);
    expect(wavDurationSec(wav)).toBeCloseTo(SECONDS, 1);
    const r = await runChild(wav);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { regions: number; speechSec: number; labels: number; speakers: number; peakHeapMb: number; maxRssMb: number; heapLimitMb: number };
    expect(out.heapLimitMb).toBeLessThan(HEAP_MB + 64);
    // About 20 minutes of speech found (the clips fill the file but for their 0.7 s gaps), each region labelled.
    expect(out.speechSec).toBeGreaterThan(SECONDS * 0.7);
    expect(out.regions).toBeGreaterThan(80);
    expect(out.labels).toBe(out.regions);
    expect(out.speakers).toBeGreaterThanOrEqual(1);
    // Memory does not grow with the length: about 210 MB resident here (runtime, the VAD model and its threads);
    // reading the 20 minutes whole, as Float32 samples, would add about 80 MB per pass.
    expect(out.maxRssMb).toBeLessThan(300);
  }, 600_000);
});
