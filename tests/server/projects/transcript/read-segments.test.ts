// The whole transcript's read (segmentsOf without ids) goes in pages with the event loop's turn between two: the
// embedded database runs each statement on the server's thread, and 10,000 segments read in one statement held
// every other request for ~0.15-0.25 s (`npm run bench stalls`). The pages must add up to the rows in the order one
// statement gives (ties on start and end included), and to one version of the transcript when a write comes between
// two pages: the read starts again, and after three tries one statement reads it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../../server/db/index';
import { insertProject } from '../../../../server/domains/projects/repository';
import { insertSegments, segmentsOf, updateSegment } from '../../../../server/domains/projects/transcript/repository';
import { createHarness, type Harness } from '../../harness';
import { newUser, type TestUser } from '../projects-fixtures';

let h: Harness;
let u: TestUser;

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'read-pages');
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function newProject(name: string, n: number): Promise<string> {
  const p = await insertProject(h.deps.db, {
    spaceId: u.defaultSpaceId, userId: u.id, name, srcLang: 'en', dstLang: 'es', mediaId: null, link: null, numSpeakers: null,
    srcSrtMediaId: null, dstSrtMediaId: null, glossaryId: null, ttsProvider: null, status: 'translation_done', progress: 100,
  });
  // groups of three share a start, pairs of those share an end too: the order falls to end, then creation, then id
  await insertSegments(h.deps.db, p.id, Array.from({ length: n }, (_, i) => ({
    start: Math.floor(i / 3) * 2, end: Math.floor(i / 3) * 2 + (i % 3 === 2 ? 1.5 : 1), speaker: `SPEAKER_${i % 2}`,
    src: `Line ${i}`, dst: `Línea ${i}`, status: 'done' as const,
  })));
  return p.id;
}

/** The order one statement gives. */
async function oneStatement(projectId: string): Promise<string[]> {
  const rows = await h.deps.db.query<{ id: string }>(
    'SELECT id FROM segments WHERE project_id = $1 ORDER BY start_sec, end_sec, created_at, id',
    [projectId],
  );
  return rows.map((r) => r.id);
}

/** The database, with `before` run ahead of every page statement of a whole read (counted). */
function withHook(before: (page: number) => Promise<void>): { db: Db; pages: () => number } {
  const db = h.deps.db;
  let pages = 0;
  const hooked: Db = {
    ...db,
    kind: db.kind,
    state: db.state,
    changes: db.changes,
    async query<T>(text: string, params?: unknown[]) {
      if (/^select/i.test(text) && /from "segments"/i.test(text) && /limit \$\d+/i.test(text)) await before(++pages);
      return db.query<T>(text, params as never);
    },
  };
  return { db: hooked, pages: () => pages };
}

describe('segmentsOf (the whole transcript)', () => {
  it('reads in pages that add up to one statement\'s rows and order, and lets timers run meanwhile', async () => {
    const id = await newProject('Paged', 1_234);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    let rows;
    try {
      rows = await segmentsOf(h.deps.db, id);
    } finally {
      clearInterval(timer);
    }
    expect(rows.map((r) => r.id)).toEqual(await oneStatement(id));
    expect(new Set(rows.map((r) => r.id)).size).toBe(1_234);
    expect(rows[1_233]!.src_text).toBe('Line 1233');
    // three pages of 500, with a turn between two: the timer ran (none runs inside one statement)
    expect(ticks).toBeGreaterThanOrEqual(1);
    const { db, pages } = withHook(async () => {});
    await segmentsOf(db, id);
    expect(pages()).toBe(3);
  });

  it('a write between two pages starts the read again: one version, no segment twice', async () => {
    const id = await newProject('Moved', 1_100);
    const before = await segmentsOf(h.deps.db, id);
    const first = before[0]!;
    // after the first page, the first segment (already read) moves to the very end
    const { db, pages } = withHook(async (page) => {
      if (page === 2) await updateSegment(h.deps.db, id, first.id, { start_sec: 5_000, end_sec: 5_001 });
    });
    const rows = await segmentsOf(db, id);
    expect(rows).toHaveLength(1_100);
    expect(rows.filter((r) => r.id === first.id)).toHaveLength(1);
    expect(rows.at(-1)!.id).toBe(first.id);
    expect(rows.at(-1)!.start_sec).toBe(5_000);
    expect(rows.map((r) => r.id)).toEqual(await oneStatement(id));
    // three pages, then three again
    expect(pages()).toBe(6);
  });

  it('when writes keep coming between pages, one statement reads it after three tries', async () => {
    const id = await newProject('Busy', 1_050);
    const ids = (await segmentsOf(h.deps.db, id)).map((r) => r.id);
    let moves = 0;
    const { db, pages } = withHook(async (page) => {
      // every second page statement of a try, the next segment moves to the end
      if (page % 3 === 2) await updateSegment(h.deps.db, id, ids[moves]!, { start_sec: 6_000 + moves++, end_sec: 6_100 });
    });
    const rows = await segmentsOf(db, id);
    expect(moves).toBe(3);
    expect(pages()).toBe(9);
    expect(rows).toHaveLength(1_050);
    expect(new Set(rows.map((r) => r.id)).size).toBe(1_050);
    expect(rows.map((r) => r.id)).toEqual(await oneStatement(id));
  });

  it('only some segments (ids): one statement, in order', async () => {
    const id = await newProject('Some', 600);
    const all = await segmentsOf(h.deps.db, id);
    const pick = [all[599]!.id, all[3]!.id, all[250]!.id];
    const rows = await segmentsOf(h.deps.db, id, pick);
    expect(rows.map((r) => r.id)).toEqual([all[3]!.id, all[250]!.id, all[599]!.id]);
  });
});
