// The project pipeline's state machine: stage names, the statuses each stage writes, the ONE function that
// changes a project's status (with its progress and error), and the onDone table that queues the next stage. The job
// runtime (server/jobs) runs the stages; hooks.ts tells it what they mean for a project.
import { FAILURE_STATUSES, PROGRESS, type ProjectStatus } from '../../../../contract/statuses';
import { namespace } from '../../../cache/index';
import type { Db } from '../../../db/index';
import { projectEventsOf } from '../../../live/events';
import { raiseProgress, writeStatus } from './repository';
import { storableText } from '../../../db/text';
import { STAGES, type StageName } from './stage-names';

export { STAGES, type StageName };

export interface StageStatuses {
  started: ProjectStatus;
  done: ProjectStatus;
  failed: ProjectStatus;
}

/**
 * The statuses each stage writes. burn_subtitles, check_face and lipsync are side tasks: they leave the
 * project status alone and keep their own state (subtitles_burn_*, face_check, lipsync_*).
 */
export const STAGE_STATUS: Record<StageName, StageStatuses | null> = {
  ingest: { started: 'uploading', done: 'uploaded', failed: 'upload_failed' },
  separate_background: {
    started: 'separate_background_started', done: 'separate_background_done', failed: 'separate_background_failed',
  },
  transcribe_segments: {
    started: 'transcribe_segments_started', done: 'transcribe_segments_done', failed: 'transcribe_segments_failed',
  },
  transcription: { started: 'transcription_started', done: 'transcription_done', failed: 'transcription_failed' },
  determine_speakers: {
    started: 'determine_speakers_started', done: 'determine_speakers_done', failed: 'determine_speakers_failed',
  },
  voice_suggest: { started: 'voice_suggest_started', done: 'voice_suggest_done', failed: 'voice_suggest_failed' },
  translation: { started: 'translation_started', done: 'translation_done', failed: 'translation_failed' },
  voiceover: { started: 'voiceover_started', done: 'voiceover_done', failed: 'voiceover_failed' },
  merging: { started: 'merging_started', done: 'merging_done', failed: 'merging_failed' },
  burn_subtitles: null,
  check_face: null,
  lipsync: null,
};

/** Side tasks that record their own failure (see repository.ts recordSideTaskFailure). */
export const SIDE_TASKS: ReadonlySet<StageName> = new Set<StageName>(['check_face', 'lipsync']);

/**
 * THE pipeline graph: which stage follows each one. null: the pipeline stops there (translation waits for
 * the user to edit and press generate; merging is the end).
 */
export const ON_DONE: Record<StageName, StageName | null> = {
  ingest: 'separate_background',
  separate_background: 'transcribe_segments',
  transcribe_segments: 'transcription',
  transcription: 'determine_speakers',
  determine_speakers: 'voice_suggest',
  voice_suggest: 'translation',
  translation: null,
  voiceover: 'merging',
  merging: null,
  burn_subtitles: null,
  check_face: null,
  lipsync: null,
};

/**
 * For the sweep: the stage that must run for a project left in `status` (a stage in flight, or a stage done
 * whose successor was never queued). null for statuses that wait for a person or are final.
 */
export function stageToResume(status: ProjectStatus): StageName | null {
  if (status === 'created') return 'ingest';
  for (const s of STAGES) {
    const st = STAGE_STATUS[s];
    if (!st) continue;
    if (st.started === status) return s;
    if (st.done === status) return ON_DONE[s];
  }
  return null;
}

export function isFailureStatus(s: string): boolean {
  return (FAILURE_STATUSES as readonly string[]).includes(s);
}

export interface StatusError {
  /** Machine-readable cause (e.g. 'too_long', 'no_speech', 'corrupt'); defaults to the status. */
  error_code?: string;
  /** The text a person reads (shown as error_message). */
  message?: string;
}

/**
 * The ONE place a project's status changes: writes the status, its progress (contract PROGRESS) and, for
 * failure statuses, the error code and message (cleared otherwise), and tells the live event stream.
 * Returns false when the project no longer exists.
 */
export async function setStatus(db: Db, projectId: string, status: ProjectStatus, err: StatusError = {}): Promise<boolean> {
  const failure = isFailureStatus(status);
  // One transaction (joining the caller's): the status and what its listeners write commit together.
  return db.tx(async (t) => {
    const row = await writeStatus(t, projectId, {
      status,
      progress: PROGRESS[status],
      // A status that is not a failure keeps an error only when one is given: voice_suggest_failed (non-fatal) must
      // say whether it was cancelled (the pipeline then stops there) or failed (the pipeline goes on).
      error_code: failure ? (err.error_code ?? status) : (err.error_code ?? null),
      error_message: failure ? storableText(err.message ?? defaultMessage(status)) : err.message !== undefined ? storableText(err.message) : null,
    });
    if (!row) return false;
    await pipelineListenersOf(t).statusChanged(t, { projectId, status, previous: row.previous });
    // Told once committed: a listener that reads the project on the event finds the new status.
    const event = { id: projectId, space_id: row.space_id, status, progress: PROGRESS[status] };
    t.afterCommit(() => projectEventsOf(t).publish(event));
    return true;
  });
}

export interface StatusChange {
  projectId: string;
  status: ProjectStatus;
  previous: ProjectStatus;
}
/** Runs inside the transaction of the status change (billing refunds, webhook events...). */
export type StatusListener = (db: Db, change: StatusChange) => Promise<void>;

/**
 * Progress inside a running stage: `fraction` (0..1) of the stage's work moves the project's progress
 * from the percentage of the stage's started status toward that of its done status (never backwards, and
 * only while the project is still in `started`). Returns the new progress, or null when nothing changed.
 */
export async function setProgress(db: Db, projectId: string, statuses: StageStatuses, fraction: number): Promise<number | null> {
  const from = PROGRESS[statuses.started];
  const to = PROGRESS[statuses.done];
  if (!(to > from)) return null;
  const f = Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
  // the done percentage is written by setStatus when the stage ends
  const value = Math.min(to - 1, Math.floor(from + (to - from) * f));
  const row = await raiseProgress(db, projectId, statuses.started, value);
  if (!row) return null;
  const event = { id: projectId, space_id: row.space_id, status: statuses.started, progress: value };
  db.afterCommit(() => projectEventsOf(db).publish(event));
  return value;
}

function defaultMessage(status: ProjectStatus): string {
  switch (status) {
    case 'no_audio': return 'The video has no sound';
    case 'no_words': return 'No speech was found in the video';
    case 'forbidden_link': return 'The video could not be downloaded from this link';
    case 'upload_failed': return 'The upload failed';
    default: return 'Processing failed';
  }
}

/** A failure a stage expects (bad input): the project ends in `status` with `message`. */
export class StageFailure extends Error {
  override readonly name = 'StageFailure';
  constructor(
    readonly status: ProjectStatus,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface SideTaskFailure {
  projectId: string;
  stage: StageName;
  message: string;
  code: string;
}
/** Runs inside the transaction that records a side task's failure or cancellation (billing refunds). */
export type SideTaskFailureListener = (db: Db, failure: SideTaskFailure) => Promise<void>;

/**
 * What the domains do with a status change or a side task's (lip-sync, face check) failure, in the same
 * transaction (the projects domain imports none of them for it): one per app, wired by its composition root (server/bootstrap.ts
 * buildDeps, AppDeps.listeners). Registering the same function twice keeps one.
 */
export class PipelineListeners {
  readonly #status: StatusListener[] = [];
  readonly #sideTask: SideTaskFailureListener[] = [];

  onStatusChange(l: StatusListener): void {
    if (!this.#status.includes(l)) this.#status.push(l);
  }

  onSideTaskFailure(l: SideTaskFailureListener): void {
    if (!this.#sideTask.includes(l)) this.#sideTask.push(l);
  }

  async statusChanged(db: Db, change: StatusChange): Promise<void> {
    for (const l of this.#status) await l(db, change);
  }

  async sideTaskFailed(db: Db, f: SideTaskFailure): Promise<void> {
    for (const l of this.#sideTask) await l(db, f);
  }
}

const LISTENERS = namespace('pipeline.listeners', () => new PipelineListeners());

/** The listeners of the app over `db` (its state, server/cache). */
export function pipelineListenersOf(db: Db): PipelineListeners {
  return db.state.of(LISTENERS);
}

export async function notifySideTaskFailure(db: Db, f: SideTaskFailure): Promise<void> {
  await pipelineListenersOf(db).sideTaskFailed(db, f);
}
