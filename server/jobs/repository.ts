// All SQL of the job table (pipeline_jobs): queue bookkeeping, claims, heartbeats, cancellation and the sweep. A job is
// one stage of one subject, an opaque id kept in the table's project_id column (its old name: no migration), which
// the functions here call `subject`; what a subject is, the runtime asks its domain (server/jobs/subjects.ts).
import type { Db } from '../db/index';
import { all, first, q, run, sql } from '../db/sql';
import { storableError } from '../db/text';

type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface JobRow {
  id: string;
  subject: string;
  stage: string;
  state: JobState;
  owner: string | null;
  attempts: number;
  cancel_requested: boolean;
  error: string | null;
}

/** `now() - staleSec seconds`: a heartbeat older than this is stale. */
const agoSec = (sec: number) => sql<Date>`now() - make_interval(secs => ${sec})`;
const now = () => sql<Date>`now()`;

export const jobId = (subject: string, stage: string) => `${subject}-${stage}`;

/**
 * Records a queued job. Returns true when the caller should push it to the queue: a new job, a finished
 * one being run again, or a live-looking one whose owner stopped heart-beating (`staleSec`). A job that
 * is already queued or running with a fresh heartbeat is left alone (double enqueue is harmless).
 */
export async function upsertQueuedJob(db: Db, subject: string, stage: string, owner: string, staleSec: number): Promise<number | null> {
  const row = await first(
    db,
    q
      .insertInto('pipeline_jobs')
      .values({ id: jobId(subject, stage), project_id: subject, stage, state: 'queued', owner, heartbeat_at: now() })
      .onConflict((c) =>
        c
          .column('id')
          .doUpdateSet((e) => ({
            state: 'queued',
            owner: e.ref('excluded.owner'),
            heartbeat_at: now(),
            cancel_requested: false,
            error: null,
            finished_at: null,
            queued_runs: sql<number>`pipeline_jobs.queued_runs + 1`,
            queued_at: now(),
          }))
          .where((e) => e.or([e('pipeline_jobs.state', 'not in', ['queued', 'running']), e('pipeline_jobs.heartbeat_at', '<', agoSec(staleSec))])),
      )
      .returning('queued_runs'),
  );
  // The run number that goes with the queued job (see queue.ts queueId); null when nothing was queued.
  return row ? Number(row.queued_runs) : null;
}

/**
 * Takes a job for running. Succeeds for a queued job, or a running one that is ours or whose owner went
 * silent; fails (null) for finished, cancelled or actively running elsewhere. `run` is the queued run the queue's
 * copy was pushed for (`queuedRun`, JobData.run): an older copy still in a queue (a job deferred, then cancelled and queued
 * again; a job taken over by a sweep) is refused, so one run of a stage never runs twice at once.
 */
export function claimJob(db: Db, id: string, owner: string, staleSec: number, queuedRun?: number): Promise<JobRow | null> {
  return first(
    db,
    q
      .updateTable('pipeline_jobs')
      .set({ state: 'running', owner, attempts: (e) => e('attempts', '+', 1), heartbeat_at: now(), started_at: now(), error: null })
      .where('id', '=', id)
      .where((e) => e.not(e.ref('cancel_requested')))
      .$if(queuedRun != null, (u) => u.where('queued_runs', '=', queuedRun!))
      .where((e) =>
        e.or([
          e('state', '=', 'queued'),
          e.and([e('state', '=', 'running'), e.or([e('owner', '=', owner), e('heartbeat_at', '<', agoSec(staleSec))])]),
        ]),
      )
      .returning(['id', 'project_id as subject', 'stage', 'state', 'owner', 'attempts', 'cancel_requested', 'error'])
      .$narrowType<{ state: JobState }>(),
  );
}

/**
 * Heartbeat of one running job: 'ok'; 'cancel' when someone asked it to stop (or its row is gone);
 * 'lost' when another worker took it over (this one must stop without recording anything).
 */
export async function beatJob(db: Db, id: string, owner: string): Promise<'ok' | 'cancel' | 'lost'> {
  const r = await first(
    db,
    q
      .updateTable('pipeline_jobs')
      .set({ heartbeat_at: now() })
      .where('id', '=', id)
      .where('owner', '=', owner)
      .where('state', '=', 'running')
      .returning('cancel_requested'),
  );
  if (r) return r.cancel_requested ? 'cancel' : 'ok';
  const row = await first(db, q.selectFrom('pipeline_jobs').select(['owner', 'cancel_requested']).where('id', '=', id));
  return !row || row.cancel_requested ? 'cancel' : 'lost';
}

/**
 * Heartbeat of every job this process holds: running ones, and queued ones when the queue is in this
 * process's memory. Jobs queued in Redis are not held by a process: if Redis loses them, their heartbeat
 * goes stale and the sweep queues them again.
 */
export async function beatOwner(db: Db, owner: string, o: { queuedToo: boolean } = { queuedToo: true }): Promise<void> {
  await run(
    db,
    q
      .updateTable('pipeline_jobs')
      .set({ heartbeat_at: now() })
      .where('owner', '=', owner)
      .where((e) => e.or([e('state', '=', 'running'), e.and([e.val(o.queuedToo), e('state', '=', 'queued')])])),
  );
}

/** A stage stopped by a shutdown: handed back at once (any worker's next sweep takes it over). */
export async function releaseJob(db: Db, id: string, owner: string): Promise<void> {
  await run(
    db,
    q
      .updateTable('pipeline_jobs')
      .set({ state: 'queued', heartbeat_at: sql<Date>`now() - interval '1 day'` })
      .where('id', '=', id)
      .where('owner', '=', owner)
      .where('state', '=', 'running'),
  );
}

export async function finishJob(db: Db, id: string, owner: string, state: 'done' | 'failed' | 'cancelled', error?: string): Promise<void> {
  await run(
    db,
    q
      .updateTable('pipeline_jobs')
      .set({ state, error: storableError(error), finished_at: now(), heartbeat_at: now() })
      .where('id', '=', id)
      .where((e) => e.or([e('owner', '=', owner), e('owner', 'is', null)])),
  );
}

/**
 * Stops a subject's jobs: a queued one is cancelled at once (nobody has claimed it, and a claim needs it queued), a
 * running one is asked to stop (its heartbeat sees the request). One statement, so a concurrent claim either
 * happened before (the job is running and is asked to stop) or fails.
 */
export async function requestCancel(db: Db, subject: string): Promise<void> {
  await run(
    db,
    q
      .updateTable('pipeline_jobs')
      .set((e) => ({
        cancel_requested: true,
        finished_at: e.case().when('state', '=', 'queued').then(now()).else(e.ref('finished_at')).end(),
        state: e.case().when('state', '=', 'queued').then(sql.lit('cancelled')).else(e.ref('state')).end(),
      }))
      .where('project_id', '=', subject)
      .where('state', 'in', ['queued', 'running']),
  );
}

/**
 * Whether this owner's run still holds the job, under the job row's lock until the transaction ends: 'ok', asked to
 * stop ('cancel': a cancel committed, here or in another process, that its heartbeat has not seen yet), or taken over
 * by another worker ('lost'). A stage's result is recorded only while 'ok' (lock the subject's row first, as a cancel
 * does), so a cancelled run never ends done after its cancellation and refund were recorded.
 */
export async function lockOwnJob(db: Db, id: string, owner: string): Promise<'ok' | 'cancel' | 'lost'> {
  const r = await first(db, q.selectFrom('pipeline_jobs').select(['owner', 'state', 'cancel_requested']).where('id', '=', id).forUpdate());
  if (!r || r.cancel_requested) return 'cancel';
  return r.owner === owner && r.state === 'running' ? 'ok' : 'lost';
}

/** Stages of the subject whose run was cancelled and is still stopping (a new run of them must wait). */
export async function stoppingJobs(db: Db, subject: string): Promise<string[]> {
  const rows = await all(
    db,
    q
      .selectFrom('pipeline_jobs')
      .select('stage')
      .where('project_id', '=', subject)
      .where('state', '=', 'running')
      .where((e) => e.ref('cancel_requested')),
  );
  return rows.map((r) => r.stage);
}

interface QueuedJob {
  id: string;
  subject: string;
  stage: string;
  queued_runs: number;
}

/**
 * Takes over live-looking jobs whose owner stopped heart-beating: they become queued under `owner`.
 * Returns them so the caller pushes them to its queue. Never the caller's own jobs: the caller is alive (it is
 * sweeping), so a late heartbeat of its own only means its event loop was busy, and taking the job over would
 * abort the stage it is running and run it a second time.
 */
export function takeOverStaleJobs(db: Db, owner: string, staleSec: number): Promise<QueuedJob[]> {
  return all(
    db,
    q
      .updateTable('pipeline_jobs')
      .set({ state: 'queued', owner, heartbeat_at: now(), queued_runs: (e) => e('queued_runs', '+', 1), queued_at: now() })
      .where('state', 'in', ['queued', 'running'])
      .where((e) => e.not(e.ref('cancel_requested')))
      .where('heartbeat_at', '<', agoSec(staleSec))
      .where('owner', 'is distinct from', owner)
      .returning(['id', 'project_id as subject', 'stage', 'queued_runs']),
  );
}

/** This worker's own jobs queued more than `staleSec` ago and still not claimed. */
export function ownQueuedJobs(db: Db, owner: string, staleSec: number): Promise<QueuedJob[]> {
  return all(
    db,
    q
      .selectFrom('pipeline_jobs')
      .select(['id', 'project_id as subject', 'stage', 'queued_runs'])
      .where('state', '=', 'queued')
      .where((e) => e.not(e.ref('cancel_requested')))
      .where('owner', '=', owner)
      .where('queued_at', '<', agoSec(staleSec)),
  );
}

/** Cancelled jobs that nobody will run any more. */
export async function closeCancelledJobs(db: Db, staleSec: number): Promise<void> {
  await run(
    db,
    q
      .updateTable('pipeline_jobs')
      .set({ state: 'cancelled', finished_at: now() })
      .where('state', 'in', ['queued', 'running'])
      .where((e) => e.ref('cancel_requested'))
      .where('heartbeat_at', '<', agoSec(staleSec)),
  );
}

/** A queued job that keeps being deferred is still wanted: its heartbeat stays fresh (a sweep does not take it). */
export async function touchQueuedJob(db: Db, id: string): Promise<void> {
  await run(db, q.updateTable('pipeline_jobs').set({ heartbeat_at: now() }).where('id', '=', id).where('state', '=', 'queued'));
}

