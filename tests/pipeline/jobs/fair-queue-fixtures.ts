// Fair-queue scenarios shared by the embedded and the scale-out tests: space A queues a batch of short jobs, then
// space B one; the stage stub only waits STAGE_MS, so a "stage slot" is STAGE_MS long. Starts and ends come from
// the stubs (same machine clock in every process), the push of B's job from the test.
import type { Harness } from '../../server/harness';
import { grantPlan, makeUser } from '../../server/spaces/spaces-fixtures';

export const STAGE = 'merging' as const; // a stage with no successor: one run per project

export interface Mark {
  projectId: string;
  /** queued: in the queue (after the push); taken/released: handed to a worker and given back; start/end: the stage stub. */
  kind: 'queued' | 'taken' | 'released' | 'start' | 'end';
  at: number;
}

export interface Space {
  userId: string;
  spaceId: string;
  projects: string[];
}

let n = 0;
/** A user with its default space on `tier` (null: no subscription, the trial) and `count` project rows. */
export async function spaceWithProjects(h: Harness, tier: string | null, count: number): Promise<Space> {
  n++;
  const u = await makeUser(h, `fair${n}-${Date.now()}@example.com`);
  if (tier) await grantPlan(h, u.id, tier);
  const projects: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = await h.deps.db.one<{ id: string }>(
      `INSERT INTO projects (space_id, user_id, name, src_lang, dst_lang, status) VALUES ($1, $2, $3, 'en', 'es', 'voiceover_done') RETURNING id`,
      [u.defaultSpaceId, u.id, `P${i}`],
    );
    projects.push(r.id);
  }
  return { userId: u.id, spaceId: u.defaultSpaceId, projects };
}

export interface Figures {
  /** B's wait from its push to its start. */
  bWaitMs: number;
  /** B's wait in the queue: from queued to taken by a worker (to its start without 'taken' marks). */
  bQueueWaitMs: number;
  /** How long a job held a worker slot, on average (taken to released: the stub plus the runtime's work; without those marks, the stub's start to end). */
  slotMs: number;
  /** B's wait in stage slots (slotMs each). */
  bWaitSlots: number;
  /** B's wait in stubs' stage lengths (STAGE_MS each). */
  bWaitStubStages: number;
  /** A's jobs taken (or started, without 'taken' marks) after B was queued and before B was (0: B got the first free slot). */
  aWentAheadOfB: number;
  /** A's jobs not yet started when B started (B did not wait for A's queue to drain). */
  aNotStartedAtB: number;
  /** A's most jobs running at once. */
  aMaxConcurrent: number;
  /** All jobs' most running at once. */
  maxConcurrent: number;
}

/** The figures of a run, from the stubs' marks (each job: one start, one end). */
export function figures(marks: Mark[], a: Space, b: Space, stageMs: number): Figures {
  const first = (id: string, kind: Mark['kind']) => marks.find((m) => m.projectId === id && m.kind === kind)?.at;
  const bId = b.projects[0]!;
  const bPushedAt = first(bId, 'queued');
  const bStart = first(bId, 'start');
  if (bStart === undefined || bPushedAt === undefined) throw new Error("B's job was never queued or started");
  const order: Mark['kind'] = marks.some((m) => m.kind === 'taken') ? 'taken' : 'start';
  const bTaken = first(bId, order)!;
  // The first time each A job was taken (a job deferred is taken again later: its first take is what went ahead).
  const aTakes = a.projects.map((id) => first(id, order)).filter((x): x is number => x !== undefined);
  const aStarts = a.projects.map((id) => first(id, 'start')).filter((x): x is number => x !== undefined);
  const aSet = new Set(a.projects);
  const peak = (filter: (m: Mark) => boolean) => {
    // Ends before starts at the same instant: a slot handed over is not two jobs at once.
    const ev = marks.filter((m) => (m.kind === 'start' || m.kind === 'end') && filter(m)).sort((x, y) => x.at - y.at || (x.kind === 'end' ? -1 : 1));
    let cur = 0;
    let max = 0;
    for (const m of ev) {
      cur += m.kind === 'start' ? 1 : -1;
      max = Math.max(max, cur);
    }
    return max;
  };
  const held = a.projects.map((id) => {
    const from = first(id, order);
    const ends = marks.filter((m) => m.projectId === id && m.kind === (order === 'taken' ? 'released' : 'end'));
    return from !== undefined && ends.length > 0 ? ends[ends.length - 1]!.at - from : null;
  }).filter((x): x is number => x !== null);
  const slotMs = Math.round(held.reduce((x, y) => x + y, 0) / Math.max(1, held.length));
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    bWaitMs: bStart - bPushedAt,
    bQueueWaitMs: bTaken - bPushedAt,
    slotMs,
    bWaitSlots: round((bStart - bPushedAt) / Math.max(1, slotMs)),
    bWaitStubStages: round((bStart - bPushedAt) / stageMs),
    aWentAheadOfB: aTakes.filter((t) => t > bPushedAt && t < bTaken).length,
    aNotStartedAtB: a.projects.length - aStarts.filter((t) => t <= bStart).length,
    aMaxConcurrent: peak((m) => aSet.has(m.projectId)),
    maxConcurrent: peak(() => true),
  };
}

/** Resolves once every one of `ids` has ended (bounded). */
export async function allEnded(marks: () => Mark[] | Promise<Mark[]>, ids: string[], timeoutMs: number): Promise<Mark[]> {
  const t0 = Date.now();
  for (;;) {
    const m = await marks();
    const ended = new Set(m.filter((x) => x.kind === 'end').map((x) => x.projectId));
    if (ids.every((id) => ended.has(id))) return m;
    if (Date.now() - t0 > timeoutMs) throw new Error(`${ids.length - ids.filter((id) => ended.has(id)).length} jobs not ended after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
