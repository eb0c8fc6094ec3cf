// Every stage has exactly one handler (the Record type makes a missing one a compile error).
import type { StageHandler } from '../pipeline';
import type { StageName } from '../stages';
import { determineSpeakers, separateBackground, transcribeSegments, transcription, voiceSuggest } from './analysis';
import { burnSubtitlesTask, merging, voiceover } from './generation';
import { ingest } from './ingest';
import { translation } from './translation';

export const HANDLERS: Record<StageName, StageHandler> = {
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
};
