// Writes to many segments at once (the translation's texts, the voiceover's fits, the speakers' labels) go a slice
// of 250 per statement with the event loop's turn between two: the embedded database runs each statement on the
// server's thread, and 10,000 segments in one statement held every other request 0.2-0.3 s (`npm run bench
// stalls`). Every row is still written, and the slices are one transaction: a slice that fails leaves nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProject } from '../../../../server/domains/projects/repository';
import {
  copySegments,
  insertSegments,
  segmentsOf,
  setSegmentFits,
  setSegmentSpeakers,
  setSegmentTranslations,
  type SegmentRow,
} from '../../../../server/domains/projects/transcript/repository';
import { createHarness, type Harness } from '../../harness';
import { newUser, type TestUser } from '../projects-fixtures';

let h: Harness;
let u: TestUser;

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'write-slices');
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function newProject(name: string, n: number): Promise<{ id: string; rows: SegmentRow[] }> {
  const p = await insertProject(h.deps.db, {
    spaceId: u.defaultSpaceId, userId: u.id, name, srcLang: 'en', dstLang: 'es', mediaId: null, link: null, numSpeakers: null,
    srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: null, status: 'translation_done', progress: 100,
  });
  const rows = await insertSegments(h.deps.db, p.id, Array.from({ length: n }, (_, i) => ({
    start: i * 2, end: i * 2 + 1.5, speaker: 'SPEAKER_0', src: `Line ${i}`, dst: '', status: 'processing' as const,
  })));
  return { id: p.id, rows };
}

/** Runs `fn` and counts the ticks of a 1 ms timer meanwhile (none runs inside one statement). */
async function ticking(fn: () => Promise<void>): Promise<number> {
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return ticks;
}

const BAD_ID = 'not-a-uuid';

describe('writes to many segments', () => {
  it('translations: every row written across slices, timers run meanwhile; a bad row in the last slice leaves nothing', async () => {
    const { id, rows } = await newProject('Translations', 800);
    const ticks = await ticking(() =>
      setSegmentTranslations(h.deps.db, id, rows.map((r, i) => ({ id: r.id, dst: `Línea ${i}`, termHits: [{ source: 'line', target: 'línea', applied: true }] })), 'done'),
    );
    expect(ticks).toBeGreaterThanOrEqual(1);
    const after = await segmentsOf(h.deps.db, id);
    expect(after.map((r) => r.dst_text)).toEqual(rows.map((_, i) => `Línea ${i}`));
    expect(after.every((r) => r.status === 'done')).toBe(true);
    expect(after[799]!.term_hits).toEqual([{ source: 'line', target: 'línea', applied: true }]);

    const again = rows.map((r, i) => ({ id: r.id, dst: `Otra ${i}` }));
    again.push({ id: BAD_ID, dst: 'x' });
    await expect(setSegmentTranslations(h.deps.db, id, again, 'updated')).rejects.toThrow();
    const kept = await segmentsOf(h.deps.db, id);
    expect(kept.map((r) => r.dst_text)).toEqual(rows.map((_, i) => `Línea ${i}`));
    expect(kept.every((r) => r.status === 'done')).toBe(true);
  });

  it('fits: every row written across slices; a bad row leaves nothing', async () => {
    const { id, rows } = await newProject('Fits', 600);
    const fits = rows.map((r, i) => ({ id: r.id, speed_factor: 1 + i / 10_000, overflow_sec: i % 3 === 0 ? 0.25 : 0, audio_hash: `h${i}`, status: 'done' as const }));
    const ticks = await ticking(() => setSegmentFits(h.deps.db, id, fits));
    expect(ticks).toBeGreaterThanOrEqual(1);
    const after = await segmentsOf(h.deps.db, id);
    expect(after.map((r) => r.audio_hash)).toEqual(fits.map((f) => f.audio_hash));
    expect(after[599]!.speed_factor).toBeCloseTo(1.0599, 6);
    expect(after[597]!.overflow_sec).toBe(0.25);

    const bad = [...fits.map((f) => ({ ...f, audio_hash: `new-${f.audio_hash}` })), { ...fits[0]!, id: BAD_ID }];
    await expect(setSegmentFits(h.deps.db, id, bad)).rejects.toThrow();
    expect((await segmentsOf(h.deps.db, id)).map((r) => r.audio_hash)).toEqual(fits.map((f) => f.audio_hash));
  });

  it('speakers: every row written across slices, inside the caller\'s transaction too', async () => {
    const { id, rows } = await newProject('Speakers', 700);
    await h.deps.db.tx(async (t) => {
      await setSegmentSpeakers(t, id, rows.map((r, i) => ({ id: r.id, speaker: `SPEAKER_${i % 3}` })));
    });
    const after = await segmentsOf(h.deps.db, id);
    expect(after.map((r) => r.speaker)).toEqual(rows.map((_, i) => `SPEAKER_${i % 3}`));

    // the caller's transaction fails after the write: nothing of it stays
    await expect(
      h.deps.db.tx(async (t) => {
        await setSegmentSpeakers(t, id, rows.map((r) => ({ id: r.id, speaker: 'SPEAKER_9' })));
        throw new Error('later step failed');
      }),
    ).rejects.toThrow('later step failed');
    expect((await segmentsOf(h.deps.db, id)).map((r) => r.speaker)).toEqual(rows.map((_, i) => `SPEAKER_${i % 3}`));
  });

  it('a copy into another project (a new language): every segment across slices, in order', async () => {
    const { id, rows } = await newProject('Copied from', 620);
    await setSegmentTranslations(h.deps.db, id, rows.map((r, i) => ({ id: r.id, dst: `Línea ${i}` })), 'done');
    const to = await insertProject(h.deps.db, {
      spaceId: u.defaultSpaceId, userId: u.id, name: 'Copied to', srcLang: 'en', dstLang: 'fr', mediaId: null, link: null, numSpeakers: null,
      srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: null, status: 'determine_speakers_done', progress: 42,
    });
    await h.deps.db.tx((t) => copySegments(t, id, to.id, 'empty'));
    const copied = await segmentsOf(h.deps.db, to.id);
    expect(copied.map((r) => [r.start_sec, r.end_sec, r.src_text])).toEqual(rows.map((r) => [r.start_sec, r.end_sec, r.src_text]));
    expect(copied.every((r) => r.dst_text === '' && r.status === 'processing')).toBe(true);
    expect(new Set(copied.map((r) => r.id)).size).toBe(620);
    const kept = await insertProject(h.deps.db, {
      spaceId: u.defaultSpaceId, userId: u.id, name: 'Copied with text', srcLang: 'en', dstLang: 'es', mediaId: null, link: null, numSpeakers: null,
      srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: null, status: 'determine_speakers_done', progress: 42,
    });
    await copySegments(h.deps.db, id, kept.id, 'keep');
    expect((await segmentsOf(h.deps.db, kept.id)).map((r) => r.dst_text)).toEqual(rows.map((_, i) => `Línea ${i}`));
  });
});
