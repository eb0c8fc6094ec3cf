// When Generate is enabled (spec: "enabled when there is something to generate") and what it shows.
import type { Project } from '../../../../contract/schemas/project';
import { isAnalyzing, isEditable, isFinished, isGenerating, type ProjectStatus } from '../../../../contract/statuses';

/**
 * Before the transcript is ready: analysis statuses, and the voice-suggest results, which the pipeline
 * follows with the translation stage (the transcript has no translation yet).
 */
export function isPreparing(s: ProjectStatus): boolean {
  return isAnalyzing(s) || s === 'voice_suggest_done' || s === 'voice_suggest_failed';
}

export function isBusy(s: ProjectStatus): boolean {
  return isGenerating(s) || s === 'voice_update_started';
}

/**
 * Something to generate: the project is in the editing phase (never generated, edited since, or the last
 * generation failed), or it was generated and segments changed since, or there are local unsaved edits.
 */
export function canGenerate(p: Pick<Project, 'status' | 'changed_segments'>, localChanges = 0): boolean {
  if (isBusy(p.status) || isPreparing(p.status)) return false;
  if (!isEditable(p.status)) return false;
  if (isFinished(p.status)) return p.changed_segments > 0 || localChanges > 0;
  return true;
}

/** The line under the Generate button. */
export function generateHint(p: Pick<Project, 'status' | 'changed_segments' | 'translated_video'>, localChanges = 0): string {
  if (isBusy(p.status)) return 'Generating the dubbed video…';
  const changed = p.changed_segments + localChanges;
  if (!p.translated_video) return 'Voices are generated for every segment.';
  if (changed > 0) return `${changed} changed ${changed === 1 ? 'segment' : 'segments'} will be voiced again.`;
  if (isFinished(p.status)) return 'Nothing changed since the last generation.';
  return 'Voices and video are generated again with your changes.';
}
