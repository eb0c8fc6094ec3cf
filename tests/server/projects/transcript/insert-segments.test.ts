// The transcription's insert of a long transcript (insertSegments) gives the event loop its turn between its
// statements: the embedded database runs each statement on the server's thread, and an hour's transcript written in
// one go held every other request for about half a second (`npm run bench stalls`). Its rows still come back whole
// and in order, with their words and confidences, and a transaction that fails halfway leaves nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertProject } from '../../../../server/domains/projects/repository';
import { insertSegments, segmentsOf, type NewSegment } from '../../../../server/domains/projects/transcript/repository';
import { createHarness, type Harness } from '../../harness';
import { newUser, type TestUser } from '../projects-fixtures';

let h: Harness;
let u: TestUser;

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'insert');
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function newProject(name: string): Promise<string> {
  const p = await insertProject(h.deps.db, {
    spaceId: u.defaultSpaceId, userId: u.id, name, srcLang: 'en', dstLang: 'es', mediaId: null, link: null, numSpeakers: null,
    srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: null, status: 'transcribe_segments_started', progress: 50,
  });
  return p.id;
}

const segments = (n: number): NewSegment[] =>
  Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: 12 }, (_, k) => ({ text: `w${i}_${k}`, start: i * 3 + k * 0.2, end: i * 3 + k * 0.2 + 0.15, confidence: (k % 10) / 10 }));
    return { start: i * 3, end: i * 3 + 2.5, speaker: 'SPEAKER_0', src: words.map((w) => w.text).join(' '), dst: '', status: 'processing', words, asr_confidence: (i % 7) / 7 };
  });

describe('insertSegments', () => {
  it('lets timers run between its statements and returns every row in order', async () => {
    const id = await newProject('Long talk');
    const segs = segments(300);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    let rows;
    try {
      rows = await insertSegments(h.deps.db, id, segs);
    } finally {
      clearInterval(timer);
    }
    // 300 rows go in 12 statements with a turn of the event loop between each two: the timer runs in most of them
    // (none ran while the whole insert held the thread)
    expect(ticks).toBeGreaterThanOrEqual(6);
    expect(rows.map((r) => r.src_text)).toEqual(segs.map((s) => s.src));
    const stored = await segmentsOf(h.deps.db, id);
    expect(stored).toHaveLength(300);
    expect(stored[299]!.words).toEqual(segs[299]!.words);
    expect(stored[13]!.asr_confidence).toBeCloseTo(segs[13]!.asr_confidence!, 6);
    expect(stored.map((r) => r.start_sec)).toEqual(segs.map((s) => s.start));
  });

  it('inside a transaction that fails after the insert, leaves no segment', async () => {
    const id = await newProject('Rolled back');
    await expect(
      h.deps.db.tx(async (t) => {
        await insertSegments(t, id, segments(60));
        throw new Error('the stage failed after its insert');
      }),
    ).rejects.toThrow('the stage failed after its insert');
    expect(await segmentsOf(h.deps.db, id)).toHaveLength(0);
  });
});
