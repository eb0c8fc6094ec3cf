// What the project pipeline gives the job runtime (server/jobs): the stage handlers (one file per stage in ../stages/,
// registered by ../stages/index.ts) with what a stage gets, the failure hooks of the side tasks, where a project goes
// on when the graph stops, and the plan's jobs at once. The runtime's side of it is hooks.ts.
import type { Config } from '../../../config';
import type { Db } from '../../../db/index';
import type { EngineRegistry } from '../../../engines/registry';
import type { JobContext, JobOutcome, JobRunner, RunnerOptions } from '../../../jobs/runner';
import type { Storage } from '../../../storage/types';
import type { StageName } from './stages';

export interface PipelineDeps {
  config: Config;
  db: Db;
  storage: Storage;
  engines: EngineRegistry;
}

/**
 * What a stage handler gets: the runtime's job context, whose subject is the project (the handlers load what they
 * work on from projectId). Its progress moves the project's between the stage's started and done percentages.
 */
export type StageContext = Omit<JobContext<StageName, PipelineDeps>, 'subject'> & { projectId: string };

export type StageHandler = (ctx: StageContext) => Promise<void>;

/** Called after a stage failed and its failure was recorded (side tasks with a state of their own). */
export type StageFailureHook = (db: Db, projectId: string, message: string, code: string) => Promise<void>;

/** A project's scheduling group: its Teamspace, or its user (a project without one). */
export type Scope = { kind: 'space' | 'user'; id: string };

/** The plan's limit of jobs at once for a group (null: none); without it nothing is limited but the workers' concurrency. */
export type LimitOf = (db: Db, scope: Scope, config: Pick<Config, 'api'> | null) => Promise<number | null>;

/**
 * What the projects domain registers with the pipeline: exactly one handler per stage (the Record type makes a missing
 * one a compile error) and optional failure hooks.
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

/** The stages, and how the runtime runs them (its heartbeat, staleness, sweep, CPU slots, log...). */
export interface PipelineOptions extends StageRegistry, Omit<RunnerOptions<StageName, PipelineDeps>, 'handlers' | 'subjectKey' | 'onJobEnd'> {
  /** Called after each job (tests, benchmarks): stage, outcome, seconds. */
  onJobEnd?: (e: { projectId: string; stage: StageName; outcome: JobOutcome; seconds: number; error?: string }) => void;
}

/** The job runtime running the project stages (AppDeps.pipeline). */
export type Pipeline = JobRunner<StageName, PipelineDeps>;
