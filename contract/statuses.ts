// Project statuses, groups, labels and progress of spec section 4.
export const PROJECT_STATUSES = [
  'created', 'uploading', 'uploaded', 'upload_failed',
  'separate_background_started', 'separate_background_done', 'separate_background_failed',
  'transcribe_segments_started', 'transcribe_segments_done', 'transcribe_segments_failed',
  'transcription_started', 'transcription_done', 'transcription_failed',
  'determine_speakers_started', 'determine_speakers_done', 'determine_speakers_failed',
  'voice_suggest_started', 'voice_suggest_done', 'voice_suggest_failed',
  'translation_started', 'translation_done', 'translation_failed',
  'transcript_edited', 'voice_edited',
  'voice_update_started', 'voice_update_done', 'voice_update_failed',
  'voiceover_started', 'voiceover_done', 'voiceover_failed',
  'merging_started', 'merging_done', 'merging_failed',
  'failed', 'no_audio', 'no_words', 'forbidden_link',
] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

export const FAILURE_STATUSES = [
  'failed', 'upload_failed', 'separate_background_failed', 'transcribe_segments_failed',
  'determine_speakers_failed', 'transcription_failed', 'translation_failed', 'voiceover_failed',
  'merging_failed', 'no_audio', 'no_words', 'forbidden_link',
] as const satisfies readonly ProjectStatus[];

/**
 * Statuses from which a project can be (re)generated: the transcript is translated and nothing runs on it
 * (never generated, edited since, generated, or the last generation failed).
 */
export const GENERATABLE_STATUSES = [
  'translation_done', 'transcript_edited', 'voice_edited', 'voice_update_done', 'voice_update_failed',
  'merging_done', 'voiceover_failed', 'merging_failed',
] as const satisfies readonly ProjectStatus[];

/** Statuses in which the transcript and the voices may be edited (the server refuses edits in the others). */
export const EDITABLE_STATUSES = [...GENERATABLE_STATUSES, 'voice_update_started'] as const satisfies readonly ProjectStatus[];

/** Statuses of the generation phase. */
export const GENERATING_STATUSES = [
  'voiceover_started', 'voiceover_done', 'merging_started',
] as const satisfies readonly ProjectStatus[];

export const FINISHED_STATUSES = ['merging_done'] as const satisfies readonly ProjectStatus[];

/** Statuses of the analysis phase (before the transcript is ready). */
export const ANALYZING_STATUSES = [
  'created', 'uploading', 'uploaded',
  'separate_background_started', 'separate_background_done',
  'transcribe_segments_started', 'transcribe_segments_done',
  'transcription_started', 'transcription_done',
  'determine_speakers_started', 'determine_speakers_done',
  'voice_suggest_started', 'translation_started',
] as const satisfies readonly ProjectStatus[];

export function isFailure(s: ProjectStatus): boolean {
  return (FAILURE_STATUSES as readonly string[]).includes(s);
}
export function isGenerating(s: ProjectStatus): boolean {
  return (GENERATING_STATUSES as readonly string[]).includes(s);
}
export function isFinished(s: ProjectStatus): boolean {
  return (FINISHED_STATUSES as readonly string[]).includes(s);
}
export function isEditable(s: ProjectStatus): boolean {
  return (EDITABLE_STATUSES as readonly string[]).includes(s);
}
export function isGeneratable(s: ProjectStatus): boolean {
  return (GENERATABLE_STATUSES as readonly string[]).includes(s);
}
export function isAnalyzing(s: ProjectStatus): boolean {
  return (ANALYZING_STATUSES as readonly string[]).includes(s);
}

export const PROGRESS: Record<ProjectStatus, number> = {
  created: 1, uploading: 3, uploaded: 7, upload_failed: 100,
  separate_background_started: 10, separate_background_done: 15, separate_background_failed: 100,
  transcribe_segments_started: 16, transcribe_segments_done: 20, transcribe_segments_failed: 100,
  transcription_started: 10, transcription_done: 42, transcription_failed: 100,
  determine_speakers_started: 27, determine_speakers_done: 42, determine_speakers_failed: 100,
  voice_suggest_started: 45, voice_suggest_done: 55, voice_suggest_failed: 55,
  translation_started: 60, translation_done: 100, translation_failed: 100,
  transcript_edited: 100, voice_edited: 100,
  voice_update_started: 100, voice_update_done: 100, voice_update_failed: 100,
  voiceover_started: 65, voiceover_done: 93, voiceover_failed: 100,
  merging_started: 95, merging_done: 100, merging_failed: 100,
  failed: 100, no_audio: 100, no_words: 100, forbidden_link: 100,
};
/** The two variants of the progress table named by the spec. */
export const PROGRESS_VARIANTS = {
  default: PROGRESS,
  voiceFirst: { ...PROGRESS, translation_started: 86, voice_suggest_done: 85 },
  translateFirst: { ...PROGRESS, translation_done: 80, voiceover_started: 85 },
} as const;

export type LabelVariant = 'default' | 'srt' | 'readyOnVoiceSuggest';

const BASE_LABELS: Record<ProjectStatus, string> = {
  created: 'Uploading', uploading: 'Uploading', uploaded: 'Analyzing video',
  upload_failed: 'Upload failed',
  separate_background_started: 'Analyzing video', separate_background_done: 'Analyzing video',
  separate_background_failed: 'Audio separation failed',
  transcribe_segments_started: 'Analyzing video', transcribe_segments_done: 'Analyzing video',
  transcribe_segments_failed: 'Segmentation failed',
  transcription_started: 'Transcribing video', transcription_done: 'Analyzing speakers',
  transcription_failed: 'Transcription failed',
  determine_speakers_started: 'Analyzing speakers', determine_speakers_done: 'Analyzing voices',
  determine_speakers_failed: 'Speaker detection failed',
  voice_suggest_started: 'Analyzing voices', voice_suggest_done: 'Translating text',
  voice_suggest_failed: 'Voice selection failed',
  translation_started: 'Translating text', translation_done: 'Ready to generate video',
  translation_failed: 'Translation failed',
  transcript_edited: 'Ready to generate video', voice_edited: 'Ready to generate video',
  voice_update_started: 'Ready to generate video', voice_update_done: 'Ready to generate video',
  voice_update_failed: 'Ready to generate video',
  voiceover_started: 'Generating video', voiceover_done: 'Generating video',
  voiceover_failed: 'Voiceover failed',
  merging_started: 'Generating video', merging_done: 'Video is generated',
  merging_failed: 'Merging failed',
  failed: 'Error', no_audio: 'Video has no sound', no_words: 'Video lacks speech',
  forbidden_link: 'Forbidden link',
};

export function statusLabel(status: ProjectStatus, variant: LabelVariant = 'default'): string {
  if (variant === 'srt' && (status === 'transcription_started' || status === 'transcription_done')) {
    return 'Analyzing SRT';
  }
  if (variant === 'readyOnVoiceSuggest' && status === 'voice_suggest_done') return 'Ready to generate video';
  return BASE_LABELS[status];
}
/** error_code of a project whose run its user stopped (POST /api/project/{id}/cancel). */
export const CANCELLED_CODE = 'cancelled';

/** A project whose run its user stopped: shown as cancelled, never as a failure to report. */
export function isCancelled(p: { status: ProjectStatus; error_code?: string | null }): boolean {
  return p.error_code === CANCELLED_CODE && isFailure(p.status);
}

/** A project that failed by itself (not cancelled by its user): shown as an error, with "What went wrong?". */
export function isProblem(p: { status: ProjectStatus; error_code?: string | null }): boolean {
  return isFailure(p.status) && !isCancelled(p);
}

/** The status as its user reads it: a stopped dub says "Dubbing cancelled", a stopped analysis "Cancelled". */
export function projectStatusLabel(p: { status: ProjectStatus; error_code?: string | null }, variant: LabelVariant = 'default'): string {
  if (isCancelled(p)) return p.status === 'voiceover_failed' || p.status === 'merging_failed' ? 'Dubbing cancelled' : 'Cancelled';
  return statusLabel(p.status, variant);
}

/** @internal Used by tests only. */
export function progressOf(status: ProjectStatus, variant: keyof typeof PROGRESS_VARIANTS = 'default'): number {
  return PROGRESS_VARIANTS[variant][status];
}

/**
 * Statuses that change without the user (analysis, voice suggestion, generation, voice updates): screens that
 * show such a project poll it. A failed voice suggestion goes on to the translation, unless its user cancelled it
 * (`errorCode` 'cancelled'): then nothing follows.
 */
export function isWorking(s: ProjectStatus, errorCode?: string | null): boolean {
  if (s === 'voice_suggest_failed') return errorCode !== 'cancelled';
  return isAnalyzing(s) || isGenerating(s) || s === 'voice_update_started' || s === 'voice_suggest_done';
}
