// All SQL of the pipeline: job rows (queue bookkeeping, heartbeats, sweep) and the generation cache.
import type { Db } from '../db/index';
import type { StageName } from './stages';

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
export async function upsertQueuedJob(db: Db, projectId: string, stage: StageName, owner: string, staleSec: number): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO pipeline_jobs AS j (id, project_id, stage, state, owner, heartbeat_at)
     VALUES ($1, $2, $3, 'queued', $4, now())
     ON CONFLICT (id) DO UPDATE SET state = 'queued', owner = EXCLUDED.owner, heartbeat_at = now(),
       cancel_requested = false, error = NULL, finished_at = NULL
     WHERE j.state NOT IN ('queued', 'running') OR j.heartbeat_at < now() - make_interval(secs => $5)
     RETURNING id`,
    [jobId(projectId, stage), projectId, stage, owner, staleSec],
  );
  return rows.length > 0;
}

/**
 * Takes a job for running. Succeeds for a queued job, or a running one that is ours or whose owner went
 * silent; fails (null) for finished, cancelled or actively running elsewhere.
 */
export function claimJob(db: Db, id: string, owner: string, staleSec: number): Promise<JobRow | null> {
  return db.maybeOne<JobRow>(
    `UPDATE pipeline_jobs SET state = 'running', owner = $2, attempts = attempts + 1, heartbeat_at = now(),
       started_at = now(), error = NULL
     WHERE id = $1 AND NOT cancel_requested AND (
       state = 'queued' OR (state = 'running' AND (owner = $2 OR heartbeat_at < now() - make_interval(secs => $3))))
     RETURNING id, project_id, stage, state, owner, attempts, cancel_requested, error`,
    [id, owner, staleSec],
  );
}

export function findJob(db: Db, id: string): Promise<JobRow | null> {
  return db.maybeOne<JobRow>(
    `SELECT id, project_id, stage, state, owner, attempts, cancel_requested, error FROM pipeline_jobs WHERE id = $1`,
    [id],
  );
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

/** Heartbeat of every job this process holds (queued in memory or running). */
export async function beatOwner(db: Db, owner: string): Promise<void> {
  await db.query(`UPDATE pipeline_jobs SET heartbeat_at = now() WHERE owner = $1 AND state IN ('queued', 'running')`, [owner]);
}

export async function finishJob(db: Db, id: string, owner: string, state: 'done' | 'failed' | 'cancelled', error?: string): Promise<void> {
  await db.query(
    `UPDATE pipeline_jobs SET state = $3, error = $4, finished_at = now(), heartbeat_at = now()
     WHERE id = $1 AND (owner = $2 OR owner IS NULL)`,
    [id, owner, state, error ?? null],
  );
}

export async function requestCancel(db: Db, projectId: string): Promise<void> {
  await db.query(
    `UPDATE pipeline_jobs SET cancel_requested = true WHERE project_id = $1 AND state IN ('queued', 'running')`,
    [projectId],
  );
}

/**
 * Takes over live-looking jobs whose owner stopped heart-beating: they become queued under `owner`.
 * Returns them so the caller pushes them to its queue.
 */
export function takeOverStaleJobs(db: Db, owner: string, staleSec: number): Promise<Array<{ id: string; project_id: string; stage: StageName }>> {
  return db.query(
    `UPDATE pipeline_jobs SET state = 'queued', owner = $1, heartbeat_at = now()
     WHERE state IN ('queued', 'running') AND NOT cancel_requested AND heartbeat_at < now() - make_interval(secs => $2)
     RETURNING id, project_id, stage`,
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
export function orphanedProjects(db: Db, statuses: string[], staleSec: number): Promise<Array<{ id: string; status: string }>> {
  return db.query(
    `SELECT p.id, p.status FROM projects p
     WHERE p.status IN (SELECT jsonb_array_elements_text($1::jsonb)) AND p.updated_at < now() - make_interval(secs => $2)
       AND NOT EXISTS (SELECT 1 FROM pipeline_jobs j WHERE j.project_id = p.id AND j.state IN ('queued', 'running'))`,
    [statuses, staleSec],
  );
}

export function liveJobsOf(db: Db, projectId: string): Promise<JobRow[]> {
  return db.query<JobRow>(
    `SELECT id, project_id, stage, state, owner, attempts, cancel_requested, error FROM pipeline_jobs
     WHERE project_id = $1 AND state IN ('queued', 'running')`,
    [projectId],
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
