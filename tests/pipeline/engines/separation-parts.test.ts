// A long input is separated in two parts at once, a thread each (issue 30: about half the separation's time on two
// cores). Each block learns the music's centre/side ratio from itself and the RATIO_PAST_BLOCKS blocks before it, and
// a later part first runs those blocks for that only: the parts write the very bytes one run writes. Real speech
// (LibriVox) over real music (drascula-music), stereo, 160 s.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createDspSeparation } from '../../../server/engines/builtin/dsp-separation';
import {
  PARTS_FROM_SEC, RATIO_PAST_BLOCKS, prepareSeparationOutputs, separateFile, separationParts,
} from '../../../server/engines/builtin/speech-separation';
import { threadCounts } from '../../../server/engines/builtin/threads';
import { runToolOutput } from '../../../server/media/ffmpeg';
import { readWavInfo } from '../../../server/media/wav';
import { librivoxWav, tempDir } from '../../fixtures/media';

const SECONDS = 160;
const MUSIC = '/usr/share/scummvm/drascula/audio/track2.ogg';
const dir = tempDir('separation-parts-');
const input = join(dir, 'mix.wav');
// speech regions: 3.7 s of every 4.2 s (the reading loops under them)
const regions = Array.from({ length: Math.floor(SECONDS / 4.2) }, (_, i) => ({ start: i * 4.2 + 0.3, end: i * 4.2 + 4 }));

beforeAll(async () => {
  await runToolOutput('ffmpeg', [
    '-nostdin', '-loglevel', 'error', '-y',
    '-stream_loop', '-1', '-i', librivoxWav('0870'), '-stream_loop', '-1', '-i', MUSIC,
    '-filter_complex', '[0:a]aresample=48000,aformat=channel_layouts=stereo[v];[1:a]aresample=48000,volume=0.3[m];[v][m]amix=inputs=2:duration=first:normalize=0',
    '-t', String(SECONDS), '-ar', '48000', '-ac', '2', '-c:a', 'pcm_s16le', input,
  ], {});
}, 60_000);

describe('separation in parts', () => {
  it('splits a long input on the block grid, each later part preceded by the blocks its ratio needs', () => {
    expect(SECONDS).toBeGreaterThanOrEqual(PARTS_FROM_SEC);
    const frames = readWavInfo(input).frames;
    const parts = separationParts({ input, voice: join(dir, 'v.wav'), voiceSampleRate: 16000 });
    expect(parts).toHaveLength(2);
    expect(parts[0]).toMatchObject({ warmup: 0, from: 0 });
    expect(parts[1]!.from).toBe(parts[0]!.to);
    expect(parts[1]!.to).toBe(frames);
    // the warm-up is RATIO_PAST_BLOCKS whole blocks of about 20 s, and the split is on their grid
    const block = (parts[1]!.from - parts[1]!.warmup) / RATIO_PAST_BLOCKS;
    expect(block / 48000).toBeGreaterThan(19);
    expect(block / 48000).toBeLessThan(21);
    expect(parts[1]!.from % block).toBe(0);
    expect(parts[1]!.warmup % block).toBe(0);
    // a short input is one run
    expect(separationParts({ input: librivoxWav('0870') })).toEqual([{ warmup: 0, from: 0, to: readWavInfo(librivoxWav('0870')).frames }]);
  });

  it('writes the bytes one run writes, in parts and through the engine’s two threads', { timeout: 120_000 }, async () => {
    const whole = { input, regions, background: join(dir, 'bg-whole.wav'), voice: join(dir, 'v-whole.wav'), voiceSampleRate: 16000 };
    await separateFile(whole);
    const inParts = { ...whole, background: join(dir, 'bg-parts.wav'), voice: join(dir, 'v-parts.wav') };
    prepareSeparationOutputs(inParts);
    // the later part first: the parts are independent of each other's order
    for (const part of separationParts(inParts).reverse()) await separateFile({ ...inParts, part });
    expect(readFileSync(inParts.background).equals(readFileSync(whole.background))).toBe(true);
    expect(readFileSync(inParts.voice).equals(readFileSync(whole.voice))).toBe(true);

    const progress: number[] = [];
    const out = { background: join(dir, 'bg-engine.wav'), voice: join(dir, 'v-engine.wav'), voiceSampleRate: 16000 };
    await createDspSeparation().separate(input, regions, out, { onProgress: (f) => progress.push(f) });
    expect(readFileSync(out.background).equals(readFileSync(whole.background))).toBe(true);
    expect(readFileSync(out.voice).equals(readFileSync(whole.voice))).toBe(true);
    expect(progress.at(-1)).toBeCloseTo(1, 6);
    expect(progress.every((f) => f >= 0 && f <= 1 + 1e-9)).toBe(true);
    // the speech was moved: the voice estimate is not silence
    expect(readFileSync(out.voice).subarray(44).some((b) => b !== 0)).toBe(true);
    // the parts' threads end with them (a long recognition follows: they would hold their memory through it)
    for (let i = 0; i < 100 && threadCounts().plain > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(threadCounts().plain).toBe(0);
  });

  it('stops both threads on cancel, and the error is the cancel', { timeout: 60_000 }, async () => {
    const ac = new AbortController();
    const out = { background: join(dir, 'bg-cancel.wav'), voice: join(dir, 'v-cancel.wav'), voiceSampleRate: 16000 };
    const run = createDspSeparation().separate(input, regions, out, { signal: ac.signal, onProgress: (f) => f > 0.1 && ac.abort() });
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
  });
});
