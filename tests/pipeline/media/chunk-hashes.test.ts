// The chunk hashes of the merge (issue 30): what each chunk's packets depend on. A change of the voice inside one
// chunk changes that chunk's hash and its neighbours' only where their margins reach it; a change of the gain changes
// them all. The inputs are hashed a megabyte at a time with the event loop served between reads: an hour's inputs
// (about a gigabyte) hashed in one synchronous loop held the API for about a second (918 ms measured).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AAC_FRAME, chunkHashes, chunkPlan, MARGIN_AFTER, MARGIN_BEFORE } from '../../../server/media/chunked-mix';
import { writeGainCurveWav } from '../../../server/media/gate';
import { writeWav } from '../../../server/media/wav';
import { turnsDuring } from '../../fixtures/event-loop';

const SR = 48_000;
const DUR = 60;
/** About 5 s per chunk: twelve chunks in the minute. */
const CHUNK_FRAMES = 235;
const dir = mkdtempSync(join(tmpdir(), 'chunk-hashes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function noise(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out[i] = (x / 2147483648 - 0.5) * 0.2;
  }
  return out;
}

describe('chunkHashes', () => {
  const voice = join(dir, 'voice.wav');
  const voice2 = join(dir, 'voice2.wav');
  const background = join(dir, 'background.wav');
  const gain = join(dir, 'gain.wav');
  const plan = chunkPlan(DUR * SR, CHUNK_FRAMES);

  it('changes the hashes of the chunks a voice edit falls in, and only those', async () => {
    const v = noise(DUR * SR, 1);
    writeWav(voice, [v], SR);
    writeWav(background, [noise(DUR * SR, 2), noise(DUR * SR, 3)], SR);
    await writeGainCurveWav(gain, [{ t: 0, gain: 1 }, { t: DUR, gain: 0.8 }], DUR);
    // an edit of 1 s in the middle of chunk 6
    const c6 = plan[6]!;
    const at = Math.round((c6.start + c6.end) / 2);
    const edited = v.slice();
    for (let i = at; i < at + SR; i++) edited[i] = 0;
    writeWav(voice2, [edited], SR);

    const o = { voice, background, out: '', voiceGain: gain, loudness: { I: -16, TP: -1 } };
    const a = await chunkHashes(o, plan, 1.5);
    const again = await chunkHashes(o, plan, 1.5);
    const b = await chunkHashes({ ...o, voice: voice2 }, plan, 1.5);
    expect(a).toHaveLength(plan.length);
    expect(new Set(a).size).toBe(plan.length);
    expect(again).toEqual(a);
    // the chunks whose encoded window [from, to) overlaps the edit
    const touched = plan.filter((c) => c.from < at + SR && c.to > at).map((c) => c.index);
    expect(touched).toContain(6);
    expect(touched.length).toBeLessThanOrEqual(2);
    const changed = plan.filter((c) => a[c.index] !== b[c.index]).map((c) => c.index);
    expect(changed).toEqual(touched);
    // the margins are what make a neighbour depend on a chunk: a chunk's window reaches MARGIN_BEFORE frames back
    expect(plan[7]!.from).toBe(plan[7]!.start - MARGIN_BEFORE * AAC_FRAME);
    expect(plan[5]!.to).toBe(plan[5]!.end + MARGIN_AFTER * AAC_FRAME);
    // another gain: every chunk is encoded anew
    const g = await chunkHashes(o, plan, 0.5);
    expect(g.filter((h, i) => h === a[i])).toEqual([]);
  });

  it('gives the event loop back between its reads', async () => {
    const o = { voice, background, out: '', voiceGain: gain, loudness: { I: -16, TP: -1 } };
    // 60 s of 16-bit audio: 5.8 MB of voice and 11.5 MB of background, read in pieces of at most 1 MB per chunk
    const { turns, value } = await turnsDuring(() => chunkHashes(o, plan, 1.5));
    expect(value).toHaveLength(plan.length);
    expect(turns).toBeGreaterThanOrEqual(2 * plan.length);
  });
});
