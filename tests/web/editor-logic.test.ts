import { describe, expect, it } from 'vitest';
import { SEGMENT_BATCH_SIZE } from '../../contract/constants';
import type { Segment } from '../../contract/schemas/project';
import { chunk, saveInBatches } from '../../src/features/editor/lib/batching';
import { findOverlaps } from '../../contract/segments';
import { canMergeWithNext, newSegmentSlot, segmentAt, splitSegment, splitText } from '../../src/features/editor/lib/segments';
import { TranscriptStore } from '../../src/features/editor/lib/store';
import { canGenerate, generateHint, isPreparing } from '../../src/features/editor/lib/generate';
import { formatSrtTime as formatTimestamp, parseSrtTimeStrict as parseTimestamp } from '../../contract/timecodes';
import { checkSegmentTimes, formatClock, TIME_FORMAT_ERROR } from '../../src/features/editor/lib/time';
import { barrier } from '../fixtures/barrier';

const seg = (id: string, start: number, end: number, speaker = 'A', dst = `t${id}`): Segment => ({
  id, start, end, speaker, src: { lang: 'en', text: `s${id}` }, dst: { lang: 'es', text: dst }, status: 'done',
});

describe('timestamps hh:mm:ss,mmm', () => {
  it('formats seconds', () => {
    expect(formatTimestamp(0)).toBe('00:00:00,000');
    expect(formatTimestamp(62.345)).toBe('00:01:02,345');
    expect(formatTimestamp(3723.0004)).toBe('01:02:03,000');
    expect(formatTimestamp(1.9996)).toBe('00:00:02,000');
    expect(formatTimestamp(-3)).toBe('00:00:00,000');
    expect(formatTimestamp(100 * 3600)).toBe('100:00:00,000');
  });
  it('parses the exact format only', () => {
    expect(parseTimestamp('00:01:02,345')).toBe(62.345);
    expect(parseTimestamp(' 01:00:00,001 ')).toBe(3600.001);
    for (const bad of ['1:02:03,000', '00:60:00,000', '00:00:60,000', '00:00:01.000', '00:00:01,00', '00:00:01', 'abc', '']) {
      expect(parseTimestamp(bad), bad).toBeNull();
    }
  });
  it('round-trips', () => {
    for (const t of [0, 0.001, 59.999, 61.5, 3599.999, 7322.12]) expect(parseTimestamp(formatTimestamp(t))).toBeCloseTo(t, 3);
  });
  it('validates start/end pairs', () => {
    expect(checkSegmentTimes('00:00:01,000', '00:00:02,000', 10)).toMatchObject({ start: 1, end: 2, startError: null, endError: null });
    expect(checkSegmentTimes('00:00:01', '00:00:02,000').startError).toBe(TIME_FORMAT_ERROR);
    expect(checkSegmentTimes('00:00:03,000', '00:00:02,000').endError).toBe('End must be after start');
    expect(checkSegmentTimes('00:00:02,000', '00:00:02,000').endError).toBe('End must be after start');
    expect(checkSegmentTimes('00:00:01,000', '00:00:12,000', 10).endError).toMatch(/after the end of the video/);
    expect(checkSegmentTimes('00:00:11,000', '00:00:12,000', 10).startError).toMatch(/after the end of the video/);
  });
  it('clock label', () => {
    expect(formatClock(65.4)).toBe('1:05');
    expect(formatClock(3725)).toBe('1:02:05');
  });
});

describe('overlap detection (same speaker only)', () => {
  it('marks the end of the earlier and the start of the later segment', () => {
    const o = findOverlaps([seg('1', 0, 2), seg('2', 1.5, 3), seg('3', 3, 4)]);
    expect(o.get('1')).toEqual(['end']);
    expect(o.get('2')).toEqual(['start']);
    expect(o.has('3')).toBe(false); // touching is not overlapping
  });
  it('ignores overlaps between different speakers', () => {
    expect(findOverlaps([seg('1', 0, 2, 'A'), seg('2', 1, 3, 'B')]).size).toBe(0);
  });
  it('handles containment and chains', () => {
    const o = findOverlaps([seg('a', 0, 10), seg('b', 1, 9), seg('c', 8.5, 12), seg('d', 20, 21)]);
    expect(o.get('a')).toEqual(['end']);
    expect(o.get('b')).toEqual(['start', 'end']);
    expect(o.get('c')).toEqual(['start']);
    expect(o.has('d')).toBe(false);
  });
  it('works regardless of input order', () => {
    const o = findOverlaps([seg('2', 1.5, 3), seg('x', 0, 5, 'B'), seg('1', 0, 2)]);
    expect(o.get('1')).toEqual(['end']);
    expect(o.get('2')).toEqual(['start']);
    expect(o.has('x')).toBe(false);
  });
  it('the store sets and clears the overlap marks, reusing unchanged rows', () => {
    const store = new TranscriptStore([seg('1', 0, 2), seg('2', 1, 3), seg('3', 5, 6)]);
    const list = store.getSnapshot().segments;
    expect(list[0].overlappedTimestamps).toEqual(['end']);
    expect(list[1].overlappedTimestamps).toEqual(['start']);
    expect(list[2].overlappedTimestamps).toBeUndefined();
    store.update('2', { start: 2 });
    const fixed = store.getSnapshot().segments;
    expect(fixed[0].overlappedTimestamps).toBeUndefined();
    expect(fixed[1].overlappedTimestamps).toBeUndefined();
    expect(fixed[2]).toBe(list[2]);
  });
});

describe('batching', () => {
  it(`chunks into ${SEGMENT_BATCH_SIZE}`, () => {
    const items = Array.from({ length: 101 }, (_, i) => i);
    expect(chunk(items).map((c) => c.length)).toEqual([50, 50, 1]);
    expect(chunk([])).toEqual([]);
    expect(() => chunk([1], 0)).toThrow(/positive integer/);
  });
  it('sends chunks in parallel and reports failed chunks', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const sent: number[][] = [];
    const allStarted = barrier(3);
    const r = await saveInBatches(Array.from({ length: 120 }, (_, i) => i), async (c) => {
      sent.push(c);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await allStarted();
      inFlight--;
      if (c[0] === 50) throw new Error('boom');
      return c.map((x) => x * 10);
    });
    expect(sent.map((c) => c.length)).toEqual([50, 50, 20]);
    expect(maxInFlight).toBe(3);
    expect(r.failed).toHaveLength(50);
    expect(r.failed[0]).toBe(50);
    expect(r.saved).toHaveLength(70);
    expect((r.error as Error).message).toBe('boom');
  });
});

describe('segment operations', () => {
  it('splits text at the word nearest the middle', () => {
    expect(splitText('one two three four')).toEqual(['one two', 'three four']);
    expect(splitText('abcdef')).toEqual(['abc', 'def']);
    expect(splitText('hello world', 5)).toEqual(['hello', 'world']);
  });
  it('splits a segment in time and text', () => {
    const { first, second } = splitSegment(seg('1', 2, 6, 'A', 'uno dos tres cuatro'));
    expect(first).toMatchObject({ id: '1', start: 2, end: 4, dst: { text: 'uno dos' } });
    expect(second).toMatchObject({ start: 4, end: 6, speaker: 'A', dst: { text: 'tres cuatro', lang: 'es' } });
    expect(() => splitSegment(seg('1', 2, 6), { atSec: 6 })).toThrow(/inside/);
  });
  it('merges only neighbours of the same speaker', () => {
    const list = [seg('1', 0, 1, 'A'), seg('2', 1, 2, 'A'), seg('3', 2, 3, 'B')];
    expect(canMergeWithNext(list, 0)).toBe(true);
    expect(canMergeWithNext(list, 1)).toBe(false);
    expect(canMergeWithNext(list, 2)).toBe(false);
  });
  it('places a new segment in the gap after the selected one', () => {
    const list = [seg('1', 0, 1), seg('2', 1.5, 2), seg('3', 2.1, 3)];
    expect(newSegmentSlot(list, 0, 10)).toEqual({ start: 1, end: 1.5 });
    expect(newSegmentSlot(list, 2, 4)).toEqual({ start: 3, end: 4 });
    expect(newSegmentSlot([], -1, null)).toEqual({ start: 0, end: 2 });
    expect(newSegmentSlot(list, 1, 10)).toBeNull(); // 0.1 s gap only
    expect(newSegmentSlot(list, 2, 3)).toBeNull(); // at the end of the video
  });
  it('finds the segment under the playhead', () => {
    const list = [seg('1', 0, 1), seg('2', 2, 3), seg('3', 3, 5)];
    expect(segmentAt(list, 0.5)).toBe(0);
    expect(segmentAt(list, 1.5)).toBe(-1);
    expect(segmentAt(list, 3)).toBe(2);
    expect(segmentAt(list, 9)).toBe(-1);
    expect(segmentAt([], 1)).toBe(-1);
  });
});

describe('TranscriptStore', () => {
  it('tracks dirty segments and clears them when edited back', () => {
    const store = new TranscriptStore([seg('1', 0, 1), seg('2', 1, 2)]);
    store.update('1', { dstText: 'changed' });
    expect([...store.getSnapshot().dirty]).toEqual(['1']);
    store.update('1', { dstText: 't1' });
    expect(store.getSnapshot().dirty.size).toBe(0);
    expect(() => store.update('nope', { dstText: 'x' })).toThrow(/Unknown segment/);
  });
  it('takes the server copy after a save, keeps later edits dirty', async () => {
    const store = new TranscriptStore([seg('1', 0, 1), seg('2', 1, 2)]);
    store.update('1', { dstText: 'a' });
    store.update('2', { dstText: 'b' });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const p = store.flush(async (c) => {
      await gate;
      return c.map((s) => ({ ...s, status: 'updated' as const }));
    });
    expect(store.getSnapshot().saving).toBe(true);
    store.update('2', { dstText: 'bb' }); // edited while saving
    release();
    const r = await p;
    expect(r).toMatchObject({ saved: 2, failed: [] });
    const snap = store.getSnapshot();
    expect(snap.saving).toBe(false);
    expect(snap.segments[0]).toMatchObject({ id: '1', status: 'updated', dst: { text: 'a' } });
    expect(snap.segments[1].dst.text).toBe('bb');
    expect([...snap.dirty]).toEqual(['2']);
  });
  it('restores the server copy and flags failed segments', async () => {
    const store = new TranscriptStore([seg('1', 0, 1), seg('2', 1, 2)]);
    store.update('1', { dstText: 'lost' });
    const r = await store.flush(async () => {
      throw new Error('500');
    });
    expect(r.failed).toEqual(['1']);
    const s1 = store.getSnapshot().segments[0];
    expect(s1).toMatchObject({ id: '1', isSavingError: true, dst: { text: 't1' } });
    expect(store.hasUnsaved()).toBe(false);
    store.update('1', { dstText: 'again' });
    expect(store.get('1')!.isSavingError).toBeUndefined();
  });
  it('computes overlaps in the snapshot and keeps identity of untouched rows', () => {
    const store = new TranscriptStore([seg('1', 0, 2), seg('2', 3, 4), seg('3', 5, 6)]);
    const before = store.getSnapshot().segments;
    store.update('2', { start: 1.5 });
    const after = store.getSnapshot().segments;
    expect(after[0].overlappedTimestamps).toEqual(['end']);
    expect(after[1].overlappedTimestamps).toEqual(['start']);
    expect(after[2]).toBe(before[2]);
    store.update('3', { dstText: 'x' });
    expect(store.getSnapshot().segments[0]).toBe(after[0]);
  });
  it('replaces a processing segment when the server reports it done or error', () => {
    const store = new TranscriptStore([{ ...seg('1', 0, 1), status: 'processing' }, seg('2', 1, 2)]);
    store.update('1', { dstText: 'local' });
    store.receive([{ ...seg('1', 0, 1), status: 'error' }, seg('2', 1, 2)]);
    expect(store.get('1')).toMatchObject({ status: 'error', isSavingError: true, dst: { text: 't1' } });
    expect(store.hasUnsaved()).toBe(false);
  });
  it('receive keeps dirty local copies and drops segments deleted on the server', () => {
    const store = new TranscriptStore([seg('1', 0, 1), seg('2', 1, 2)]);
    store.update('1', { dstText: 'mine' });
    store.receive([seg('1', 0, 1, 'A', 'theirs')]);
    expect(store.get('1')!.dst.text).toBe('mine');
    expect(store.get('2')).toBeUndefined();
  });
  it('discard drops local changes', () => {
    const store = new TranscriptStore([seg('1', 0, 1)]);
    store.update('1', { dstText: 'x', start: 0.5 });
    store.discard();
    expect(store.get('1')).toMatchObject({ start: 0, dst: { text: 't1' } });
    expect(store.hasUnsaved()).toBe(false);
  });
});

describe('generate rules', () => {
  const p = (status: Parameters<typeof canGenerate>[0]['status'], changed = 0, video: string | null = null) => ({
    status, changed_segments: changed, translated_video: video,
  });
  it('waits for the translation after voice suggestion', () => {
    expect(isPreparing('voice_suggest_done')).toBe(true);
    expect(isPreparing('voice_suggest_failed')).toBe(true);
    expect(isPreparing('translation_started')).toBe(true);
    expect(isPreparing('translation_done')).toBe(false);
    expect(canGenerate(p('voice_suggest_done'))).toBe(false);
  });
  it('is enabled when there is something to generate', () => {
    expect(canGenerate(p('translation_done'))).toBe(true);
    expect(canGenerate(p('transcript_edited', 3, 'v'))).toBe(true);
    expect(canGenerate(p('voiceover_failed'))).toBe(true);
    expect(canGenerate(p('merging_done', 0, 'v'))).toBe(false);
    expect(canGenerate(p('merging_done', 2, 'v'))).toBe(true);
    expect(canGenerate(p('merging_done', 0, 'v'), 1)).toBe(true);
    expect(canGenerate(p('voiceover_started'))).toBe(false);
    expect(canGenerate(p('merging_started'))).toBe(false);
    expect(canGenerate(p('no_words'))).toBe(false);
  });
  it('says what will happen', () => {
    expect(generateHint(p('translation_done'))).toBe('Voices are generated for every segment.');
    expect(generateHint(p('transcript_edited', 2, 'v'))).toBe('2 changed segments will be voiced again.');
    expect(generateHint(p('merging_done', 0, 'v'))).toBe('Nothing changed since the last generation.');
    expect(generateHint(p('voiceover_started', 0, 'v'))).toBe('Generating the dubbed video…');
  });
});
