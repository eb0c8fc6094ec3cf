// The pipeline runtime: queues stages, runs them with a heartbeat and an AbortSignal, writes the status
// of each outcome through setStatus, queues the next stage from the ON_DONE table, and sweeps jobs whose
// worker died (at start-up and periodically) so that nothing stays *_started.
import { withToolLimits, type ToolLimits } from '../media/run';
import { mkdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PROJECT_STATUSES, type ProjectStatus } from '../../contract/statuses';
import type { Config } from '../config';
import type { Db } from '../db/index';
import { isAbortError, isDiskFull, MediaError } from '../media/errors';
import { EngineError } from '../engines/types';
import type { Storage } from '../storage/types';
import type { JobData, JobQueue } from './queue';
import { DeferJob, FairScheduler, type LimitOf, type SchedulerOptions } from './scheduler';
import * as jobs from './repository';
import { ON_DONE, setProgress, setStatus, SIDE_TASKS, STAGE_STATUS, StageFailure, stageToResume, type StageName, type StageStatuses } from './stages';
import type { EngineRegistry } from '../engines/registry';

/** Stages whose failure does not stop the pipeline (spec: voice_suggest_failed is not a failure status). */
export const NON_FATAL: ReadonlySet<StageName> = new Set<StageName>(['voice_suggest']);

export interface PipelineDeps {
  config: Config;
  db: Db;
  storage: Storage;
  engines: EngineRegistry;
}

/** What a stage handler gets. The domains that register handlers load what they work on from projectId. */
export interface StageContext {
  deps: PipelineDeps;
  projectId: string;
  stage: StageName;
  signal: AbortSignal;
  /** Scratch folder of this run, removed afterwards. */
  tmp: string;
  log: (msg: string, meta?: Record<string, unknown>) => void;
  /**
   * Share of the stage's work done (0..1): moves the project's progress between the stage's started and
   * done percentages and reaches the live event stream (written at most about once a second).
   */
  progress?: (fraction: number) => void;
  /** Queues a stage of another project (a stage that makes projects, e.g. the languages of a multi-language create). */
  enqueue?: (projectId: string, stage: StageName) => Promise<boolean>;
}

export type StageHandler = (ctx: StageContext) => Promise<void>;

/** Called after a stage failed and its failure was recorded (side tasks with a state of their own). */
export type StageFailureHook = (db: Db, projectId: string, message: string, code: string) => Promise<void>;

/**
 * What the domains register with the pipeline: exactly one handler per stage (the Record type makes a missing
 * one a compile error) and optional failure hooks. The pipeline itself knows no domain.
 */
export interface StageRegistry {
  handlers: Record<StageName, StageHandler>;
  onFailed?: Partial<Record<StageName, StageFailureHook>>;
  /**
   * Where a project goes on when the graph stops (ON_DONE null), run in the transaction that records the stage
   * done: a stage name queues it (e.g. a demo project is dubbed right after its translation), null stops there.
   */
  continueAfter?: (db: Db, projectId: string, stage: StageName) => Promise<StageName | null>;
  /** The plan's jobs at once of a Teamspace, enforced by the scheduler (none registered: no limit per space). */
  jobsAtOnce?: LimitOf;
}

export interface PipelineOptions extends StageRegistry {
  /** The app's CPU slots and tool niceness (AppDeps.tools); without them a job's tools run unbounded. */
  tools?: ToolLimits;
  /** Heartbeat period of running and held jobs (default 5 s). */
  heartbeatMs?: number;
  /** A job whose heartbeat is older than this is taken over (default 30 s). */
  staleSec?: number;
  /** Period of the sweep while processing (default 30 s). */
  sweepEveryMs?: number;
  /** Process identity written on the jobs it holds. */
  owner?: string;
  /** Least time between two in-stage progress writes (default 1 s). */
  progressEveryMs?: number;
  log?: (msg: string, meta?: Record<string, unknown>) => void;
  /** Fair scheduling and the plan's jobs at once per space (scheduler.ts): limits and retry delay. */
  scheduler?: SchedulerOptions;
  /** Called after each job (tests, benchmarks): stage, outcome, seconds. */
  onJobEnd?: (e: { projectId: string; stage: StageName; outcome: 'done' | 'failed' | 'cancelled' | 'skipped'; seconds: number; error?: string }) => void;
}

export class Pipeline {
  readonly owner: string;
  private readonly heartbeatMs: number;
  private readonly staleSec: number;
  private readonly sweepEveryMs: number;
  private readonly controllers = new Map<string, { projectId: string; ac: AbortController; hb?: NodeJS.Timeout }>();
  private crashed = false;
  private timers: NodeJS.Timeout[] = [];
  private processing = false;
  private stopped = false;
  private readonly log: (msg: string, meta?: Record<string, unknown>) => void;
  private readonly progressEveryMs: number;
  private readonly stopHooks: Array<() => Promise<void>> = [];
  readonly scheduler: FairScheduler;

  constructor(
    readonly deps: PipelineDeps,
    readonly queue: JobQueue,
    private readonly o: PipelineOptions,
  ) {
    this.owner = o.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.heartbeatMs = o.heartbeatMs ?? 5000;
    this.staleSec = o.staleSec ?? 30;
    this.sweepEveryMs = o.sweepEveryMs ?? 30_000;
    this.progressEveryMs = o.progressEveryMs ?? 1000;
    this.log = o.log ?? ((msg, meta) => console.error(`[pipeline] ${msg}`, meta ?? ''));
    this.scheduler = new FairScheduler(deps.db, deps.config, { limitOf: o.jobsAtOnce, ...o.scheduler });
    // The owner heartbeat keeps jobs held by this process (queued in memory or running) fresh.
    const queuedToo = queue.kind === 'memory';
    this.timers.push(setInterval(() => void jobs.beatOwner(deps.db, this.owner, { queuedToo }).catch(() => {}), this.heartbeatMs).unref());
  }

  /**
   * Queues `stage` for a project (after the caller's transaction committed). Returns false when the same
   * job is already queued or running (double enqueue is harmless).
   */
  async enqueue(projectId: string, stage: StageName): Promise<boolean> {
    const run = await jobs.upsertQueuedJob(this.deps.db, projectId, stage, this.owner, this.staleSec);
    if (run !== null) await this.push({ projectId, stage, run });
    return run !== null;
  }

  /**
   * Pushes a job recorded in the database. When the queue cannot take it (Redis down), the row stays queued
   * and the sweep pushes it again once its heartbeat is stale: nothing is lost and the caller does not hang.
   */
  private async push(job: JobData): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          // Its space and place (a ticket that cannot be read leaves the job unscheduled, not lost).
          const ticket = await this.scheduler.ticket(job.projectId).catch(() => undefined);
          await this.queue.push(job, ticket);
        })(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('the queue did not answer in 5 s')), 5000);
        }),
      ]);
    } catch (e) {
      this.log('queue push failed: the sweep will queue the job again', { jobId: jobs.jobId(job.projectId, job.stage), ...job, error: e instanceof Error ? e.message : String(e) });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Asks every queued or running stage of the project to stop (here and, through heartbeats, elsewhere). Given a
   * transaction, the request is part of it and the stages here stop once it commits.
   */
  async cancel(projectId: string, db: Db = this.deps.db): Promise<void> {
    await jobs.requestCancel(db, projectId);
    db.afterCommit(() => {
      for (const { projectId: p, ac } of this.controllers.values()) if (p === projectId) ac.abort('cancel');
    });
  }

  /** Starts processing jobs (embedded worker or `npm run worker`), after a start-up sweep. */
  async startWorker(concurrency = this.deps.config.worker.concurrency): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    await this.queue.startProcessing((j) => this.run(j), concurrency);
    // With the embedded database only this process can hold jobs: take over everything at once.
    await this.sweep(this.deps.db.kind === 'pglite' ? 0 : undefined);
    this.timers.push(
      setInterval(() => {
        void this.sweep().catch((e) => this.log('sweep failed', { error: String(e) }));
      }, this.sweepEveryMs).unref(),
    );
  }

  /**
   * Requeues work whose worker died: live jobs with a stale heartbeat, and projects left in a status that
   * needs a stage with no live job. Returns how many jobs it queued.
   */
  async sweep(staleSec = this.staleSec): Promise<number> {
    const db = this.deps.db;
    let n = 0;
    const taken = await jobs.takeOverStaleJobs(db, this.owner, staleSec);
    for (const j of taken) {
      this.log('requeueing stale stage', { jobId: j.id, projectId: j.project_id, stage: j.stage });
      await this.push({ projectId: j.project_id, stage: j.stage, run: Number(j.queued_runs) });
      n++;
    }
    // A job row queued by this process that its queue lost is pushed again, so no project waits for a job nobody
    // will run (other processes' rows are taken over above once their heartbeat is stale; this process's own rows
    // never are). The in-process queue says what it holds; a shared queue (BullMQ) is asked again after a while:
    // the same run number is the same queue id, which it ignores while it still has the job.
    const own = await jobs.ownQueuedJobs(db, this.owner, this.queue.holds ? Math.max(staleSec, 1) : Math.max(staleSec * 6, 30));
    for (const j of own) {
      if (this.queue.holds?.(j.id)) continue;
      if (this.queue.holds) this.log('requeueing a queued stage the queue lost', { jobId: j.id, projectId: j.project_id, stage: j.stage });
      await this.push({ projectId: j.project_id, stage: j.stage, run: Number(j.queued_runs) });
      if (this.queue.holds) n++;
    }
    await jobs.closeCancelledJobs(db, Math.max(staleSec, 1));
    // A non-fatal stage that failed (not cancelled) goes on to its next stage, as when it failed: a project left
    // there with no live job (the next stage's queueing lost) is resumed from it.
    const afterNonFatal = new Map<string, StageName | null>([...NON_FATAL].map((s) => [STAGE_STATUS[s]?.failed ?? '', ON_DONE[s]]));
    const resumable = PROJECT_STATUSES.filter((s) => stageToResume(s) !== null || afterNonFatal.get(s));
    for (const p of await jobs.orphanedProjects(db, resumable, staleSec)) {
      const stage = stageToResume(p.status as never) ?? (p.error_code === 'cancelled' ? null : (afterNonFatal.get(p.status) ?? null));
      if (!stage) continue;
      this.log('resuming project', { jobId: jobs.jobId(p.id, stage), projectId: p.id, status: p.status, stage });
      if (await this.enqueue(p.id, stage)) n++;
    }
    return n;
  }

  /**
   * Runs one job: claim, heartbeat, handler, status, next stage. Never throws for a stage failure; throws DeferJob
   * (for the queue) when the job's space is at its plan's limit of jobs at once.
   */
  run(job: JobData): Promise<void> {
    // The job's tools take the app's CPU slots and niceness (server/media/run.ts), however deep they start.
    return this.o.tools ? withToolLimits(this.o.tools, () => this.runJob(job)) : this.runJob(job);
  }

  private async runJob(job: JobData): Promise<void> {
    const { projectId, stage } = job;
    const db = this.deps.db;
    const id = jobs.jobId(projectId, stage);
    const t0 = Date.now();
    const end = (outcome: 'done' | 'failed' | 'cancelled' | 'skipped', error?: string) =>
      this.o.onJobEnd?.({ projectId, stage, outcome, seconds: (Date.now() - t0) / 1000, error });
    // Every line about this job carries its id.
    const log = (msg: string, meta?: Record<string, unknown>) => this.log(msg, { jobId: id, projectId, stage, ...meta });
    // The claim is refused while the project's space runs as many jobs as its plan allows (any worker): the
    // queue takes the job back and offers it again shortly (DeferJob), other spaces' jobs go first meanwhile.
    const claimed = await this.scheduler.claim(id, projectId, this.owner, this.staleSec, job.run);
    if (claimed instanceof DeferJob) throw claimed;
    if (!claimed) return end('skipped');
    if (!(await jobs.projectExists(db, projectId))) {
      await jobs.finishJob(db, id, this.owner, 'cancelled');
      return end('cancelled');
    }
    const ac = new AbortController();
    const hb = setInterval(() => {
      jobs
        .beatJob(db, id, this.owner)
        .then((r) => {
          if (r !== 'ok') ac.abort(r);
        })
        .catch(() => {});
    }, this.heartbeatMs);
    this.controllers.set(id, { projectId, ac, hb });
    const statuses = STAGE_STATUS[stage];
    const tmp = join(this.deps.config.dataDir, 'work', `${projectId}-${stage}-${randomBytes(3).toString('hex')}`);
    try {
      await mkdir(tmp, { recursive: true });
      if (statuses) await setStatus(db, projectId, statuses.started);
      const handler = this.o.handlers[stage];
      log('stage started', { attempt: claimed.attempts });
      const progress = statuses ? progressReporter(db, projectId, statuses, this.progressEveryMs, (e) => this.log('progress not written', { projectId, error: String(e) })) : undefined;
      await handler({ deps: this.deps, projectId, stage, signal: ac.signal, tmp, log, progress, enqueue: (p, s) => this.enqueue(p, s) });
      if (this.crashed) return;
      if (ac.signal.aborted) throw new DOMException('The stage was cancelled', 'AbortError');
      let next = ON_DONE[stage];
      let push: number | null = null;
      let held: 'ok' | 'cancel' | 'lost' = 'ok';
      await db.tx(async (t) => {
        // Under the project's row lock (taken first, as a cancel does): a cancel that committed while the stage was
        // ending (in another process, before this run's heartbeat saw it) wins; its status and refund stand.
        await jobs.lockProjectStatus(t, projectId);
        held = await jobs.lockOwnJob(t, id, this.owner);
        if (held !== 'ok') return;
        if (statuses) await setStatus(t, projectId, statuses.done);
        await jobs.finishJob(t, id, this.owner, 'done');
        if (!next && this.o.continueAfter) next = await this.o.continueAfter(t, projectId, stage);
        if (next) push = await jobs.upsertQueuedJob(t, projectId, next, this.owner, this.staleSec);
      });
      if (held !== 'ok') {
        ac.abort(held);
        throw new DOMException('The stage was cancelled', 'AbortError');
      }
      if (next && push !== null) await this.push({ projectId, stage: next, run: push });
      log('stage done', { seconds: (Date.now() - t0) / 1000, next });
      end('done');
    } catch (e) {
      if (this.crashed) return;
      if (ac.signal.aborted || isAbortError(e)) {
        if (ac.signal.reason === 'lost' || ac.signal.reason === 'shutdown') {
          // Another worker took the job over (this one looked dead), or this process is shutting down: the
          // stage is handed back (another worker's sweep, or the next start, runs it again).
          if (ac.signal.reason === 'shutdown') await jobs.releaseJob(db, id, this.owner).catch(() => {});
          end('skipped');
          return;
        }
        // The job's end and the project's status in one transaction, under the project's row lock: a new run of the
        // stage is refused while this one is stopping (jobs.stoppingJobs), so only this run's status is replaced.
        let still = false;
        await db
          .tx(async (t) => {
            const now = await jobs.lockProjectStatus(t, projectId);
            still = now !== null;
            await jobs.finishJob(t, id, this.owner, 'cancelled');
            // Cancelled but kept: it must not stay *_started (the cancel call has usually recorded this already).
            if (statuses && now === statuses.started) {
              await setStatus(t, projectId, statuses.failed, { error_code: 'cancelled', message: 'The processing was cancelled' });
            }
          })
          .catch((e2) => this.log('could not record a cancellation', { projectId, stage, error: String(e2) }));
        if (still && !statuses) {
          // A side task keeps its own state: its hook records the cancellation.
          await this.failureHook(projectId, stage, 'The processing was cancelled', 'cancelled');
        }
        end('cancelled');
      } else {
        const { status, message, code } = failureOf(stage, e);
        log('stage failed', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
        // A non-fatal stage records its failure and the pipeline goes on (voices can be chosen by hand).
        const next = NON_FATAL.has(stage) ? ON_DONE[stage] : null;
        let push: number | null = null;
        await db
          .tx(async (t) => {
            if (status) await setStatus(t, projectId, status, { error_code: code, message });
            await jobs.finishJob(t, id, this.owner, 'failed', message);
            if (next) push = await jobs.upsertQueuedJob(t, projectId, next, this.owner, this.staleSec);
          })
          .catch((e2) => this.log('could not record a stage failure', { projectId, stage, error: String(e2) }));
        if (next && push !== null) await this.push({ projectId, stage: next, run: push });
        await this.failureHook(projectId, stage, message, code ?? 'failed');
        end('failed', message);
      }
    } finally {
      clearInterval(hb);
      this.controllers.delete(id);
      await rm(tmp, { recursive: true, force: true }).catch(() => {});
      // A project deleted while its stage ran (by itself, its space or its user): what the stage wrote after
      // the deletion's cleanup is removed here, so nothing is left behind.
      if (!this.crashed && !(await jobs.projectExists(db, projectId).catch(() => true))) {
        await this.deps.storage.deletePrefix(`projects/${projectId}/`).catch(() => {});
      }
    }
  }

  /** The failure hook a domain registered for this stage (side tasks keep their own state), in one transaction. */
  private async failureHook(projectId: string, stage: StageName, message: string, code: string): Promise<void> {
    const hook = this.o.onFailed?.[stage];
    if (!hook) return;
    await this.deps.db
      .tx((t) => hook(t, projectId, message, code))
      .catch((e2) => this.log('stage failure hook failed', { projectId, stage, error: String(e2) }));
  }

  /** Registers cleanup that runs when the pipeline stops (or crashes, in tests). */
  onStop(fn: () => Promise<void>): void {
    this.stopHooks.push(fn);
  }

  private async runStopHooks(): Promise<void> {
    for (const fn of this.stopHooks.splice(0)) await fn().catch(() => {});
  }

  /**
   * Stops taking jobs. Running stages finish; with `graceMs` those still running after it are stopped and
   * handed back (graceful shutdown in a bounded time); with `force` they are stopped at once.
   */
  async stop(opts: { force?: boolean; graceMs?: number } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const abortAll = () => {
      for (const { ac } of this.controllers.values()) ac.abort('shutdown');
    };
    if (opts.force) abortAll();
    const grace = !opts.force && opts.graceMs !== undefined ? setTimeout(abortAll, opts.graceMs) : undefined;
    try {
      await this.queue.close({ force: opts.force });
      // Stages abandoned by a forced queue close still hand their jobs back before this returns.
      const until = Date.now() + 5000;
      while (this.controllers.size > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    } finally {
      clearTimeout(grace);
    }
    await this.runStopHooks();
  }

  /**
   * Simulates a crash (tests): timers stop and running stages are abandoned without recording anything,
   * so their jobs stay 'running' with a heartbeat that goes stale.
   */
  async crash(): Promise<void> {
    this.stopped = true;
    this.crashed = true;
    for (const { hb } of this.controllers.values()) if (hb) clearInterval(hb);
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    await this.queue.close({ force: true });
    await this.runStopHooks();
  }
}

/**
 * The in-stage progress of one run: writes (in order, one at a time) when the percentage grows and
 * `everyMs` passed since the last write; a value that arrives meanwhile is written when the write ends.
 */
function progressReporter(db: Db, projectId: string, statuses: StageStatuses, everyMs: number, onError: (e: unknown) => void): (fraction: number) => void {
  let lastAt = 0;
  let lastPct = -1;
  let writing = false;
  let pending: number | null = null;
  let timer: NodeJS.Timeout | null = null;
  const pct = (f: number) => Math.floor(f * 100);
  const write = (f: number) => {
    writing = true;
    lastAt = Date.now();
    lastPct = pct(f);
    setProgress(db, projectId, statuses, f)
      .catch(onError)
      .finally(() => {
        writing = false;
        if (pending !== null && pct(pending) > lastPct) {
          const p = pending;
          pending = null;
          write(p);
        }
      });
  };
  const flushLater = () => {
    if (timer || writing) return;
    timer = setTimeout(() => {
      timer = null;
      if (pending !== null && !writing) {
        const p = pending;
        pending = null;
        write(p);
      }
    }, Math.max(0, everyMs - (Date.now() - lastAt)));
    timer.unref();
  };
  return (fraction: number) => {
    if (!(pct(fraction) > lastPct)) return;
    if (writing || Date.now() - lastAt < everyMs) {
      pending = fraction;
      flushLater();
      return;
    }
    pending = null;
    write(fraction);
  };
}

/** Maps an error to the project's failure status and a message a person can read. */
export function failureOf(stage: StageName, e: unknown): { status: ProjectStatus | null; message: string; code?: string } {
  const fallback = STAGE_STATUS[stage]?.failed ?? null;
  if (e instanceof StageFailure) return { status: e.status, message: e.message, code: e.code };
  if (e instanceof EngineError && SIDE_TASKS.has(stage)) return { status: fallback, message: errorText(e), code: e.code };
  if (isDiskFull(e)) {
    return {
      status: fallback,
      message: 'The server ran out of disk space while writing the result. Nothing was replaced: the previous result is still available. Try again later.',
      code: 'disk_full',
    };
  }
  const message = errorText(e);
  if (e instanceof MediaError) {
    if (e.code === 'no_audio') return { status: 'no_audio', message: 'The video has no sound', code: 'no_audio' };
    if (e.code === 'forbidden_link') return { status: 'forbidden_link', message, code: 'forbidden_link' };
    if (e.code === 'corrupt' && stage === 'ingest') return { status: 'upload_failed', message, code: 'corrupt' };
    return { status: fallback, message, code: e.code };
  }
  return { status: fallback, message };
}

function errorText(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  const t = m.trim() || 'Unknown error';
  return t.length > 1000 ? t.slice(0, 1000) + '…' : t;
}
