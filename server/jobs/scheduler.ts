// Fair scheduling of jobs across groups (a subject's owner, e.g. a Teamspace), and the group's limit of
// jobs at once enforced where jobs start. Both modes share the same two rules, kept in PostgreSQL/PGlite (no broker of
// our own):
//  - a ticket at push time: the job's group with its limit, and a priority = the group's live jobs (queued or
//    running). The in-process queue serves the eligible group with the fewest running jobs first (round-robin among
//    equals); BullMQ gets the priority (1 = first), so a group with one job goes ahead of the rest of another group's
//    50-video batch.
//  - an admission at claim time: in one transaction holding the group (JobSubjects.admit), the group's running jobs
//    (heartbeat fresh) are counted and the claim is refused when they fill its limit, whichever worker process asks.
//    The refused job goes back to its queue for a moment (DeferJob: BullMQ moves it to delayed).
// The groups and their limits are the domain's (server/jobs/subjects.ts).
import type { Db } from '../db/index';
import { claimJob, touchQueuedJob, type JobRow } from './repository';
import type { JobGroup, JobSubjects } from './subjects';

/** What the queue needs to know to schedule a job fairly. */
export interface Ticket {
  /** `<kind>:<id>` of the job's group (JobSubjects.group: e.g. 'space:<id>'). */
  group: string;
  /** Jobs of the group running at once (null = no limit but the workers' concurrency). */
  limit: number | null;
  /** The group's live jobs (queued or running) counting this one: 1 is served first. */
  priority: number;
}

/** Thrown by a job processor: the job must wait (its group is at its limit) and go back to its queue after `delayMs`. */
export class DeferJob extends Error {
  override readonly name = 'DeferJob';
  constructor(readonly delayMs: number, readonly group: string) {
    super(`${group} runs as many jobs as its plan allows: the job waits ${delayMs} ms`);
  }
}

export interface SchedulerOptions {
  /** How long a group's limit is kept before it is read again (default 10 s; a plan change applies after it). */
  limitCacheMs?: number;
  /** How long a refused job waits before it is tried again (default 400 ms, plus up to 50% jitter). */
  deferMs?: number;
}

export class FairScheduler<S extends string = string> {
  private readonly limits = new Map<string, { limit: number | null; at: number }>();
  private readonly cacheMs: number;
  private readonly deferMs: number;

  constructor(private readonly db: Db, private readonly subjects: JobSubjects<S>, o: SchedulerOptions = {}) {
    this.cacheMs = o.limitCacheMs ?? 10_000;
    this.deferMs = o.deferMs ?? 400;
  }

  private async limit(group: JobGroup): Promise<number | null> {
    const key = `${group.kind}:${group.id}`;
    const hit = this.limits.get(key);
    if (hit && Date.now() - hit.at < this.cacheMs) return hit.limit;
    const limit = await this.subjects.limit(this.db, group);
    if (this.limits.size > 10_000) this.limits.clear();
    this.limits.set(key, { limit, at: Date.now() });
    return limit;
  }

  /** The ticket of a job being pushed (a subject that is gone gets its own group, no limit: its run cancels it). */
  async ticket(subject: string): Promise<Ticket> {
    const s = await this.subjects.group(this.db, subject);
    if (!s) return { group: `subject:${subject}`, limit: null, priority: 1 };
    return { group: `${s.kind}:${s.id}`, limit: await this.limit(s), priority: Math.max(1, s.live) };
  }

  /**
   * Claims job `id` for `owner` unless its group already runs as many jobs as its limit allows (counted in the
   * database, so across every worker process): the row, null when it is not to run (see claimJob), or a DeferJob
   * to throw. Jobs whose heartbeat is older than `staleSec` (their worker died) do not count.
   */
  async claim(id: string, subject: string, owner: string, staleSec: number, run?: number): Promise<JobRow | null | DeferJob> {
    const s = await this.subjects.group(this.db, subject);
    const limit = s ? await this.limit(s) : null;
    if (!s || limit === null) return claimJob(this.db, id, owner, staleSec, run);
    const group = `${s.kind}:${s.id}`;
    return this.db.tx(async (t) => {
      const running = await this.subjects.admit(t, s, id, staleSec);
      if (running >= limit) {
        // Still wanted: a job that keeps being deferred is not taken for lost by a sweep (stale heartbeat).
        await touchQueuedJob(t, id);
        return new DeferJob(Math.round(this.deferMs * (1 + Math.random() / 2)), group);
      }
      return claimJob(t, id, owner, staleSec, run);
    });
  }
}
