// All SQL of the pipeline: job rows (queue bookkeeping, heartbeats, sweep) and the generation cache.
import type { Db } from '../db/index';
import type { StageName } from './stages';
import { storableError } from '../db/text';

export interface JobRow {
  id: string;
  project_id: string;
  stage: StageName;
  state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  owner: string | null;
  attempts: number;
  cancel_requested: boolean;
  error: string | null;
}

export const jobId = (projectId: string, stage: StageName) => `${projectId}-${stage}`;

/**
 * Records a queued job. Returns true when the caller should push it to the queue: a new job, a finished
 * one being run again, or a live-looking one whose owner stopped heart-beating (`staleSec`). A job that
 * is already queued or running with a fresh heartbeat is left alone (double enqueue is harmless).
 */
export async function upsertQueuedJob(db: Db, projectId: string, stage: StageName, owner: string, staleSec: number): Promise<number | null> {
  const rows = await db.query<{ queued_runs: number }>(
    `INSERT INTO pipeline_jobs AS j (id, project_id, stage, state, owner, heartbeat_at)
     VALUES ($1, $2, $3, 'queued', $4, now())
     ON CONFLICT (id) DO UPDATE SET state = 'queued', owner = EXCLUDED.owner, heartbeat_at = now(),
       cancel_requested = false, error = NULL, finished_at = NULL, queued_runs = j.queued_runs + 1, queued_at = now()
     WHERE j.state NOT IN ('queued', 'running') OR j.heartbeat_at < now() - make_interval(secs => $5)
     RETURNING queued_runs`,
    [jobId(projectId, stage), projectId, stage, owner, staleSec],
  );
  // The run number that goes with the queued job (see queue.ts queueId); null when nothing was queued.
  return rows.length > 0 ? Number(rows[0]!.queued_runs) : null;
}

/**
 * Takes a job for running. Succeeds for a queued job, or a running one that is ours or whose owner went
 * silent; fails (null) for finished, cancelled or actively running elsewhere. `run` is the queued run the queue's
 * copy was pushed for (JobData.run): an older copy still in a queue (a job deferred, then cancelled and queued
 * again; a job taken over by a sweep) is refused, so one run of a stage never runs twice at once.
 */
export function claimJob(db: Db, id: string, owner: string, staleSec: number, run?: number): Promise<JobRow | null> {
  return db.maybeOne<JobRow>(
    `UPDATE pipeline_jobs SET state = 'running', owner = $2, attempts = attempts + 1, heartbeat_at = now(),
       started_at = now(), error = NULL
     WHERE id = $1 AND NOT cancel_requested AND ($4::int IS NULL OR queued_runs = $4::int) AND (
       state = 'queued' OR (state = 'running' AND (owner = $2 OR heartbeat_at < now() - make_interval(secs => $3))))
     RETURNING id, project_id, stage, state, owner, attempts, cancel_requested, error`,
    [id, owner, staleSec, run ?? null],
  );
}

/** Whether the project still exists (a stage of a deleted project is cancelled). */
export async function projectExists(db: Db, projectId: string): Promise<boolean> {
  return (await db.maybeOne(`SELECT 1 AS x FROM projects WHERE id = $1`, [projectId])) !== null;
}

/**
 * Heartbeat of one running job: 'ok'; 'cancel' when someone asked it to stop (or the project is gone);
 * 'lost' when another worker took it over (this one must stop without recording anything).
 */
export async function beatJob(db: Db, id: string, owner: string): Promise<'ok' | 'cancel' | 'lost'> {
  const r = await db.maybeOne<{ cancel_requested: boolean }>(
    `UPDATE pipeline_jobs SET heartbeat_at = now() WHERE id = $1 AND owner = $2 AND state = 'running'
     RETURNING cancel_requested`,
    [id, owner],
  );
  if (r) return r.cancel_requested ? 'cancel' : 'ok';
  const row = await db.maybeOne<{ owner: string | null; cancel_requested: boolean }>(
    `SELECT owner, cancel_requested FROM pipeline_jobs WHERE id = $1`,
    [id],
  );
  return !row || row.cancel_requested ? 'cancel' : 'lost';
}

/**
 * Heartbeat of every job this process holds: running ones, and queued ones when the queue is in this
 * process's memory. Jobs queued in Redis are not held by a process: if Redis loses them, their heartbeat
 * goes stale and the sweep queues them again.
 */
export async function beatOwner(db: Db, owner: string, o: { queuedToo: boolean } = { queuedToo: true }): Promise<void> {
  await db.query(
    `UPDATE pipeline_jobs SET heartbeat_at = now() WHERE owner = $1 AND (state = 'running' OR ($2 AND state = 'queued'))`,
    [owner, o.queuedToo],
  );
}

/** A stage stopped by a shutdown: handed back at once (any worker's next sweep takes it over). */
export async function releaseJob(db: Db, id: string, owner: string): Promise<void> {
  await db.query(
    `UPDATE pipeline_jobs SET state = 'queued', heartbeat_at = now() - interval '1 day' WHERE id = $1 AND owner = $2 AND state = 'running'`,
    [id, owner],
  );
}

export async function finishJob(db: Db, id: string, owner: string, state: 'done' | 'failed' | 'cancelled', error?: string): Promise<void> {
  await db.query(
    `UPDATE pipeline_jobs SET state = $3, error = $4, finished_at = now(), heartbeat_at = now()
     WHERE id = $1 AND (owner = $2 OR owner IS NULL)`,
    [id, owner, state, storableError(error)],
  );
}

/**
 * Stops a project's jobs: a queued one is cancelled at once (nobody has claimed it, and a claim needs it queued), a
 * running one is asked to stop (its heartbeat sees the request). One statement, so a concurrent claim either
 * happened before (the job is running and is asked to stop) or fails.
 */
export async function requestCancel(db: Db, projectId: string): Promise<void> {
  await db.query(
    `UPDATE pipeline_jobs SET cancel_requested = true,
       finished_at = CASE WHEN state = 'queued' THEN now() ELSE finished_at END,
       state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END
     WHERE project_id = $1 AND state IN ('queued', 'running')`,
    [projectId],
  );
}

/**
 * Whether this owner's run still holds the job, under the job row's lock until the transaction ends: 'ok', asked to
 * stop ('cancel': a cancel committed, here or in another process, that its heartbeat has not seen yet), or taken over
 * by another worker ('lost'). A stage's result is recorded only while 'ok' (lock the project's row first, as a cancel
 * does), so a cancelled run never ends done after its cancellation and refund were recorded.
 */
export async function lockOwnJob(db: Db, id: string, owner: string): Promise<'ok' | 'cancel' | 'lost'> {
  const r = await db.maybeOne<{ owner: string | null; state: string; cancel_requested: boolean }>(
    `SELECT owner, state, cancel_requested FROM pipeline_jobs WHERE id = $1 FOR UPDATE`,
    [id],
  );
  if (!r || r.cancel_requested) return 'cancel';
  return r.owner === owner && r.state === 'running' ? 'ok' : 'lost';
}

/** The project's status, its row locked until the transaction ends (null when it is gone). */
export async function lockProjectStatus(db: Db, projectId: string): Promise<string | null> {
  return (await db.maybeOne<{ status: string }>(`SELECT status FROM projects WHERE id = $1 FOR UPDATE`, [projectId]))?.status ?? null;
}

/** Stages of the project whose run was cancelled and is still stopping (a new run of them must wait). */
export async function stoppingJobs(db: Db, projectId: string): Promise<string[]> {
  const rows = await db.query<{ stage: string }>(
    `SELECT stage FROM pipeline_jobs WHERE project_id = $1 AND state = 'running' AND cancel_requested`,
    [projectId],
  );
  return rows.map((r) => r.stage);
}

/**
 * Takes over live-looking jobs whose owner stopped heart-beating: they become queued under `owner`.
 * Returns them so the caller pushes them to its queue. Never the caller's own jobs: the caller is alive (it is
 * sweeping), so a late heartbeat of its own only means its event loop was busy, and taking the job over would
 * abort the stage it is running and run it a second time.
 */
export function takeOverStaleJobs(db: Db, owner: string, staleSec: number): Promise<Array<{ id: string; project_id: string; stage: StageName; queued_runs: number }>> {
  return db.query(
    `UPDATE pipeline_jobs SET state = 'queued', owner = $1, heartbeat_at = now(), queued_runs = queued_runs + 1, queued_at = now()
     WHERE state IN ('queued', 'running') AND NOT cancel_requested AND heartbeat_at < now() - make_interval(secs => $2)
       AND owner IS DISTINCT FROM $1
     RETURNING id, project_id, stage, queued_runs`,
    [owner, staleSec],
  );
}

/** This worker's own jobs queued more than `staleSec` ago and still not claimed. */
export function ownQueuedJobs(db: Db, owner: string, staleSec: number): Promise<Array<{ id: string; project_id: string; stage: StageName; queued_runs: number }>> {
  return db.query(
    `SELECT id, project_id, stage, queued_runs FROM pipeline_jobs
     WHERE state = 'queued' AND NOT cancel_requested AND owner = $1 AND queued_at < now() - make_interval(secs => $2)`,
    [owner, staleSec],
  );
}

/** Cancelled jobs that nobody will run any more. */
export async function closeCancelledJobs(db: Db, staleSec: number): Promise<void> {
  await db.query(
    `UPDATE pipeline_jobs SET state = 'cancelled', finished_at = now()
     WHERE state IN ('queued', 'running') AND cancel_requested AND heartbeat_at < now() - make_interval(secs => $1)`,
    [staleSec],
  );
}

/**
 * Projects in a status that needs a stage to run (given as a list) but with no live job and no change for
 * `staleSec`: killed between a status change and queueing the next stage.
 */
export function orphanedProjects(db: Db, statuses: string[], staleSec: number): Promise<Array<{ id: string; status: string; error_code: string | null }>> {
  return db.query(
    `SELECT p.id, p.status, p.error_code FROM projects p
     WHERE p.status IN (SELECT jsonb_array_elements_text($1::jsonb)) AND p.updated_at < now() - make_interval(secs => $2)
       AND NOT EXISTS (SELECT 1 FROM pipeline_jobs j WHERE j.project_id = p.id AND j.state IN ('queued', 'running'))`,
    [statuses, staleSec],
  );
}

// ------------------------------------------------------------------ generation cache (voiceover clips)

export interface GenerationHashRow {
  hash: string;
  storage_key: string;
  duration_sec: number;
}

export function findGenerationHashes(db: Db, projectId: string): Promise<GenerationHashRow[]> {
  return db.query<GenerationHashRow>(
    `SELECT hash, storage_key, duration_sec FROM generation_hashes WHERE project_id = $1`,
    [projectId],
  );
}

export async function saveGenerationHash(db: Db, projectId: string, row: GenerationHashRow): Promise<void> {
  await db.query(
    `INSERT INTO generation_hashes (project_id, hash, storage_key, duration_sec) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id, hash) DO UPDATE SET storage_key = EXCLUDED.storage_key, duration_sec = EXCLUDED.duration_sec`,
    [projectId, row.hash, row.storage_key, row.duration_sec],
  );
}

export async function pruneGenerationHashes(db: Db, projectId: string, keep: string[]): Promise<string[]> {
  const rows = await db.query<{ storage_key: string }>(
    `DELETE FROM generation_hashes WHERE project_id = $1
       AND hash NOT IN (SELECT jsonb_array_elements_text($2::jsonb)) RETURNING storage_key`,
    [projectId, keep],
  );
  return rows.map((r) => r.storage_key);
}

// ------------------------------------------------------------------ side tasks: face check and lip-sync

/** The face check result on the project (the whole object). */
export async function setFaceCheck(db: Db, projectId: string, faceCheck: Record<string, unknown>): Promise<void> {
  await db.query(`UPDATE projects SET face_check = $2::jsonb, updated_at = now() WHERE id = $1`, [projectId, JSON.stringify(faceCheck)]);
}

/** Progress of a running lip-sync, 0..100 (only while it is still processing). */
export async function setLipsyncProgress(db: Db, projectId: string, progress: number): Promise<void> {
  await db.query(
    `UPDATE projects SET lipsync_progress = GREATEST(lipsync_progress, $2) WHERE id = $1 AND lipsync_state = 'processing'`,
    [projectId, Math.max(0, Math.min(99, Math.round(progress)))],
  );
}

export interface LipsyncDone {
  resultKey: string;
  burnedKey: string | null;
  engine: string;
  generation: number;
}

export async function setLipsyncDone(db: Db, projectId: string, d: LipsyncDone): Promise<void> {
  await db.query(
    `UPDATE projects SET lipsync_state = 'done', lipsync_progress = 100, lipsync_error = NULL, lipsync_error_code = NULL,
       lipsync_result_path = $2, subtitles_lipsync_burn_result_path = $3, lipsync_engine = $4, lipsync_generation = $5,
       lipsync_finished_at = now(), updated_at = now()
     WHERE id = $1`,
    [projectId, d.resultKey, d.burnedKey, d.engine, d.generation],
  );
}

/**
 * A side task that failed or was cancelled: its own state says so with the reason. The project's status,
 * its dubbed video and an earlier lip-sync result stay as they were.
 */
export async function recordSideTaskFailure(db: Db, projectId: string, stage: StageName, message: string, code: string): Promise<void> {
  if (stage === 'lipsync') {
    await db.query(
      `UPDATE projects SET lipsync_state = 'failed', lipsync_error = $2, lipsync_error_code = $3, lipsync_finished_at = now(),
         updated_at = now() WHERE id = $1`,
      [projectId, message, code],
    );
  } else if (stage === 'check_face') {
    await db.query(
      `UPDATE projects SET face_check = COALESCE(face_check, '{}'::jsonb) || jsonb_build_object('status', 'failed', 'error', $2::text),
         updated_at = now() WHERE id = $1`,
      [projectId, message],
    );
  }
}

// ------------------------------------------------------------------ checkpoints (chunks of long stages)

export interface CheckpointRow<T> {
  chunk: number;
  fingerprint: string;
  data: T;
}

export function findCheckpoints<T>(db: Db, projectId: string, stage: StageName): Promise<Array<CheckpointRow<T>>> {
  return db.query<CheckpointRow<T>>(
    `SELECT chunk, fingerprint, data FROM pipeline_checkpoints WHERE project_id = $1 AND stage = $2 ORDER BY chunk`,
    [projectId, stage],
  );
}

export async function saveCheckpoint(db: Db, projectId: string, stage: StageName, row: CheckpointRow<unknown>): Promise<void> {
  await db.query(
    `INSERT INTO pipeline_checkpoints (project_id, stage, chunk, fingerprint, data) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (project_id, stage, chunk) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, data = EXCLUDED.data, created_at = now()`,
    [projectId, stage, row.chunk, row.fingerprint, row.data as object],
  );
}

export async function clearCheckpoints(db: Db, projectId: string, stage: StageName): Promise<void> {
  await db.query(`DELETE FROM pipeline_checkpoints WHERE project_id = $1 AND stage = $2`, [projectId, stage]);
}
