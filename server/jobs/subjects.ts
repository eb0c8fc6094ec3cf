// What the job runtime asks of the domain whose work it runs. The runtime knows a job by its *subject* (an opaque id:
// the job table's subject column) and its *stage* (a name); everything the subject means (its state, who it belongs
// to, what follows a stage, what a failure writes) is the domain's, given to the runtime as one JobSubjects object
// by the composition root.
import type { Db } from '../db/index';

/** A subject's scheduling group (its owner: `<kind>:<id>`), shared by the jobs of every subject it owns. */
export interface JobGroup {
  kind: string;
  id: string;
}

/** How a stage's failure ends: what the job row keeps, and what the subject records of it. */
export interface JobFailure<S extends string> {
  /** The text a person reads (the job row's error). */
  message: string;
  /** Machine-readable cause handed to the failure hook ('failed' when absent). */
  code?: string;
  /** A stage queued all the same (a failure that does not stop the subject), or null. */
  next: S | null;
  /** Records the failure on the subject, in the transaction that ends the job. */
  record(db: Db): Promise<void>;
}

/** Runs after a failure (or a cancellation) was recorded, in a transaction of its own. */
export type AfterFailure = (db: Db, subject: string, message: string, code: string) => Promise<void>;

export interface JobSubjects<S extends string> {
  /**
   * The subject's scheduling group and the group's live jobs (queued or running, not being cancelled) counting this
   * one; null when the subject is gone.
   */
  group(db: Db, subject: string): Promise<(JobGroup & { live: number }) | null>;
  /** Jobs of the group running at once (null: no limit but the workers' concurrency). */
  limit(db: Db, group: JobGroup): Promise<number | null>;
  /**
   * In the claim's transaction: locks the group (admissions of a group queue up) and counts its running jobs but
   * `exceptJobId` whose heartbeat is fresher than `staleSec`.
   */
  admit(db: Db, group: JobGroup, exceptJobId: string, staleSec: number): Promise<number>;
  /** Whether the subject still exists (a stage of a subject that is gone is cancelled). */
  exists(db: Db, subject: string): Promise<boolean>;
  /**
   * Locks the subject's row until the transaction ends, before the job's row (as a cancel does): its state, null when
   * it is gone.
   */
  lock(db: Db, subject: string): Promise<string | null>;
  /** A stage starts (after the claim). */
  started(db: Db, subject: string, stage: S): Promise<void>;
  /** How a stage's share of work done (0..1) is written; null when the stage reports none. */
  progress(stage: S): ((db: Db, subject: string, fraction: number) => Promise<unknown>) | null;
  /** A stage is done, in the transaction that ends its job (the subject and the job row locked). */
  done(db: Db, subject: string, stage: S): Promise<void>;
  /** The stage that follows, asked in the same transaction after the job ended (null: none). */
  next(db: Db, subject: string, stage: S): Promise<S | null>;
  /** A stage was cancelled, in the transaction that ends its job; `state` is what `lock` returned. */
  cancelled(db: Db, subject: string, stage: S, state: string | null): Promise<void>;
  /** What a stage's error means for the subject. */
  failed(subject: string, stage: S, error: unknown): JobFailure<S>;
  /** The hook run after a stage failed or, for a subject still there, was cancelled (null: none). */
  afterFailure(stage: S, o: { cancelled: boolean }): AfterFailure | null;
  /**
   * Subjects left in a state that needs a stage but with no live job and no change for `staleSec` (their worker was
   * killed between recording a stage and queueing the next): the stage to run for each.
   */
  orphans(db: Db, staleSec: number): Promise<Array<{ subject: string; stage: S; state: string }>>;
  /** After every run (not after a crash): e.g. removes what a stage wrote for a subject deleted while it ran. */
  afterRun(db: Db, subject: string): Promise<void>;
}
