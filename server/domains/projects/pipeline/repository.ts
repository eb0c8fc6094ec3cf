// The SQL of the project pipeline (the job runtime's hooks, hooks.ts, and the state machine, stages.ts): the project's
// existence, lock and status, its progress, orphaned projects after a crash, the scheduling group of a project, the
// generation cache, side tasks and checkpoints. The job table's own SQL is server/jobs/repository.ts.
import type { ProjectStatus } from '../../../../contract/statuses';
import type { Db } from '../../../db/index';
import type { JsonValue } from '../../../db/schema';
import { all, first, json, q, run, sql } from '../../../db/sql';
import type { StageName } from './stage-names';

/** `now() - staleSec seconds`: a change older than this is stale. */
const agoSec = (sec: number) => sql<Date>`now() - make_interval(secs => ${sec})`;
const now = () => sql<Date>`now()`;

/** Whether the project still exists (a stage of a deleted project is cancelled). */
export async function projectExists(db: Db, projectId: string): Promise<boolean> {
  return (await first(db, q.selectFrom('projects').select(sql<number>`1`.as('x')).where('id', '=', projectId))) !== null;
}

/** The project's status, its row locked until the transaction ends (null when it is gone). */
export async function lockProjectStatus(db: Db, projectId: string): Promise<string | null> {
  return (await first(db, q.selectFrom('projects').select('status').where('id', '=', projectId).forUpdate()))?.status ?? null;
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

// ------------------------------------------------------------------ fair scheduling (server/jobs/scheduler.ts)

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
