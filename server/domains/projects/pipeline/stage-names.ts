// The project pipeline's stages, in their order: below the state machine (stages.ts) and the job table's SQL
// (repository.ts), which both name them.
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
  'check_face',
  'lipsync',
] as const;
export type StageName = (typeof STAGES)[number];
