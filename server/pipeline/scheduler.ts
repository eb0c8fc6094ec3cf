// Fair scheduling of pipeline jobs across Teamspaces, and the plan's "jobs at once" per space enforced where jobs
// start. Both modes share the same two rules, kept in PostgreSQL/PGlite (no broker of our own):
//  - a ticket at push time: the job's group (its Teamspace; a project without one, its user) with the plan's limit,
//    and a priority = the group's live jobs (queued or running). The in-process queue serves the eligible group with
//    the fewest running jobs first (round-robin among equals); BullMQ gets the priority (1 = first), so a space
//    with one job goes ahead of the rest of another space's 50-video batch.
//  - an admission at claim time: in one transaction holding the group's row, the group's running jobs (heartbeat
//    fresh) are counted and the claim is refused when they fill the plan's limit, whichever worker process asks.
//    The refused job goes back to its queue for a moment (DeferJob: BullMQ moves it to delayed).
import type { Config } from '../config';
import type { Db } from '../db/index';
import { claimJob, lockGroup, projectScope, runningInGroup, touchQueuedJob, type JobRow } from './repository';

/** What the queue needs to know to schedule a job fairly. */
export interface Ticket {
  /** 'space:<id>' or 'user:<id>' (a project without a Teamspace). */
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

export type Scope = { kind: 'space' | 'user'; id: string };

/**
 * The plan's limit of jobs at once for a group (null: none). The domains register it (billing's jobsAtOnce, through
 * the project stages); without it nothing is limited but the workers' concurrency.
 */
export type LimitOf = (db: Db, scope: Scope, config: Pick<Config, 'api'> | null) => Promise<number | null>;

export interface SchedulerOptions {
  limitOf?: LimitOf;
  /** How long a group's limit is kept before it is read again (default 10 s; a plan change applies after it). */
  limitCacheMs?: number;
  /** How long a refused job waits before it is tried again (default 400 ms, plus up to 50% jitter). */
  deferMs?: number;
}

export class FairScheduler {
  private readonly limits = new Map<string, { limit: number | null; at: number }>();
  private readonly limitOf: LimitOf | null;
  private readonly cacheMs: number;
  private readonly deferMs: number;

  constructor(private readonly db: Db, private readonly config: Pick<Config, 'api'> | null, o: SchedulerOptions = {}) {
    this.limitOf = o.limitOf ?? null;
    this.cacheMs = o.limitCacheMs ?? 10_000;
    this.deferMs = o.deferMs ?? 400;
  }

  private async scopeOf(db: Db, projectId: string): Promise<(Scope & { live: number }) | null> {
    const r = await projectScope(db, projectId);
    if (!r) return null;
    if (r.space_id) return { kind: 'space', id: r.space_id, live: Number(r.live) };
    if (r.user_id) return { kind: 'user', id: r.user_id, live: Number(r.live) };
    return null;
  }

  private async limit(scope: Scope): Promise<number | null> {
    const key = `${scope.kind}:${scope.id}`;
    const hit = this.limits.get(key);
    if (hit && Date.now() - hit.at < this.cacheMs) return hit.limit;
    const limit = this.limitOf ? await this.limitOf(this.db, scope, this.config) : null;
    if (this.limits.size > 10_000) this.limits.clear();
    this.limits.set(key, { limit, at: Date.now() });
    return limit;
  }

  /** The ticket of a job being pushed (a project that is gone gets its own group, no limit: its run cancels it). */
  async ticket(projectId: string): Promise<Ticket> {
    const s = await this.scopeOf(this.db, projectId);
    if (!s) return { group: `project:${projectId}`, limit: null, priority: 1 };
    return { group: `${s.kind}:${s.id}`, limit: await this.limit(s), priority: Math.max(1, s.live) };
  }

  /**
   * Claims job `id` for `owner` unless its group already runs as many jobs as its plan allows (counted in the
   * database, so across every worker process): the row, null when it is not to run (see claimJob), or a DeferJob
   * to throw. Jobs whose heartbeat is older than `staleSec` (their worker died) do not count.
   */
  async claim(id: string, projectId: string, owner: string, staleSec: number, run?: number): Promise<JobRow | null | DeferJob> {
    const s = await this.scopeOf(this.db, projectId);
    const limit = s ? await this.limit(s) : null;
    if (!s || limit === null) return claimJob(this.db, id, owner, staleSec, run);
    const group = `${s.kind}:${s.id}`;
    return this.db.tx(async (t) => {
      await lockGroup(t, s.kind, s.id);
      const running = await runningInGroup(t, s.kind, s.id, id, staleSec);
      if (running >= limit) {
        // Still wanted: a job that keeps being deferred is not taken for lost by a sweep (stale heartbeat).
        await touchQueuedJob(t, id);
        return new DeferJob(Math.round(this.deferMs * (1 + Math.random() / 2)), group);
      }
      return claimJob(t, id, owner, staleSec, run);
    });
  }
}
