// The pipeline runtime: queues stages, runs them with a heartbeat and an AbortSignal, writes the status
// of each outcome through setStatus, queues the next stage from the ON_DONE table, and sweeps jobs whose
// worker died (at start-up and periodically) so that nothing stays *_started.
import { mkdir, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PROJECT_STATUSES } from '../../contract/statuses';
import type { Config } from '../config';
import type { Db } from '../db/index';
import { isAbortError, MediaError } from '../media/errors';
import type { Storage } from '../storage/types';
import { findProject, updateProjectFields, type ProjectRow } from '../domains/projects/repository';
import type { JobData, JobQueue } from './queue';
import * as jobs from './repository';
import { ON_DONE, setStatus, STAGE_STATUS, StageFailure, stageToResume, type StageName } from './stages';
import type { EngineRegistryLike } from './engines';

/** Stages whose failure does not stop the pipeline (spec: voice_suggest_failed is not a failure status). */
export const NON_FATAL: ReadonlySet<StageName> = new Set<StageName>(['voice_suggest']);

export interface PipelineDeps {
  config: Config;
  db: Db;
  storage: Storage;
  engines: EngineRegistryLike;
}

export interface StageContext {
  deps: PipelineDeps;
  project: ProjectRow;
  stage: StageName;
  signal: AbortSignal;
  /** Scratch folder of this run, removed afterwards. */
  tmp: string;
  log: (msg: string, meta?: Record<string, unknown>) => void;
}

export type StageHandler = (ctx: StageContext) => Promise<void>;

export interface PipelineOptions {
  handlers: Record<StageName, StageHandler>;
  /** Heartbeat period of running and held jobs (default 5 s). */
  heartbeatMs?: number;
  /** A job whose heartbeat is older than this is taken over (default 30 s). */
  staleSec?: number;
  /** Period of the sweep while processing (default 30 s). */
  sweepEveryMs?: number;
  /** Process identity written on the jobs it holds. */
  owner?: string;
  log?: (msg: string, meta?: Record<string, unknown>) => void;
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

  constructor(
    readonly deps: PipelineDeps,
    readonly queue: JobQueue,
    private readonly o: PipelineOptions,
  ) {
    this.owner = o.owner ?? `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.heartbeatMs = o.heartbeatMs ?? 5000;
    this.staleSec = o.staleSec ?? 30;
    this.sweepEveryMs = o.sweepEveryMs ?? 30_000;
    this.log = o.log ?? ((msg, meta) => console.error(`[pipeline] ${msg}`, meta ?? ''));
    // The owner heartbeat keeps jobs held by this process (queued in memory or running) fresh.
    this.timers.push(setInterval(() => void jobs.beatOwner(deps.db, this.owner).catch(() => {}), this.heartbeatMs).unref());
  }

  /**
   * Queues `stage` for a project (after the caller's transaction committed). Returns false when the same
   * job is already queued or running (double enqueue is harmless).
   */
  async enqueue(projectId: string, stage: StageName): Promise<boolean> {
    const push = await jobs.upsertQueuedJob(this.deps.db, projectId, stage, this.owner, this.staleSec);
    if (push) await this.queue.push({ projectId, stage });
    return push;
  }

  /** Asks every queued or running stage of the project to stop (here and, through heartbeats, elsewhere). */
  async cancel(projectId: string): Promise<void> {
    await jobs.requestCancel(this.deps.db, projectId);
    for (const { projectId: p, ac } of this.controllers.values()) if (p === projectId) ac.abort('cancel');
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
      this.log('requeueing stale stage', { projectId: j.project_id, stage: j.stage });
      await this.queue.push({ projectId: j.project_id, stage: j.stage });
      n++;
    }
    await jobs.closeCancelledJobs(db, Math.max(staleSec, 1));
    const resumable = PROJECT_STATUSES.filter((s) => stageToResume(s) !== null);
    for (const p of await jobs.orphanedProjects(db, resumable, staleSec)) {
      const stage = stageToResume(p.status as never);
      if (!stage) continue;
      this.log('resuming project', { projectId: p.id, status: p.status, stage });
      if (await this.enqueue(p.id, stage)) n++;
    }
    return n;
  }

  /** Runs one job: claim, heartbeat, handler, status, next stage. Never throws for a stage failure. */
  async run(job: JobData): Promise<void> {
    const { projectId, stage } = job;
    const db = this.deps.db;
    const id = jobs.jobId(projectId, stage);
    const t0 = Date.now();
    const end = (outcome: 'done' | 'failed' | 'cancelled' | 'skipped', error?: string) =>
      this.o.onJobEnd?.({ projectId, stage, outcome, seconds: (Date.now() - t0) / 1000, error });
    const claimed = await jobs.claimJob(db, id, this.owner, this.staleSec);
    if (!claimed) return end('skipped');
    const project = await findProject(db, projectId);
    if (!project) {
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
      await handler({ deps: this.deps, project, stage, signal: ac.signal, tmp, log: this.log });
      if (this.crashed) return;
      if (ac.signal.aborted) throw new DOMException('The stage was cancelled', 'AbortError');
      const next = ON_DONE[stage];
      let push = false;
      await db.tx(async (t) => {
        if (statuses) await setStatus(t, projectId, statuses.done);
        await jobs.finishJob(t, id, this.owner, 'done');
        if (next) push = await jobs.upsertQueuedJob(t, projectId, next, this.owner, this.staleSec);
      });
      if (next && push) await this.queue.push({ projectId, stage: next });
      end('done');
    } catch (e) {
      if (this.crashed) return;
      if (ac.signal.aborted || isAbortError(e)) {
        if (ac.signal.reason === 'lost' || ac.signal.reason === 'shutdown') {
          // Another worker took the job over (this one looked dead), or this process is shutting down and
          // the stage resumes at the next start: nothing is recorded here.
          end('skipped');
          return;
        }
        await jobs.finishJob(db, id, this.owner, 'cancelled').catch(() => {});
        const still = await findProject(db, projectId).catch(() => null);
        if (!still) {
          // A project deleted while its stage ran: remove what the stage may have written since.
          await this.deps.storage.deletePrefix(`projects/${projectId}/`).catch(() => {});
        } else if (statuses) {
          // Cancelled but kept: it must not stay *_started.
          await setStatus(db, projectId, statuses.failed, { error_code: 'cancelled', message: 'The processing was cancelled' }).catch(() => {});
        }
        end('cancelled');
      } else {
        const { status, message, code } = failureOf(stage, e);
        this.log('stage failed', { projectId, stage, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
        // A non-fatal stage records its failure and the pipeline goes on (voices can be chosen by hand).
        const next = NON_FATAL.has(stage) ? ON_DONE[stage] : null;
        let push = false;
        await db
          .tx(async (t) => {
            if (status) await setStatus(t, projectId, status, { error_code: code, message });
            await jobs.finishJob(t, id, this.owner, 'failed', message);
            if (next) push = await jobs.upsertQueuedJob(t, projectId, next, this.owner, this.staleSec);
          })
          .catch((e2) => this.log('could not record a stage failure', { projectId, stage, error: String(e2) }));
        if (next && push) await this.queue.push({ projectId, stage: next });
        if (stage === 'burn_subtitles') {
          await updateProjectFields(db, projectId, { subtitles_burn_state: 'failed', subtitles_burn_error: message }).catch(() => {});
        }
        end('failed', message);
      }
    } finally {
      clearInterval(hb);
      this.controllers.delete(id);
      await rm(tmp, { recursive: true, force: true }).catch(() => {});
    }
  }

  /** Stops the timers and the queue; running stages finish unless `force` (then they are aborted). */
  async stop(opts: { force?: boolean } = {}): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    if (opts.force) for (const { ac } of this.controllers.values()) ac.abort('shutdown');
    await this.queue.close({ force: opts.force });
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
  }
}

/** Maps an error to the project's failure status and a message a person can read. */
export function failureOf(stage: StageName, e: unknown): { status: import('../../contract/statuses').ProjectStatus | null; message: string; code?: string } {
  const fallback = STAGE_STATUS[stage]?.failed ?? null;
  if (e instanceof StageFailure) return { status: e.status, message: e.message, code: e.code };
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
