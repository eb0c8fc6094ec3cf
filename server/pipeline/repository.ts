// All SQL of the pipeline: job rows (queue bookkeeping, heartbeats, sweep), project status and progress (stages.ts),
// the generation cache, side tasks and checkpoints.
import type { ProjectStatus } from '../../contract/statuses';
import type { Db } from '../db/index';
import type { JsonValue } from '../db/schema';
import { all, first, json, q, run, sql } from '../db/sql';
import type { StageName } from './stages';
import { storableError } from '../db/text';

type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export interface JobRow {
  id: string;
  project_id: string;
  stage: StageName;
  state: JobState;
  owner: string | null;
  attempts: number;
  cancel_requested: boolean;
  error: string | null;
}

/** `now() - staleSec seconds`: a heartbeat older than this is stale. */
const agoSec = (sec: number) => sql<Date>`now() - make_interval(secs => ${sec})`;
const now = () => sql<Date>`now()`;

export const jobId = (projectId: string, stage: StageName) => `${projectId}-${stage}`;

/**
 * Records a queued job. Returns true when the caller should push it to the queue: a new job, a finished
 * one being run again, or a live-looking one whose owner stopped heart-beating (`staleSec`). A job that
 * is already queued or running with a fresh heartbeat is left alone (double enqueue is harmless).
 */
export async function upsertQueuedJob(db: Db, projectId: string, stage: StageName, owner: string, staleSec: number): Promise<number | null> {
  const row = await first(
    db,
    q
      .insertInto('pipeline_jobs')
      .values({ id: jobId(projectId, stage), project_id: projectId, stage, state: 'queued', owner, heartbeat_at: now() })
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
      .returning(['id', 'project_id', 'stage', 'state', 'owner', 'attempts', 'cancel_requested', 'error'])
      .$narrowType<{ stage: StageName; state: JobState }>(),
  );
}

/** Whether the project still exists (a stage of a deleted project is cancelled). */
export async function projectExists(db: Db, projectId: string): Promise<boolean> {
  return (await first(db, q.selectFrom('projects').select(sql<number>`1`.as('x')).where('id', '=', projectId))) !== null;
}

/**
 * Heartbeat of one running job: 'ok'; 'cancel' when someone asked it to stop (or the project is gone);
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
 * Stops a project's jobs: a queued one is cancelled at once (nobody has claimed it, and a claim needs it queued), a
 * running one is asked to stop (its heartbeat sees the request). One statement, so a concurrent claim either
 * happened before (the job is running and is asked to stop) or fails.
 */
export async function requestCancel(db: Db, projectId: string): Promise<void> {
  await run(
    db,
    q
      .updateTable('pipeline_jobs')
      .set((e) => ({
        cancel_requested: true,
        finished_at: e.case().when('state', '=', 'queued').then(now()).else(e.ref('finished_at')).end(),
        state: e.case().when('state', '=', 'queued').then(sql.lit('cancelled')).else(e.ref('state')).end(),
      }))
      .where('project_id', '=', projectId)
      .where('state', 'in', ['queued', 'running']),
  );
}

/**
 * Whether this owner's run still holds the job, under the job row's lock until the transaction ends: 'ok', asked to
 * stop ('cancel': a cancel committed, here or in another process, that its heartbeat has not seen yet), or taken over
 * by another worker ('lost'). A stage's result is recorded only while 'ok' (lock the project's row first, as a cancel
 * does), so a cancelled run never ends done after its cancellation and refund were recorded.
 */
export async function lockOwnJob(db: Db, id: string, owner: string): Promise<'ok' | 'cancel' | 'lost'> {
  const r = await first(db, q.selectFrom('pipeline_jobs').select(['owner', 'state', 'cancel_requested']).where('id', '=', id).forUpdate());
  if (!r || r.cancel_requested) return 'cancel';
  return r.owner === owner && r.state === 'running' ? 'ok' : 'lost';
}

/** The project's status, its row locked until the transaction ends (null when it is gone). */
export async function lockProjectStatus(db: Db, projectId: string): Promise<string | null> {
  return (await first(db, q.selectFrom('projects').select('status').where('id', '=', projectId).forUpdate()))?.status ?? null;
}

/** Stages of the project whose run was cancelled and is still stopping (a new run of them must wait). */
export async function stoppingJobs(db: Db, projectId: string): Promise<string[]> {
  const rows = await all(
    db,
    q
      .selectFrom('pipeline_jobs')
      .select('stage')
      .where('project_id', '=', projectId)
      .where('state', '=', 'running')
      .where((e) => e.ref('cancel_requested')),
  );
  return rows.map((r) => r.stage);
}

interface QueuedJob {
  id: string;
  project_id: string;
  stage: StageName;
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
      .returning(['id', 'project_id', 'stage', 'queued_runs'])
      .$narrowType<{ stage: StageName }>(),
  );
}

/** This worker's own jobs queued more than `staleSec` ago and still not claimed. */
export function ownQueuedJobs(db: Db, owner: string, staleSec: number): Promise<QueuedJob[]> {
  return all(
    db,
    q
      .selectFrom('pipeline_jobs')
      .select(['id', 'project_id', 'stage', 'queued_runs'])
      .where('state', '=', 'queued')
      .where((e) => e.not(e.ref('cancel_requested')))
      .where('owner', '=', owner)
      .where('queued_at', '<', agoSec(staleSec))
      .$narrowType<{ stage: StageName }>(),
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

/**
 * Projects in a status that needs a stage to run (given as a list) but with no live job and no change for
 * `staleSec`: killed between a status change and queueing the next stage.
 */
export function orphanedProjects(db: Db, statuses: string[], staleSec: number): Promise<Array<{ id: string; status: string; error_code: string | null }>> {
  return all(
    db,
    q
      .selectFrom('projects as p')
      .select(['p.id', 'p.status', 'p.error_code'])
      .where(sql<boolean>`p.status IN (SELECT jsonb_array_elements_text(${json(statuses)}))`)
      .where('p.updated_at', '<', agoSec(staleSec))
      .where((e) =>
        e.not(
          e.exists(
            e
              .selectFrom('pipeline_jobs as j')
              .select(sql<number>`1`.as('one'))
              .whereRef('j.project_id', '=', 'p.id')
              .where('j.state', 'in', ['queued', 'running']),
          ),
        ),
      ),
  );
}

// ------------------------------------------------------------------ fair scheduling (scheduler.ts)

/**
 * The project's owner (its Teamspace, or its user) and the live jobs (queued or running, not being cancelled) of that
 * group's projects; null when the project is gone.
 */
export function projectScope(db: Db, projectId: string): Promise<{ space_id: string | null; user_id: string | null; live: number | null } | null> {
  return first(
    db,
    q
      .selectFrom('projects as p')
      .select((e) => [
        'p.space_id',
        'p.user_id',
        e
          .selectFrom('pipeline_jobs as j')
          .innerJoin('projects as q', 'q.id', 'j.project_id')
          .select(sql<number>`count(*)::int`.as('n'))
          .where('j.state', 'in', ['queued', 'running'])
          .where((w) => w.not(w.ref('j.cancel_requested')))
          .where(sql<boolean>`(CASE WHEN p.space_id IS NOT NULL THEN q.space_id = p.space_id ELSE q.space_id IS NULL AND q.user_id = p.user_id END)`)
          .as('live'),
      ])
      .where('p.id', '=', projectId),
  );
}

/** Locks the group's row (its Teamspace's or its user's) until the transaction ends: admissions of a group queue up. */
export async function lockGroup(db: Db, kind: 'space' | 'user', id: string): Promise<void> {
  const one = sql<number>`1`.as('one');
  await run(
    db,
    kind === 'space'
      ? q.selectFrom('spaces').select(one).where('id', '=', id).forNoKeyUpdate()
      : q.selectFrom('users').select(one).where('id', '=', id).forNoKeyUpdate(),
  );
}

/** The group's running jobs but `exceptId` whose heartbeat is fresher than `staleSec`. */
export async function runningInGroup(db: Db, kind: 'space' | 'user', id: string, exceptId: string, staleSec: number): Promise<number> {
  const r = await first(
    db,
    q
      .selectFrom('pipeline_jobs as j')
      .innerJoin('projects as q', 'q.id', 'j.project_id')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('j.state', '=', 'running')
      .where('j.id', '<>', exceptId)
      .where('j.heartbeat_at', '>=', agoSec(staleSec))
      .$if(kind === 'space', (s) => s.where('q.space_id', '=', id))
      .$if(kind === 'user', (s) => s.where('q.space_id', 'is', null).where('q.user_id', '=', id)),
  );
  return Number(r?.n ?? 0);
}

/** A queued job that keeps being deferred is still wanted: its heartbeat stays fresh (a sweep does not take it). */
export async function touchQueuedJob(db: Db, id: string): Promise<void> {
  await run(db, q.updateTable('pipeline_jobs').set({ heartbeat_at: now() }).where('id', '=', id).where('state', '=', 'queued'));
}

// ------------------------------------------------------------------ project status and progress (stages.ts)

interface StatusFields {
  status: ProjectStatus;
  progress: number;
  error_code: string | null;
  error_message: string | null;
}

/**
 * Writes the project's status (its row locked first, as a cancel does), with its progress and error: the status it
 * had before and its space, null when the project is gone.
 */
export function writeStatus(db: Db, projectId: string, f: StatusFields): Promise<{ previous: ProjectStatus; space_id: string } | null> {
  return first(
    db,
    q
      .updateTable('projects as p')
      .set({ status: f.status, progress: f.progress, error_code: f.error_code, error_message: f.error_message, updated_at: now() })
      .from(q.selectFrom('projects').select(['id', 'status as previous']).where('id', '=', projectId).forUpdate().as('o'))
      .whereRef('p.id', '=', 'o.id')
      .returning(['o.previous', 'p.space_id'])
      .$narrowType<{ previous: ProjectStatus }>(),
  );
}

/** Raises the progress of a project still in `status` (never backwards): its space, null when nothing changed. */
export function raiseProgress(db: Db, projectId: string, status: ProjectStatus, progress: number): Promise<{ space_id: string } | null> {
  return first(
    db,
    q
      .updateTable('projects')
      .set({ progress })
      .where('id', '=', projectId)
      .where('status', '=', status)
      .where('progress', '<', progress)
      .returning('space_id'),
  );
}

// ------------------------------------------------------------------ generation cache (voiceover clips)

export interface GenerationHashRow {
  hash: string;
  storage_key: string;
  duration_sec: number;
}

export function findGenerationHashes(db: Db, projectId: string): Promise<GenerationHashRow[]> {
  return all(db, q.selectFrom('generation_hashes').select(['hash', 'storage_key', 'duration_sec']).where('project_id', '=', projectId));
}

export async function saveGenerationHash(db: Db, projectId: string, row: GenerationHashRow): Promise<void> {
  await run(
    db,
    q
      .insertInto('generation_hashes')
      .values({ project_id: projectId, hash: row.hash, storage_key: row.storage_key, duration_sec: row.duration_sec })
      .onConflict((c) =>
        c.columns(['project_id', 'hash']).doUpdateSet((e) => ({ storage_key: e.ref('excluded.storage_key'), duration_sec: e.ref('excluded.duration_sec') })),
      ),
  );
}

export async function pruneGenerationHashes(db: Db, projectId: string, keep: string[]): Promise<string[]> {
  const rows = await all(
    db,
    q
      .deleteFrom('generation_hashes')
      .where('project_id', '=', projectId)
      .where(sql<boolean>`hash NOT IN (SELECT jsonb_array_elements_text(${json(keep)}))`)
      .returning('storage_key'),
  );
  return rows.map((r) => r.storage_key);
}

// ------------------------------------------------------------------ side tasks: face check and lip-sync

/** The face check result on the project (the whole object). */
export async function setFaceCheck(db: Db, projectId: string, faceCheck: Record<string, unknown>): Promise<void> {
  await run(db, q.updateTable('projects').set({ face_check: json(faceCheck), updated_at: now() }).where('id', '=', projectId));
}

/** Progress of a running lip-sync, 0..100 (only while it is still processing). */
export async function setLipsyncProgress(db: Db, projectId: string, progress: number): Promise<void> {
  const value = Math.max(0, Math.min(99, Math.round(progress)));
  await run(
    db,
    q
      .updateTable('projects')
      .set((e) => ({ lipsync_progress: e.fn<number>('GREATEST', [e.ref('lipsync_progress'), e.val(value)]) }))
      .where('id', '=', projectId)
      .where('lipsync_state', '=', 'processing'),
  );
}

export interface LipsyncDone {
  resultKey: string;
  burnedKey: string | null;
  engine: string;
  generation: number;
}

export async function setLipsyncDone(db: Db, projectId: string, d: LipsyncDone): Promise<void> {
  await run(
    db,
    q
      .updateTable('projects')
      .set({
        lipsync_state: 'done',
        lipsync_progress: 100,
        lipsync_error: null,
        lipsync_error_code: null,
        lipsync_result_path: d.resultKey,
        subtitles_lipsync_burn_result_path: d.burnedKey,
        lipsync_engine: d.engine,
        lipsync_generation: d.generation,
        lipsync_finished_at: now(),
        updated_at: now(),
      })
      .where('id', '=', projectId),
  );
}

/**
 * A side task that failed or was cancelled: its own state says so with the reason. The project's status,
 * its dubbed video and an earlier lip-sync result stay as they were.
 */
export async function recordSideTaskFailure(db: Db, projectId: string, stage: StageName, message: string, code: string): Promise<void> {
  if (stage === 'lipsync') {
    await run(
      db,
      q
        .updateTable('projects')
        .set({ lipsync_state: 'failed', lipsync_error: message, lipsync_error_code: code, lipsync_finished_at: now(), updated_at: now() })
        .where('id', '=', projectId),
    );
  } else if (stage === 'check_face') {
    await run(
      db,
      q
        .updateTable('projects')
        .set({
          face_check: sql<JsonValue>`COALESCE(face_check, '{}'::jsonb) || jsonb_build_object('status', 'failed', 'error', ${message}::text)`,
          updated_at: now(),
        })
        .where('id', '=', projectId),
    );
  }
}

// ------------------------------------------------------------------ checkpoints (chunks of long stages)

export interface CheckpointRow<T> {
  chunk: number;
  fingerprint: string;
  data: T;
}

/** The saved chunks of a stage; `data` is what saveCheckpoint stored for it (T: the stage's own JSON). */
export function findCheckpoints<T>(db: Db, projectId: string, stage: StageName): Promise<Array<CheckpointRow<T>>> {
  return all(
    db,
    q
      .selectFrom('pipeline_checkpoints')
      .select(['chunk', 'fingerprint', 'data'])
      .where('project_id', '=', projectId)
      .where('stage', '=', stage)
      .orderBy('chunk')
      .$castTo<CheckpointRow<T>>(),
  );
}

export async function saveCheckpoint(db: Db, projectId: string, stage: StageName, row: CheckpointRow<unknown>): Promise<void> {
  await run(
    db,
    q
      .insertInto('pipeline_checkpoints')
      .values({ project_id: projectId, stage, chunk: row.chunk, fingerprint: row.fingerprint, data: json(row.data) })
      .onConflict((c) =>
        c.columns(['project_id', 'stage', 'chunk']).doUpdateSet((e) => ({ fingerprint: e.ref('excluded.fingerprint'), data: e.ref('excluded.data'), created_at: now() })),
      ),
  );
}

export async function clearCheckpoints(db: Db, projectId: string, stage: StageName): Promise<void> {
  await run(db, q.deleteFrom('pipeline_checkpoints').where('project_id', '=', projectId).where('stage', '=', stage));
}
