// The project stages the pipeline runs (registered in the composition root, server/bootstrap.ts): exactly one
// handler per stage (the Record type makes a missing one a compile error), and the failure hook of the
// subtitle-burning side task, which keeps its own state instead of the project's status.
import type { StageFailureHook, StageRegistry } from '../pipeline/registry';
import { recordSideTaskFailure } from '../pipeline/repository';
import { notifySideTaskFailure, type StageName } from '../pipeline/stages';
import { updateProjectFields } from '../repository';
import { determineSpeakers } from './determine-speakers';
import { separateBackground } from './separate-background';
import { transcribeSegments } from './transcribe-segments';
import { transcription } from './transcription';
import { voiceSuggest } from './voice-suggest';
import { withProject, type ProjectStageHandler } from './common';
import { burnSubtitlesTask } from './burn-subtitles';
import { merging } from './merging';
import { voiceover } from './voiceover';
import { ingest } from './ingest';
import { checkFace, lipsync } from './lipsync';
import { translation } from './translation';
import { continueDemo } from '../../demo/service';
import { jobsAtOnce } from '../../billing/jobs-at-once';
import { continueBatch } from '../../batches/service';

function sideTaskFailed(stage: StageName): StageFailureHook {
  return async (db, projectId, message, code) => {
    await recordSideTaskFailure(db, projectId, stage, message, code);
    await notifySideTaskFailure(db, { projectId, stage, message, code });
  };
}

const STAGE_HANDLERS: Record<StageName, ProjectStageHandler> = {
  ingest,
  separate_background: separateBackground,
  transcribe_segments: transcribeSegments,
  transcription,
  determine_speakers: determineSpeakers,
  voice_suggest: voiceSuggest,
  translation,
  voiceover,
  merging,
  burn_subtitles: burnSubtitlesTask,
  check_face: checkFace,
  lipsync,
};

export const PROJECT_STAGES: StageRegistry = {
  handlers: Object.fromEntries(Object.entries(STAGE_HANDLERS).map(([s, h]) => [s, withProject(h)])) as StageRegistry['handlers'],
  onFailed: {
    burn_subtitles: async (db, projectId, message) => {
      await updateProjectFields(db, projectId, { subtitles_burn_state: 'failed', subtitles_burn_error: message });
    },
    // The face check and lip-sync keep their own state; a failed or cancelled lip-sync is refunded (billing
    // listens through onSideTaskFailure), in the transaction of the failure.
    check_face: sideTaskFailed('check_face'),
    lipsync: sideTaskFailed('lipsync'),
  },
  // A demo project is dubbed right after its translation, at no cost (server/domains/demo).
  // A language of a batch asked with "generate when ready" is dubbed right after its translation (server/domains/batches).
  continueAfter: async (db, projectId, stage) => (await continueDemo(db, projectId, stage)) ?? (await continueBatch(db, projectId, stage)),
  // The plan's jobs at once per Teamspace, enforced by the pipeline's scheduler.
  jobsAtOnce,
};
