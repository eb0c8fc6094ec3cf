// The timeline editor's pure logic (issue 15): view (zoom, pan, follow, resolution, chunks, lanes and the blocks in
// view), dragging (bounds from the same-speaker rule, snapping, rounding), speech edges, and the peaks cache.
import { describe, expect, it, vi } from 'vitest';
import { findOverlaps } from '../../contract/segments';
import {
  dragBounds, dragTimes, grabMode, MIN_SEGMENT_SEC, nearest, segmentEdges, speechEdges,
} from '../../src/features/editor/timeline/drag';
import { PeaksCache, rangeMinMax, type PeaksChunk, type PeaksRequest } from '../../src/features/editor/timeline/peaks';
import {
  chunksFor, clampView, fitZoom, follow, inView, lanesOf, MAX_PX_PER_SEC, panBy, PEAKS_CHUNK, pickResolution, tickLabel, tickStep,
  timeToX, xToTime, zoomAt,
} from '../../src/features/editor/timeline/view';

const seg = (id: string, start: number, end: number, speaker = 'A') => ({ id, start, end, speaker });

describe('timeline view', () => {
  it('maps time and pixels, and keeps the view inside the video and the zoom between fit and the maximum', () => {
    const v = { pxPerSec: 100, startSec: 10 };
    expect(timeToX(v, 12.5)).toBe(250);
    expect(xToTime(v, 250)).toBe(12.5);
    expect(fitZoom(100, 1000)).toBe(10);
    expect(fitZoom(1, 1000)).toBe(MAX_PX_PER_SEC);
    expect(clampView({ pxPerSec: 1, startSec: -5 }, 100, 1000)).toEqual({ pxPerSec: 10, startSec: 0 });
    expect(clampView({ pxPerSec: 100, startSec: 99 }, 100, 1000)).toEqual({ pxPerSec: 100, startSec: 90 });
    expect(clampView({ pxPerSec: 10_000, startSec: 0 }, 100, 1000).pxPerSec).toBe(MAX_PX_PER_SEC);
  });

  it('zooms around the pointer (the time under it stays put) and pans by pixels', () => {
    const v = { pxPerSec: 100, startSec: 10 };
    const z = zoomAt(v, 2, 300, 3 * 3600, 1000);
    expect(z.pxPerSec).toBe(200);
    expect(xToTime(z, 300)).toBeCloseTo(xToTime(v, 300), 9);
    const out = zoomAt(v, 1 / 10_000, 300, 3 * 3600, 1000);
    expect(out).toEqual({ pxPerSec: fitZoom(3 * 3600, 1000), startSec: 0 });
    expect(panBy(v, 150, 3 * 3600, 1000).startSec).toBe(11.5);
    expect(panBy(v, -5000, 3 * 3600, 1000).startSec).toBe(0);
  });

  it('follows the playhead: the same view while it is in view, a new page when it leaves', () => {
    const v = { pxPerSec: 100, startSec: 10 }; // 10 s .. 20 s in 1000 px
    expect(follow(v, 15, 100, 1000)).toBe(v);
    expect(follow(v, 19.8, 100, 1000)).toEqual({ pxPerSec: 100, startSec: 18.8 });
    expect(follow(v, 3, 100, 1000)).toEqual({ pxPerSec: 100, startSec: 2 });
    expect(follow(v, 99.9, 100, 1000)).toEqual({ pxPerSec: 100, startSec: 90 });
  });

  it('picks the coarsest peaks resolution with a bucket per pixel, and the chunks of the visible window', () => {
    expect(pickResolution(0.1)).toBe(5);
    expect(pickResolution(5)).toBe(5);
    expect(pickResolution(30)).toBe(50);
    expect(pickResolution(120)).toBe(500);
    expect(pickResolution(400)).toBe(500);
    expect(chunksFor(500, 0, 10, null)).toEqual([0]);
    // 500 buckets/s: chunk k covers [k * 8192 / 500, (k + 1) * 8192 / 500) seconds.
    expect(chunksFor(500, 16, 40, null)).toEqual([0, 1, 2]);
    expect(chunksFor(50, 10_000, 10_020, 540_000)).toEqual([Math.floor((10_000 * 50) / PEAKS_CHUNK)]);
    expect(chunksFor(500, 0, 100, 9000)).toEqual([0, 1]);
  });

  it('makes one lane per speaker (named order first) and finds the blocks in view by binary search', () => {
    const segs = [seg('a', 0, 1, 'S1'), seg('b', 1, 30, 'S2'), seg('c', 2, 3, 'S1'), seg('d', 40, 41, 'S2'), seg('e', 5, 6, 'X')];
    const lanes = lanesOf(segs, ['S2', 'S1', 'S3']);
    expect(lanes.map((l) => [l.speaker, l.items.map((s) => s.id), l.maxLen])).toEqual([
      ['S2', ['b', 'd'], 29], ['S1', ['a', 'c'], 1], ['S3', [], 0], ['X', ['e'], 1],
    ]);
    // b (1-30) reaches into 20-25 although it starts long before.
    expect(inView(lanes[0]!, 20, 25)).toEqual([0, 1]);
    expect(inView(lanes[0]!, 30, 39)).toEqual([1, 1]);
    expect(inView(lanes[0]!, 35, 45)).toEqual([1, 2]);
    expect(inView(lanes[1]!, 1, 2)).toEqual([1, 1]);
    expect(inView(lanes[2]!, 0, 100)).toEqual([0, 0]);
  });

  it('finds the blocks in view among 10,000 segments of a 3-hour video', () => {
    const segs = Array.from({ length: 10_000 }, (_, i) => seg(`s${i}`, i * 1.08, i * 1.08 + 0.9, i % 3 === 0 ? 'B' : 'A'));
    const lanes = lanesOf(segs, ['A', 'B']);
    let mounted = 0;
    for (let k = 0; k < 1000; k++) for (const lane of lanes) {
      const [a, b] = inView(lane, k * 10, k * 10 + 20);
      if (k % 50 === 0) {
        // The same blocks a scan of the whole lane finds: those that reach into the window.
        const hits: number[] = [];
        lane.items.forEach((s, i) => { if (s.start < k * 10 + 20 && s.end > k * 10) hits.push(i); });
        expect([a, b], `window at ${k * 10} s`).toEqual([hits[0], hits.at(-1)! + 1]);
      }
      mounted += b - a;
    }
    expect(mounted / 1000).toBeGreaterThan(15);
    expect(mounted / 1000).toBeLessThan(25);
  });

  it('labels the ruler with a step that leaves room between labels', () => {
    expect(tickStep(100)).toBe(1);
    expect(tickStep(10)).toBe(10);
    expect(tickStep(0.09)).toBe(900);
    expect(tickStep(400)).toBe(0.2);
    expect(tickLabel(3725, 5)).toBe('1:02:05');
    expect(tickLabel(65.5, 0.5)).toBe('1:05.5');
    expect(tickLabel(1.25, 0.05)).toBe('0:01.25');
  });
});

describe('dragging a block', () => {
  it('grabs an edge near it, otherwise the whole block', () => {
    expect(grabMode(2, 100)).toBe('start');
    expect(grabMode(97, 100)).toBe('end');
    expect(grabMode(50, 100)).toBe('move');
    expect(grabMode(4, 12)).toBe('start');
    expect(grabMode(6, 12)).toBe('move');
  });

  it('stays between the previous and next segment of the same speaker (other speakers do not limit it)', () => {
    const lane = lanesOf([seg('p', 0, 2), seg('x', 3, 4), seg('n', 6, 8), seg('o', 2.5, 3.5, 'B')], ['A', 'B'])[0]!;
    const b = dragBounds(lane, seg('x', 3, 4), 10);
    expect(b).toEqual({ lo: 2, hi: 6 });
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'end', deltaSec: 5, bounds: b, snapTargets: [], snapSec: 0 })).toEqual({ start: 3, end: 6, snapped: null });
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'start', deltaSec: -5, bounds: b, snapTargets: [], snapSec: 0 }).start).toBe(2);
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'move', deltaSec: 10, bounds: b, snapTargets: [], snapSec: 0 })).toEqual({ start: 5, end: 6, snapped: null });
    // The result never overlaps a segment of the same speaker (the contract's rule, as the list and the server apply it).
    for (const delta of [-3, -1, 0.5, 2, 4]) {
      for (const mode of ['move', 'start', 'end'] as const) {
        const r = dragTimes({ segment: seg('x', 3, 4), mode, deltaSec: delta, bounds: b, snapTargets: [], snapSec: 0 });
        expect(findOverlaps([seg('p', 0, 2), { ...seg('x', r.start, r.end) }, seg('n', 6, 8)]).size).toBe(0);
      }
    }
    // The end of the video bounds the last segment.
    expect(dragBounds(lane, seg('n', 6, 8), 9).hi).toBe(9);
  });

  it('keeps a segment at least MIN_SEGMENT_SEC long and rounds to the millisecond', () => {
    const b = { lo: 0, hi: 100 };
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'start', deltaSec: 5, bounds: b, snapTargets: [], snapSec: 0 }).start).toBe(4 - MIN_SEGMENT_SEC);
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'end', deltaSec: -5, bounds: b, snapTargets: [], snapSec: 0 }).end).toBe(3 + MIN_SEGMENT_SEC);
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'end', deltaSec: 0.12345678, bounds: b, snapTargets: [], snapSec: 0 }).end).toBe(4.123);
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'move', deltaSec: 1 / 3, bounds: b, snapTargets: [], snapSec: 0 })).toEqual({ start: 3.333, end: 4.333, snapped: null });
  });

  it('snaps an edge to a speech or segment edge within the snap distance', () => {
    const b = { lo: 0, hi: 100 };
    const targets = [2, 5.02, 9];
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'end', deltaSec: 0.95, bounds: b, snapTargets: targets, snapSec: 0.1 })).toEqual({ start: 3, end: 5.02, snapped: 5.02 });
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'end', deltaSec: 0.5, bounds: b, snapTargets: targets, snapSec: 0.1 })).toEqual({ start: 3, end: 4.5, snapped: null });
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'start', deltaSec: -0.93, bounds: b, snapTargets: targets, snapSec: 0.1 })).toEqual({ start: 2, end: 4, snapped: 2 });
    // Moving: whichever edge is closer to a target snaps, the length is kept.
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'move', deltaSec: 4.96, bounds: b, snapTargets: targets, snapSec: 0.1 })).toEqual({ start: 8, end: 9, snapped: 9 });
    // A snap target outside the bounds is not taken.
    expect(dragTimes({ segment: seg('x', 3, 4), mode: 'start', deltaSec: -0.95, bounds: { lo: 2.5, hi: 100 }, snapTargets: targets, snapSec: 0.1 })).toEqual({ start: 2.5, end: 4, snapped: null });
    expect(nearest([1, 2, 3], 2.04, 0.05)).toBe(2);
    expect(nearest([1, 2, 3], 2.5, 0.1)).toBeNull();
    expect(nearest([], 1, 1)).toBeNull();
    expect(segmentEdges([seg('a', 1, 2), seg('b', 5, 7), seg('me', 3, 4)], 'me', 0, 6)).toEqual([1, 2, 5]);
  });

  it('finds speech edges in peaks: rises after quiet and falls back for as long', () => {
    // 50 buckets/s; quiet, speech from 1.0 s to 2.0 s with a 0.06 s dip, quiet, speech from 3.0 s.
    const res = 50;
    const n = 200;
    const pairs = new Int8Array(n * 2);
    const loud = (i: number) => (i >= 50 && i < 100 && !(i >= 70 && i < 73)) || i >= 150;
    for (let i = 0; i < n; i++) {
      const a = loud(i) ? 90 : 2;
      pairs[i * 2] = -a;
      pairs[i * 2 + 1] = a;
    }
    expect(speechEdges(pairs, 0, res, 20)).toEqual([1, 2, 3]);
    // The same buckets later in the track (a chunk starting at bucket 1000).
    expect(speechEdges(pairs, 1000, res, 20)).toEqual([21, 22, 23]);
  });
});

describe('peaks cache', () => {
  const req = (chunk: number | 'all', version = 'v1'): PeaksRequest => ({ projectId: 'p', track: 'source', version, resolution: 50, chunk });
  const chunk = (from: number, values: number[]): PeaksChunk => ({ from, data: new Int8Array(values), total: 100_000 });

  it('asks once per chunk, tells when it lands, keeps errors, and forgets the oldest past its limit', async () => {
    const load = vi.fn(async (r: PeaksRequest) => {
      if (r.chunk === 9) throw new Error('boom');
      return chunk(r.chunk === 'all' ? 0 : r.chunk * PEAKS_CHUNK, [-1, 1]);
    });
    const cache = new PeaksCache(load, 2);
    const landed = vi.fn();
    cache.subscribe(landed);
    expect(cache.get(req(0))).toBeNull();
    expect(cache.get(req(0))).toBeNull();
    expect(load).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(landed).toHaveBeenCalledTimes(1));
    expect(cache.get(req(0))?.from).toBe(0);
    cache.get(req(9));
    await vi.waitFor(() => expect(cache.error(req(9))).toBeInstanceOf(Error));
    cache.get(req(9));
    expect(load).toHaveBeenCalledTimes(2);
    // Another version is another entry; past the limit the least recently used goes.
    cache.get(req(0, 'v2'));
    await vi.waitFor(() => expect(landed).toHaveBeenCalledTimes(3));
    cache.get(req(1));
    await vi.waitFor(() => expect(landed).toHaveBeenCalledTimes(4));
    expect(cache.get(req(0))).toBeNull();
    expect(load).toHaveBeenCalledTimes(5);
  });

  it('reads min/max over buckets spread across chunks, skipping chunks not loaded', () => {
    const c0 = new Int8Array(PEAKS_CHUNK * 2);
    c0[(PEAKS_CHUNK - 1) * 2] = -50;
    c0[(PEAKS_CHUNK - 1) * 2 + 1] = 10;
    const c1 = new Int8Array(PEAKS_CHUNK * 2);
    c1[0] = -3;
    c1[1] = 70;
    const chunks = new Map([[0, { from: 0, data: c0, total: 3 * PEAKS_CHUNK }], [1, { from: PEAKS_CHUNK, data: c1, total: 3 * PEAKS_CHUNK }]]);
    const at = (i: number) => chunks.get(i) ?? null;
    expect(rangeMinMax(at, PEAKS_CHUNK - 1, PEAKS_CHUNK + 1)).toEqual([-50, 70]);
    expect(rangeMinMax(at, 2 * PEAKS_CHUNK, 2 * PEAKS_CHUNK + 5)).toBeNull();
  });
});
