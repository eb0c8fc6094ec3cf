// Chunked transcription planning and the scalable speaker clustering, as pure logic.
import { describe, expect, it } from 'vitest';
import { clusterByBic, statsOf } from '../../../server/engines/builtin/dsp-diarization';
import { planAsrChunks } from '../../../server/domains/projects/stages/transcription';

describe('transcription chunks', () => {
  const regions = (n: number, len = 4, gap = 1) => Array.from({ length: n }, (_, i) => ({ start: i * (len + gap), end: i * (len + gap) + len }));

  it('short speech: one chunk under 20 s, else as many as the CPU slots (the former split of one call)', () => {
    expect(planAsrChunks(regions(4), { durationSec: 100, minParts: 2 })).toHaveLength(1);
    const two = planAsrChunks(regions(12), { durationSec: 100, minParts: 2 });
    expect(two.map((c) => c.length)).toEqual([6, 6]);
    expect(two.flat()).toEqual(regions(12));
  });
  it('long speech: about 180 s of speech per chunk, in order, nothing lost but too-short regions', () => {
    const rs = [...regions(900), { start: 4600, end: 4600.05 }];
    const chunks = planAsrChunks(rs, { durationSec: 5000, minParts: 2 });
    expect(chunks).toHaveLength(20); // 3600 s of speech / 180
    expect(chunks.flat()).toEqual(regions(900));
    for (const c of chunks) expect(c.reduce((s, r) => s + r.end - r.start, 0)).toBeLessThanOrEqual(184);
  });
  it('no usable region: no chunk', () => {
    expect(planAsrChunks([{ start: 1, end: 1.05 }], { durationSec: 10, minParts: 2 })).toEqual([]);
  });
});

describe('clustering at scale', () => {
  function frames(n: number, mean: number, seed: number): Float64Array[] {
    let s = seed >>> 0;
    const rnd = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    return Array.from({ length: n }, () => Float64Array.from({ length: 12 }, () => mean + Math.sqrt(-2 * Math.log(rnd() + 1e-12)) * Math.cos(2 * Math.PI * rnd())));
  }
  it('the windowed path finds the speakers of 1,000 items the exact path finds in a window', () => {
    const items = Array.from({ length: 1000 }, (_, i) => statsOf(frames(120, i % 3 === 0 ? 1.5 : 0, i + 1)));
    const truth = items.map((_, i) => (i % 3 === 0 ? 1 : 0));
    const r = clusterByBic(items);
    expect(r.k).toBe(2);
    const map = new Map<number, number>();
    r.labels.forEach((l, i) => map.set(l, truth[i]!));
    expect(r.labels.every((l, i) => map.get(l) === truth[i])).toBe(true);
    // the first window clustered alone gives the same partition
    const w = clusterByBic(items.slice(0, 300));
    expect(w.labels).toEqual(r.labels.slice(0, 300));
  });
});
