import { describe, expect, it } from 'vitest';
import {
  ANALYZING_STATUSES, EDITABLE_STATUSES, FAILURE_STATUSES, GENERATING_STATUSES, PROGRESS, PROGRESS_VARIANTS,
  PROJECT_STATUSES, isAnalyzing, isCancelled, isProblem, projectStatusLabel, isEditable, isFailure, isFinished, isGeneratable, isGenerating, isWorking, progressOf, statusLabel,
} from '../../contract/statuses';

describe('project statuses', () => {
  it('lists the 37 statuses of the spec once each', () => {
    expect(PROJECT_STATUSES).toHaveLength(37);
    expect(new Set(PROJECT_STATUSES).size).toBe(37);
  });

  it('has the failure group of the spec', () => {
    expect([...FAILURE_STATUSES].sort()).toEqual([
      'determine_speakers_failed', 'failed', 'forbidden_link', 'merging_failed', 'no_audio', 'no_words',
      'separate_background_failed', 'transcribe_segments_failed', 'transcription_failed', 'translation_failed',
      'upload_failed', 'voiceover_failed',
    ]);
    expect(isFailure('no_audio')).toBe(true);
    expect(isFailure('merging_done')).toBe(false);
    // voice_suggest_failed is not a failure of the project: its progress stays at 55.
    expect(isFailure('voice_suggest_failed')).toBe(false);
  });

  it('puts every status in a group, and failures in no working group', () => {
    for (const s of PROJECT_STATUSES) {
      const groups = [isFailure(s), isWorking(s), isFinished(s), isEditable(s)];
      expect(groups.some(Boolean), s).toBe(true);
      if (isFailure(s)) expect(isAnalyzing(s) || isGenerating(s) || isFinished(s), s).toBe(false);
    }
    expect(isEditable('merging_done')).toBe(true);
    expect(isEditable('voiceover_failed')).toBe(true);
    expect(isEditable('uploading')).toBe(false);
    // Voice suggestion is followed by the translation stage: nothing to edit yet.
    expect(isEditable('voice_suggest_done')).toBe(false);
    expect(isEditable('voice_suggest_failed')).toBe(false);
    // Voices being updated may still be edited, but not generated again until they are done.
    expect(isEditable('voice_update_started')).toBe(true);
    expect(isGeneratable('voice_update_started')).toBe(false);
    for (const s of EDITABLE_STATUSES) expect(isWorking(s) && s !== 'voice_update_started', s).toBe(false);
    expect(GENERATING_STATUSES).toContain('merging_started');
    expect(ANALYZING_STATUSES).toContain('translation_started');
  });
});

describe('progress', () => {
  it('matches the spec table', () => {
    const expected: Record<string, number> = {
      created: 1, uploading: 3, uploaded: 7,
      separate_background_started: 10, separate_background_done: 15,
      transcribe_segments_started: 16, transcribe_segments_done: 20,
      determine_speakers_started: 27, determine_speakers_done: 42,
      transcription_started: 10, transcription_done: 42,
      voice_suggest_started: 45, voice_suggest_done: 55, voice_suggest_failed: 55,
      translation_started: 60, translation_done: 100,
      voiceover_started: 65, voiceover_done: 93,
      merging_started: 95, merging_done: 100,
      transcript_edited: 100, voice_edited: 100, voice_update_started: 100, voice_update_done: 100, voice_update_failed: 100,
    };
    for (const [s, p] of Object.entries(expected)) expect(PROGRESS[s as keyof typeof PROGRESS], s).toBe(p);
    for (const s of FAILURE_STATUSES) expect(PROGRESS[s], s).toBe(100);
    for (const s of PROJECT_STATUSES) expect(PROGRESS[s], s).toBeGreaterThan(0);
  });

  it('applies the two variants on top of the default table', () => {
    expect(progressOf('translation_started', 'voiceFirst')).toBe(86);
    expect(progressOf('voice_suggest_done', 'voiceFirst')).toBe(85);
    expect(progressOf('translation_done', 'translateFirst')).toBe(80);
    expect(progressOf('voiceover_started', 'translateFirst')).toBe(85);
    expect(progressOf('translation_started')).toBe(60);
    const changed = PROJECT_STATUSES.filter((s) => PROGRESS_VARIANTS.voiceFirst[s] !== PROGRESS[s]);
    expect(changed.sort()).toEqual(['translation_started', 'voice_suggest_done']);
  });
});

describe('labels', () => {
  it('uses the spec labels', () => {
    expect(statusLabel('uploading')).toBe('Uploading');
    expect(statusLabel('uploaded')).toBe('Analyzing video');
    // The spec's 'Transcripting video' reads as a typo to users; issue 34 asked for the word people use.
    expect(statusLabel('transcription_started')).toBe('Transcribing video');
    expect(statusLabel('determine_speakers_started')).toBe('Analyzing speakers');
    expect(statusLabel('voice_suggest_started')).toBe('Analyzing voices');
    expect(statusLabel('translation_started')).toBe('Translating text');
    expect(statusLabel('translation_done')).toBe('Ready to generate video');
    expect(statusLabel('voiceover_started')).toBe('Generating video');
    expect(statusLabel('merging_done')).toBe('Video is generated');
    expect(statusLabel('failed')).toBe('Error');
    expect(statusLabel('forbidden_link')).toBe('Forbidden link');
    expect(statusLabel('no_audio')).toBe('Video has no sound');
    expect(statusLabel('no_words')).toBe('Video lacks speech');
  });

  it('has the SRT and ready-on-voice-suggest variants', () => {
    expect(statusLabel('transcription_started', 'srt')).toBe('Analyzing SRT');
    expect(statusLabel('voice_suggest_done')).toBe('Translating text');
    expect(statusLabel('voice_suggest_done', 'readyOnVoiceSuggest')).toBe('Ready to generate video');
  });

  it('gives every failed stage its own failure label', () => {
    const stageFailures = FAILURE_STATUSES.filter((x) => x.endsWith('_failed'));
    expect(stageFailures).toHaveLength(8);
    for (const s of stageFailures) expect(statusLabel(s), s).toMatch(/ failed$/);
    expect(new Set(stageFailures.map((s) => statusLabel(s))).size).toBe(stageFailures.length);
    expect(statusLabel('upload_failed')).toBe('Upload failed');
    expect(statusLabel('translation_failed')).toBe('Translation failed');
  });

  it('a run its user cancelled reads as cancelled and is not a problem to report; other failures are', () => {
    expect(projectStatusLabel({ status: 'transcription_failed', error_code: 'cancelled' })).toBe('Cancelled');
    expect(projectStatusLabel({ status: 'voiceover_failed', error_code: 'cancelled' })).toBe('Dubbing cancelled');
    expect(projectStatusLabel({ status: 'merging_failed', error_code: 'cancelled' })).toBe('Dubbing cancelled');
    expect(projectStatusLabel({ status: 'voiceover_failed', error_code: 'tts_failed' })).toBe('Voiceover failed');
    expect(projectStatusLabel({ status: 'transcription_started', error_code: null }, 'srt')).toBe('Analyzing SRT');
    expect(isCancelled({ status: 'upload_failed', error_code: 'cancelled' })).toBe(true);
    expect(isProblem({ status: 'upload_failed', error_code: 'cancelled' })).toBe(false);
    expect(isProblem({ status: 'upload_failed', error_code: 'corrupt' })).toBe(true);
    // A cancelled voice suggestion is not followed by the translation: nothing works on it any more.
    expect(isWorking('voice_suggest_failed')).toBe(true);
    expect(isWorking('voice_suggest_failed', 'cancelled')).toBe(false);
    // A code left from an earlier cancelled run does not make a running or finished project "cancelled".
    expect(isCancelled({ status: 'merging_done', error_code: 'cancelled' })).toBe(false);
  });
});
