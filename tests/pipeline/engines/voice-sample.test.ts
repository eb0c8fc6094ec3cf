// Voice samples are cut range by range from the recording and measured in a worker thread
// (server/engines/builtin/voice-sample.ts): the same samples and profile as in this thread, never the whole file read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSpeechSample, measureVoice, measureVoiceFile, speechSample } from '../../../server/engines/builtin/voice-sample';
import { readWav, writeWav } from '../../../server/media/wav';

const dir = mkdtempSync(join(tmpdir(), 'voice-sample-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';

/** 10 s at 1 kHz whose sample i is i / 10000: every kept sample tells where it came from. */
function rampWav(): string {
  const path = join(dir, 'ramp.wav');
  writeWav(path, [Float32Array.from({ length: 10_000 }, (_, i) => i / 10_000)], 1000);
  return path;
}
const near = (a: Float32Array, b: number[]) => expect(Array.from(a, (x) => Math.round(x * 10_000))).toEqual(b);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('voice samples', () => {
  it('keeps the ranges in order, trimmed to the kept length, with the gaps asked for', async () => {
    const wav = rampWav();
    const out = join(dir, 'trimmed.wav');
    const r = await speechSample({ wav, ranges: [{ start: 1, end: 1.5 }, { start: 4, end: 5 }], keepSec: 0.8, trimToKeep: true, gapSec: 0, out, profileSec: 0 });
    expect(r).toMatchObject({ seconds: 0.8, profile: null });
    near(readWav(out).channelData[0]!, [...range(1000, 1500), ...range(4000, 4300)]);

    const whole = join(dir, 'whole.wav');
    const w = await speechSample({ wav, ranges: [{ start: 1, end: 1.5 }, { start: 4, end: 5 }, { start: 8, end: 9 }], keepSec: 0.8, trimToKeep: false, gapSec: 0.1, out: whole, profileSec: 0 });
    // The second range reaches the limit and is kept whole; the third is dropped. 0.1 s of silence after each.
    expect(w.seconds).toBe(1.7);
    near(readWav(whole).channelData[0]!, [...range(1000, 1500), ...Array(100).fill(0), ...range(4000, 5000), ...Array(100).fill(0)]);
  });

  it('measures the same profile in the worker thread as in this one', async () => {
    const request = { wav: CLIP, ranges: [{ start: 0, end: 30 }], keepSec: 120, trimToKeep: true, gapSec: 0, profileSec: 60 };
    const threaded = await speechSample({ ...request, out: join(dir, 'a.wav') });
    const here = buildSpeechSample({ ...request, out: join(dir, 'b.wav') });
    expect(threaded).toEqual(here);
    expect(threaded.profile!.median_hz).toBeGreaterThan(70);
    expect(threaded.profile!.median_hz).toBeLessThan(300);
    expect(await measureVoice(CLIP)).toEqual(measureVoiceFile(CLIP));
  });

  it('fails clearly on a missing recording', async () => {
    await expect(speechSample({ wav: join(dir, 'none.wav'), ranges: [], keepSec: 1, trimToKeep: true, gapSec: 0, out: join(dir, 'x.wav'), profileSec: 0 })).rejects.toThrow(/none\.wav/);
  });
});
