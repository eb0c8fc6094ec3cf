// The job runtime: queues stages of subjects, runs them with a heartbeat and an AbortSignal, records each outcome
// through the subject's domain (JobSubjects: its state, what follows, what a failure means), and sweeps jobs whose
// worker died (at start-up and periodically) so that nothing stays running. It knows no domain: the domain whose work
// it runs gives it its stage handlers and hooks (subjects.ts), wired by the composition root.
import { withToolLimits, type ToolLimits } from '../media/run';
import { mkdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config';
import type { Db } from '../db/index';
import { isAbortError } from '../media/errors';
import type { JobData, JobQueue } from './queue';
import { DeferJob, FairScheduler, type SchedulerOptions } from './scheduler';
import * as jobs from './repository';
import type { JobSubjects } from './subjects';

/** What the runtime itself needs of the app's services; a domain's handlers get the whole `D`. */
export interface RunnerDeps {
  config: Config;
  db: Db;
}

/** What a stage handler gets. */
export interface JobContext<S extends string, D extends RunnerDeps> {
  deps: D;
  subject: string;
  stage: S;
  signal: AbortSignal;
  /** Scratch folder of this run, removed afterwards. */
  tmp: string;
  log: (msg: string, meta?: Record<string, unknown>) => void;
  /**
   * Share of the stage's work done (0..1), written through the subject's hooks (at most about once a second); absent
   * when the stage reports none.
   */
  progress?: (fraction: number) => void;
  /** Queues a stage of another subject (a stage that makes subjects). */
  enqueue?: (subject: string, stage: S) => Promise<boolean>;
}

export type JobHandler<S extends string, D extends RunnerDeps> = (ctx: JobContext<S, D>) => Promise<void>;

export type JobOutcome = 'done' | 'failed' | 'cancelled' | 'skipped';

export interface RunnerOptions<S extends string, D extends RunnerDeps> {
  /** Exactly one handler per stage. */
  handlers: Record<S, JobHandler<S, D>>;
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
  /** The key of the subject's id in the log lines (default 'subject'). */
  subjectKey?: string;
  /** Fair scheduling and the groups' jobs at once (scheduler.ts): limits and retry delay. */
  scheduler?: SchedulerOptions;
  /** Called after each job (tests, benchmarks): stage, outcome, seconds. */
  onJobEnd?: (e: { subject: string; stage: S; outcome: JobOutcome; seconds: number; error?: string }) => void;
}

export class JobRunner<S extends string, D extends RunnerDeps = RunnerDeps> {
  readonly owner: string;
  private readonly heartbeatMs: number;
  private readonly staleSec: number;
  private readonly sweepEveryMs: number;
  private readonly controllers = new Map<string, { subject: string; ac: AbortController; hb?: NodeJS.Timeout }>();
  private crashed = false;
  private timers: NodeJS.Timeout[] = [];
  private processing = false;
  private stopped = false;
  private readonly log: (msg: string, meta?: Record<string, unknown>) => void;
  private readonly progressEveryMs: number;
  private readonly stopHooks: Array<() => Promise<void>> = [];
  private readonly subjectKey: string;
  readonly scheduler: FairScheduler<S>;

  constructor(
    readonly deps: D,
    readonly queue: JobQueue<S>,
    private readonly subjects: JobSubjects<S>,
    private readonly o: RunnerOptions<S, D>,
  ) {
    this.owner = o.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.heartbeatMs = o.heartbeatMs ?? 5000;
    this.staleSec = o.staleSec ?? 30;
    this.sweepEveryMs = o.sweepEveryMs ?? 30_000;
    this.progressEveryMs = o.progressEveryMs ?? 1000;
    this.log = o.log ?? ((msg, meta) => console.error(`[jobs] ${msg}`, meta ?? ''));
    this.subjectKey = o.subjectKey ?? 'subject';
    this.scheduler = new FairScheduler(deps.db, subjects, o.scheduler);
    // The owner heartbeat keeps jobs held by this process (queued in memory or running) fresh.
    const queuedToo = queue.kind === 'memory';
    this.timers.push(setInterval(() => void jobs.beatOwner(deps.db, this.owner, { queuedToo }).catch(() => {}), this.heartbeatMs).unref());
  }

  /**
   * Queues `stage` for a subject (after the caller's transaction committed). Returns false when the same
   * job is already queued or running (double enqueue is harmless).
   */
  async enqueue(subject: string, stage: S): Promise<boolean> {
    const run = await jobs.upsertQueuedJob(this.deps.db, subject, stage, this.owner, this.staleSec);
    if (run !== null) await this.push({ subject, stage, run });
    return run !== null;
  }

  /** Whether the runtime has a handler of `stage` (a job row of a stage it does not know is left alone, and said). */
  private known(stage: string, jobId: string): stage is S {
    if (Object.hasOwn(this.o.handlers, stage)) return true;
    this.log('a job of an unknown stage is left alone', { jobId, stage });
    return false;
  }

  /** The meta of a log line about a job: its id, its subject (under the domain's key) and stage. */
  private about(subject: string, stage: S, meta: Record<string, unknown> = {}): Record<string, unknown> {
    return { jobId: jobs.jobId(subject, stage), [this.subjectKey]: subject, stage, ...meta };
  }

  /**
   * Pushes a job recorded in the database. When the queue cannot take it (Redis down), the row stays queued
   * and the sweep pushes it again once its heartbeat is stale: nothing is lost and the caller does not hang.
   */
  private async push(job: JobData<S>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          // Its group and place (a ticket that cannot be read leaves the job unscheduled, not lost).
          const ticket = await this.scheduler.ticket(job.subject).catch(() => undefined);
          await this.queue.push(job, ticket);
        })(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error('the queue did not answer in 5 s')), 5000);
        }),
      ]);
    } catch (e) {
      this.log('queue push failed: the sweep will queue the job again', this.about(job.subject, job.stage, { run: job.run, error: e instanceof Error ? e.message : String(e) }));
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Asks every queued or running stage of the subject to stop (here and, through heartbeats, elsewhere). Given a
   * transaction, the request is part of it and the stages here stop once it commits.
   */
  async cancel(subject: string, db: Db = this.deps.db): Promise<void> {
    await jobs.requestCancel(db, subject);
    db.afterCommit(() => {
      for (const { subject: s, ac } of this.controllers.values()) if (s === subject) ac.abort('cancel');
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
   * Requeues work whose worker died: live jobs with a stale heartbeat, and subjects left in a state that
   * needs a stage with no live job. Returns how many jobs it queued.
   */
  async sweep(staleSec = this.staleSec): Promise<number> {
    const db = this.deps.db;
    let n = 0;
    const taken = await jobs.takeOverStaleJobs(db, this.owner, staleSec);
    for (const j of taken) {
      if (!this.known(j.stage, j.id)) continue;
      this.log('requeueing stale stage', this.about(j.subject, j.stage));
      await this.push({ subject: j.subject, stage: j.stage, run: Number(j.queued_runs) });
      n++;
    }
    // A job row queued by this process that its queue lost is pushed again, so no subject waits for a job nobody
    // will run (other processes' rows are taken over above once their heartbeat is stale; this process's own rows
    // never are). The in-process queue says what it holds; a shared queue (BullMQ) is asked again after a while:
    // the same run number is the same queue id, which it ignores while it still has the job.
    const own = await jobs.ownQueuedJobs(db, this.owner, this.queue.holds ? Math.max(staleSec, 1) : Math.max(staleSec * 6, 30));
    for (const j of own) {
      if (this.queue.holds?.(j.id) || !this.known(j.stage, j.id)) continue;
      if (this.queue.holds) this.log('requeueing a queued stage the queue lost', this.about(j.subject, j.stage));
      await this.push({ subject: j.subject, stage: j.stage, run: Number(j.queued_runs) });
      if (this.queue.holds) n++;
    }
    await jobs.closeCancelledJobs(db, Math.max(staleSec, 1));
    // Subjects left in a state that needs a stage, with no live job (killed between recording a stage and queueing
    // the next): the domain says which stage resumes each.
    for (const o of await this.subjects.orphans(db, staleSec)) {
      this.log('resuming subject', this.about(o.subject, o.stage, { state: o.state }));
      if (await this.enqueue(o.subject, o.stage)) n++;
    }
    return n;
  }

  /**
   * Runs one job: claim, heartbeat, handler, the subject's record, next stage. Never throws for a stage failure;
   * throws DeferJob (for the queue) when the job's group is at its limit of jobs at once.
   */
  run(job: JobData<S>): Promise<void> {
    // The job's tools take the app's CPU slots and niceness (server/media/run.ts), however deep they start.
    return this.o.tools ? withToolLimits(this.o.tools, () => this.runJob(job)) : this.runJob(job);
  }

  private async runJob(job: JobData<S>): Promise<void> {
    const { subject, stage } = job;
    const db = this.deps.db;
    const subjects = this.subjects;
    const id = jobs.jobId(subject, stage);
    const t0 = Date.now();
    const end = (outcome: JobOutcome, error?: string) =>
      this.o.onJobEnd?.({ subject, stage, outcome, seconds: (Date.now() - t0) / 1000, error });
    // Every line about this job carries its id.
    const log = (msg: string, meta?: Record<string, unknown>) => this.log(msg, this.about(subject, stage, meta));
    // The claim is refused while the subject's group runs as many jobs as its limit allows (any worker): the
    // queue takes the job back and offers it again shortly (DeferJob), other groups' jobs go first meanwhile.
    const claimed = await this.scheduler.claim(id, subject, this.owner, this.staleSec, job.run);
    if (claimed instanceof DeferJob) throw claimed;
    if (!claimed) return end('skipped');
    if (!(await subjects.exists(db, subject))) {
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
    this.controllers.set(id, { subject, ac, hb });
    const tmp = join(this.deps.config.dataDir, 'work', `${subject}-${stage}-${randomBytes(3).toString('hex')}`);
    try {
      await mkdir(tmp, { recursive: true });
      await subjects.started(db, subject, stage);
      const handler = this.o.handlers[stage];
      log('stage started', { attempt: claimed.attempts });
      const write = subjects.progress(stage);
      const progress = write
        ? progressReporter((f) => write(db, subject, f), this.progressEveryMs, (e) => this.log('progress not written', { [this.subjectKey]: subject, error: String(e) }))
        : undefined;
      await handler({ deps: this.deps, subject, stage, signal: ac.signal, tmp, log, progress, enqueue: (p, s) => this.enqueue(p, s) });
      if (this.crashed) return;
      if (ac.signal.aborted) throw new DOMException('The stage was cancelled', 'AbortError');
      let next: S | null = null;
      let push: number | null = null;
      let held: 'ok' | 'cancel' | 'lost' = 'ok';
      await db.tx(async (t) => {
        // Under the subject's row lock (taken first, as a cancel does): a cancel that committed while the stage was
        // ending (in another process, before this run's heartbeat saw it) wins; what it recorded stands.
        await subjects.lock(t, subject);
        held = await jobs.lockOwnJob(t, id, this.owner);
        if (held !== 'ok') return;
        await subjects.done(t, subject, stage);
        await jobs.finishJob(t, id, this.owner, 'done');
        next = await subjects.next(t, subject, stage);
        if (next) push = await jobs.upsertQueuedJob(t, subject, next, this.owner, this.staleSec);
      });
      if (held !== 'ok') {
        ac.abort(held);
        throw new DOMException('The stage was cancelled', 'AbortError');
      }
      if (next && push !== null) await this.push({ subject, stage: next, run: push });
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
        // The job's end and the subject's record in one transaction, under the subject's row lock: a new run of the
        // stage is refused while this one is stopping (jobs.stoppingJobs), so only this run's record is replaced.
        let still = false;
        await db
          .tx(async (t) => {
            const now = await subjects.lock(t, subject);
            still = now !== null;
            await jobs.finishJob(t, id, this.owner, 'cancelled');
            await subjects.cancelled(t, subject, stage, now);
          })
          .catch((e2) => this.log('could not record a cancellation', { [this.subjectKey]: subject, stage, error: String(e2) }));
        if (still) await this.afterFailure(subject, stage, 'The processing was cancelled', 'cancelled', true);
        end('cancelled');
      } else {
        const failure = subjects.failed(subject, stage, e);
        const { message, code, next } = failure;
        log('stage failed', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
        let push: number | null = null;
        await db
          .tx(async (t) => {
            await failure.record(t);
            await jobs.finishJob(t, id, this.owner, 'failed', message);
            if (next) push = await jobs.upsertQueuedJob(t, subject, next, this.owner, this.staleSec);
          })
          .catch((e2) => this.log('could not record a stage failure', { [this.subjectKey]: subject, stage, error: String(e2) }));
        if (next && push !== null) await this.push({ subject, stage: next, run: push });
        await this.afterFailure(subject, stage, message, code ?? 'failed', false);
        end('failed', message);
      }
    } finally {
      clearInterval(hb);
      this.controllers.delete(id);
      await rm(tmp, { recursive: true, force: true }).catch(() => {});
      if (!this.crashed) await subjects.afterRun(db, subject).catch(() => {});
    }
  }

  /** The hook the domain gives for a stage's failure or cancellation (e.g. a side task's own state), in one transaction. */
  private async afterFailure(subject: string, stage: S, message: string, code: string, cancelled: boolean): Promise<void> {
    const hook = this.subjects.afterFailure(stage, { cancelled });
    if (!hook) return;
    await this.deps.db
      .tx((t) => hook(t, subject, message, code))
      .catch((e2) => this.log('stage failure hook failed', { [this.subjectKey]: subject, stage, error: String(e2) }));
  }

  /** Registers cleanup that runs when the runtime stops (or crashes, in tests). */
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
function progressReporter(writeFraction: (fraction: number) => Promise<unknown>, everyMs: number, onError: (e: unknown) => void): (fraction: number) => void {
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
    writeFraction(f)
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
