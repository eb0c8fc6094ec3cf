// The RMS envelope of a WAV, read in chunks: the async reader (used beside the API, e.g. by the quality report)
// gives exactly the sync reader's values, and gives the event loop back between chunks while the sync one holds it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { wavRmsEnvelope, wavRmsEnvelopeAsync, writeWav } from '../../../server/media/wav';
import { turnsDuring } from '../../fixtures/event-loop';

const dir = mkdtempSync(join(tmpdir(), 'wav-envelope-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** 60 s at 48 kHz: silence, then a 440 Hz sine of amplitude 0.5 from 20 s to 40 s, then silence. */
function testWav(): string {
  const rate = 48_000;
  const data = new Float32Array(60 * rate);
  for (let i = 20 * rate; i < 40 * rate; i++) data[i] = 0.5 * Math.sin((2 * Math.PI * 440 * i) / rate);
  const path = join(dir, 'tone.wav');
  writeWav(path, [data], rate);
  return path;
}

describe('wavRmsEnvelope', () => {
  it('measures the level per window, the same read sync or async', async () => {
    const wav = testWav();
    const sync = wavRmsEnvelope(wav, 0.1);
    const async_ = await wavRmsEnvelopeAsync(wav, 0.1);
    expect(async_.hopSec).toBe(sync.hopSec);
    expect(Array.from(async_.rms)).toEqual(Array.from(sync.rms));
    expect(sync.rms).toHaveLength(600);
    expect(sync.rms[100]).toBe(0);
    expect(sync.rms[300]).toBeCloseTo(0.5 / Math.SQRT2, 3);
    expect(sync.rms[599]).toBe(0);
  });

  it('the async reader lets other work run between its chunks; the sync one does not', async () => {
    const wav = testWav();
    expect((await turnsDuring(() => wavRmsEnvelope(wav, 0.01))).turns).toBe(0);
    // 60 s at 48 kHz is 44 chunks of 65,536 frames: the loop turns at least once per chunk read.
    expect((await turnsDuring(() => wavRmsEnvelopeAsync(wav, 0.01))).turns).toBeGreaterThanOrEqual(40);
  });
});
