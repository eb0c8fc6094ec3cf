// Fair queues, embedded mode (in-process queue, PGlite): space A queues 20 short jobs, then space B one. B's job
// takes the first slot that frees (it does not wait for A's batch), and A never runs more jobs at once than its
// plan allows (the scheduler enforces it, not only the creation of jobs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StageHandler } from '../../../server/domains/projects/pipeline/registry';
import { InProcessQueue, type JobData, type JobProcessor } from '../../../server/jobs/queue';
import { DeferJob, type Ticket } from '../../../server/jobs/scheduler';
import { STAGES, type StageName } from '../../../server/domains/projects/pipeline/stages';
import { createHarness, type Harness } from '../../server/harness';
import { replacePipeline } from '../../server/projects/projects-fixtures';
import { allEnded, figures, spaceWithProjects, STAGE, type Mark } from './fair-queue-fixtures';
import { sleep } from './queue-helpers';

const STAGE_MS = 120;

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h.deps.pipeline?.stop({ force: true });
  await h?.close();
});

function stubs(marks: Mark[]): Record<StageName, StageHandler> {
  const stub: StageHandler = async (ctx) => {
    marks.push({ projectId: ctx.projectId, kind: 'start', at: Date.now() });
    try {
      await sleep(STAGE_MS, ctx.signal);
    } finally {
      marks.push({ projectId: ctx.projectId, kind: 'end', at: Date.now() });
    }
  };
  return Object.fromEntries(STAGES.map((s) => [s, stub])) as Record<StageName, StageHandler>;
}

/** The in-process queue, marking when a job enters it and when it is handed to the pipeline. */
class MarkingQueue extends InProcessQueue<StageName> {
  constructor(private readonly marks: Mark[]) {
    super();
  }
  override async push(job: JobData<StageName>, ticket?: Ticket): Promise<void> {
    await super.push(job, ticket);
    this.marks.push({ projectId: job.subject, kind: 'queued', at: Date.now() });
  }
  override startProcessing(processor: JobProcessor<StageName>, concurrency: number): Promise<void> {
    return super.startProcessing((j) => {
      this.marks.push({ projectId: j.subject, kind: 'taken', at: Date.now() });
      return processor(j).finally(() => this.marks.push({ projectId: j.subject, kind: 'released', at: Date.now() }));
    }, concurrency);
  }
}

async function scenario(concurrency: number, aTier: string, bTier: string | null) {
  const marks: Mark[] = [];
  const queue = new MarkingQueue(marks);
  const p = await replacePipeline(h, { handlers: stubs(marks), continueAfter: async () => null, queue });
  await p.startWorker(concurrency);
  const a = await spaceWithProjects(h, aTier, 20);
  const b = await spaceWithProjects(h, bTier, 1);
  for (const id of a.projects) await p.enqueue(id, STAGE);
  await p.enqueue(b.projects[0]!, STAGE);
  const all = await allEnded(() => marks, [...a.projects, ...b.projects], 30_000);
  await queue.idle();
  await p.stop();
  return { f: figures(all, a, b, STAGE_MS), a, b, p };
}

describe('fair queues (embedded)', () => {
  it("B's single job takes the first slot that frees while A's 20-job batch fills every worker slot", async () => {
    // Two worker slots, A's plan allows 4 at once: A alone would keep both slots for its whole batch.
    const { f } = await scenario(2, 'business', null);
    console.log('[fair-queue embedded, 2 slots, A business]', JSON.stringify(f));
    expect(f.aWentAheadOfB).toBe(0); // B got the first slot that freed: it waited at most one stage slot
    expect(f.aNotStartedAtB).toBeGreaterThanOrEqual(10); // B did not wait for A's queue to drain
    expect(f.aMaxConcurrent).toBe(2);
    expect(f.maxConcurrent).toBeLessThanOrEqual(2);
  });

  it("A never runs more jobs at once than its plan's limit, and B starts at once beside them", async () => {
    // Four worker slots, A on creator (2 at once): two slots stay for others.
    const { f } = await scenario(4, 'creator', null);
    console.log('[fair-queue embedded, 4 slots, A creator]', JSON.stringify(f));
    expect(f.aMaxConcurrent).toBe(2);
    expect(f.aWentAheadOfB).toBe(0);
    expect(f.aNotStartedAtB).toBeGreaterThanOrEqual(10);
    expect(f.maxConcurrent).toBeLessThanOrEqual(3);
  });

  it('the claim itself refuses a job of a space at its limit (whatever queue offered it)', async () => {
    const marks: Mark[] = [];
    const p = await replacePipeline(h, { handlers: stubs(marks), continueAfter: async () => null });
    const s = await spaceWithProjects(h, null, 2); // trial: 1 at once
    const [x, y] = s.projects as [string, string];
    await h.deps.db.query(
      `INSERT INTO pipeline_jobs (id, project_id, stage, state, owner, heartbeat_at) VALUES ($1, $2, $3, 'running', 'elsewhere', now()),
         ($4, $5, $3, 'queued', $6, now())`,
      [`${x}-${STAGE}`, x, STAGE, `${y}-${STAGE}`, y, p.owner],
    );
    const refused = await p.scheduler.claim(`${y}-${STAGE}`, y, p.owner, 30);
    expect(refused).toBeInstanceOf(DeferJob);
    await expect(p.run({ subject: y, stage: STAGE, run: 0 })).rejects.toBeInstanceOf(DeferJob);
    expect(marks).toEqual([]);
    // A running job whose worker died (stale heartbeat) no longer holds the slot.
    await h.deps.db.query(`UPDATE pipeline_jobs SET heartbeat_at = now() - interval '1 hour' WHERE id = $1`, [`${x}-${STAGE}`]);
    const ok = await p.scheduler.claim(`${y}-${STAGE}`, y, p.owner, 30);
    expect(ok).toMatchObject({ id: `${y}-${STAGE}`, state: 'running' });
    await p.stop({ force: true });
  });

  it('a ticket names the space, its plan limit and its live jobs as the priority', async () => {
    const p = await replacePipeline(h, { handlers: stubs([]), continueAfter: async () => null });
    const s = await spaceWithProjects(h, 'creator', 3);
    for (const id of s.projects) await h.deps.db.query(`INSERT INTO pipeline_jobs (id, project_id, stage, state) VALUES ($1, $2, $3, 'queued')`, [`${id}-${STAGE}`, id, STAGE]);
    expect(await p.scheduler.ticket(s.projects[0]!)).toEqual({ group: `space:${s.spaceId}`, limit: 2, priority: 3 });
    const t = await spaceWithProjects(h, null, 1);
    expect(await p.scheduler.ticket(t.projects[0]!)).toEqual({ group: `space:${t.spaceId}`, limit: 1, priority: 1 });
    await p.stop({ force: true });
  });
});
