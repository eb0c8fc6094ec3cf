// The pipeline's state machine: stage names, the statuses each stage writes, the ONE function that
// changes a project's status (with its progress and error), and the onDone table that queues the next stage.
import { FAILURE_STATUSES, PROGRESS, type ProjectStatus } from '../../contract/statuses';
import type { Db } from '../db/index';

export const STAGES = [
  'ingest',
  'separate_background',
  'transcribe_segments',
  'transcription',
  'determine_speakers',
  'voice_suggest',
  'translation',
  'voiceover',
  'merging',
  'burn_subtitles',
] as const;
export type StageName = (typeof STAGES)[number];

export function isStage(s: unknown): s is StageName {
  return typeof s === 'string' && (STAGES as readonly string[]).includes(s);
}

export interface StageStatuses {
  started: ProjectStatus;
  done: ProjectStatus;
  failed: ProjectStatus;
}

/** The statuses each stage writes. burn_subtitles is a side task: it leaves the project status alone. */
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
};

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
 * failure statuses, the error code and message (cleared otherwise). Returns false when the project no
 * longer exists.
 */
export async function setStatus(db: Db, projectId: string, status: ProjectStatus, err: StatusError = {}): Promise<boolean> {
  const failure = isFailureStatus(status);
  const rows = await db.query(
    `UPDATE projects SET status = $2, progress = $3, error_code = $4, error_message = $5, updated_at = now()
     WHERE id = $1 RETURNING id`,
    [
      projectId,
      status,
      PROGRESS[status],
      failure ? (err.error_code ?? status) : null,
      failure ? (err.message ?? defaultMessage(status)) : null,
    ],
  );
  return rows.length > 0;
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
