// Calls of the editor: transcript, speakers and voices, generate, downloads, copy, feedback.
import { mutate } from 'swr';
import { call, client } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';
import { TIMEOUT_HEADER } from '../../lib/http';
import type { AsrWordsResponse, Project, Segment, SegmentTimingResponse } from '../../../contract/schemas/project';
import type { SegmentRewriteRequest, SegmentRewriteResponse } from '../../../contract/schemas/tools';

const project = (id: string) => ({ params: { path: { id } } });
const voicePoolKey = (projectId: string) => apiKey('/api/project/{id}/voice_pool', project(projectId));
const segment = (id: string, segmentId: string) => ({ params: { path: { id, segmentId } } });


export function useTranscript(projectId: string | null, pollMs = 0) {
  return useApiGet('/api/project/{id}/transcript', projectId ? project(projectId) : null, {
    revalidateOnFocus: false,
    revalidateOnReconnect: false,
    refreshInterval: pollMs,
  });
}

/** One chunk of changed segments (the store sends chunks of 50 in parallel). */
export async function patchSegments(projectId: string, segments: Segment[]): Promise<Segment[]> {
  const r = await call(client.PATCH('/api/project/{id}/transcript', { ...project(projectId), body: { segments } }));
  return r.segments;
}

export type NewSegment = Omit<Segment, 'id' | 'status'>;
export async function addSegments(projectId: string, segments: NewSegment[]): Promise<Segment[]> {
  const r = await call(client.POST('/api/project/{id}/transcript', { ...project(projectId), body: { segments } }));
  return r.segments;
}

export function deleteSegment(projectId: string, segmentId: string): Promise<unknown> {
  return call(client.DELETE('/api/project/{id}/transcript/{segmentId}', segment(projectId, segmentId)));
}

export async function mergeSegments(projectId: string, segmentIds: string[]): Promise<Segment[]> {
  const r = await call(client.POST('/api/project/{id}/transcript/merge', { ...project(projectId), body: { segment_ids: segmentIds } }));
  return r.segments;
}

export function useVoicePool(projectId: string | null) {
  return useApiGet('/api/project/{id}/voice_pool', projectId ? project(projectId) : null);
}

export function updateSpeakers(projectId: string, speakers: Array<{ id: string; name?: string; voice_id?: string | null }>): Promise<Project> {
  return call(client.PATCH('/api/project/{id}', { ...project(projectId), body: { speakers } }));
}

/**
 * An instant clone of a speaker (an instant voice preset made from the speaker's own speech): made, waited for
 * (statuses move from processing to done or error), then given to the speaker. Answers the project.
 */
export async function instantCloneSpeaker(projectId: string, speakerId: string): Promise<Project> {
  const preset = await call(
    client.POST('/api/voice_preset/from_project', {
      body: { project_id: projectId, speaker_id: speakerId, is_temporary: true },
      headers: { [TIMEOUT_HEADER]: '300000' },
    }),
  );
  let status = preset.status;
  let error = preset.error;
  for (let i = 0; status === 'processing' && i < 300; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    const rows = await call(client.GET('/api/voice_preset/statuses', { params: { query: { ids: preset.id } } }));
    status = rows[0]?.status ?? 'error';
    error = rows[0]?.error ?? error;
  }
  if (status !== 'done') throw new Error(error ?? 'The instant clone could not be made');
  await mutate(voicePoolKey(projectId));
  return updateSpeakers(projectId, [{ id: speakerId, voice_id: preset.voice_id }]);
}

export function generate(projectId: string): Promise<Project> {
  return call(client.POST('/api/project/{id}/generate', project(projectId)));
}

/** Stops what runs on the project (analysis, dub, lip-sync); a cancelled dub's minutes come back. */
export function cancelRun(projectId: string): Promise<Project> {
  return call(client.POST('/api/project/{id}/cancel', project(projectId)));
}

/** Starts a cancelled analysis again from the stage it was stopped in. */
export function restartAnalysis(projectId: string): Promise<Project> {
  return call(client.POST('/api/project/{id}/restart', project(projectId)));
}

export const MEDIA_TYPES = ['video', 'audio', 'voiceover', 'srt', 'vtt', 'original', 'lipsync', 'lipsync_subtitles'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

export function mediaDownload(projectId: string, mediaType: MediaType): Promise<{ url: string }> {
  return call(client.POST('/api/project/{id}/media_download', { ...project(projectId), body: { media_type: mediaType } }));
}

export function burnSubtitles(projectId: string, videoType: 'translated' | 'original' = 'translated'): Promise<Project> {
  return call(client.POST('/api/project/{id}/burn_subtitles', { params: { path: { id: projectId }, query: { video_type: videoType } } }));
}

export function copyProject(projectId: string, dstLang: string, freeDubbing = false): Promise<Project> {
  return call(client.POST('/api/project/{id}/copy', { ...project(projectId), body: { dst_lang: dstLang, free_dubbing: freeDubbing } }));
}

export function sendFeedback(projectId: string, body: { comment: string; options: string[] }): Promise<unknown> {
  return call(client.POST('/api/project/{id}/feedback', { ...project(projectId), body }));
}

/** Starts the face check (the project's face_check fills in). */
export function runCheckFaces(projectId: string): Promise<Project> {
  return call(client.POST('/api/project/{id}/run_check_face_task', project(projectId)));
}

/** Starts lip-sync of the dubbed video. */
export function runLipsync(projectId: string, o: { isMultipleSpeakers: boolean; isFree?: boolean }): Promise<Project> {
  return call(
    client.POST('/api/project/{id}/run_lipsync_task', {
      ...project(projectId),
      body: { is_free_lipsync: !!o.isFree, is_multiple_speakers: o.isMultipleSpeakers },
    }),
  );
}

/** The space's dictionaries for the project's languages (the Dictionary feature must be available). */
export function useProjectDictionaries(project: Pick<Project, 'space_id' | 'src_lang' | 'dst_lang'>, enabled: boolean) {
  const query = { source_lang: project.src_lang, target_lang: project.dst_lang, space_id: project.space_id };
  return useApiGet('/api/glossary', enabled ? { params: { query } } : null);
}

/** PATCH {id}/glossary?glossary_id: the project's dictionary (null = none). */
export function setProjectDictionary(projectId: string, glossaryId: string | null): Promise<Project> {
  return call(client.PATCH('/api/project/{id}/glossary', { params: { path: { id: projectId }, query: { glossary_id: glossaryId ?? 'null' } } }));
}


/** The quality report of the last dub (null key: none expected yet). */
export function useQuality(projectId: string | null) {
  return useApiGet('/api/project/{id}/quality', projectId ? project(projectId) : null, { revalidateOnFocus: false, shouldRetryOnError: false });
}

/** The quality report as a CSV file (a Blob to save). */
export function qualityCsv(projectId: string): Promise<Blob> {
  return call(client.GET('/api/project/{id}/quality', { params: { path: { id: projectId }, query: { format: 'csv' } }, parseAs: 'blob' }));
}

/** An AI proposal for one segment's translation (nothing is saved). */
export function rewriteSegment(projectId: string, segmentId: string, body: SegmentRewriteRequest): Promise<SegmentRewriteResponse> {
  return call(client.POST('/api/project/{id}/transcript/{segmentId}/rewrite', { ...segment(projectId, segmentId), body, headers: { [TIMEOUT_HEADER]: '120000' } }));
}

/** POST {id}/transcript/{segmentId}/shorten: the line rewritten to fit its slot (the LLM when configured, else offline rewrites), saved. */
export interface ShortenResult {
  segment: Segment;
  method: 'llm' | 'offline';
  budget_chars: number;
  before_chars: number;
  after_chars: number;
}
export function shortenSegment(projectId: string, segmentId: string): Promise<ShortenResult> {
  return call(client.POST('/api/project/{id}/transcript/{segmentId}/shorten', { ...segment(projectId, segmentId), body: {}, headers: { [TIMEOUT_HEADER]: '120000' } }));
}

/** POST {id}/transcript/{segmentId}/borrow_pause: the segment's end moved into the silence after it (409: no pause). */
export function borrowPause(projectId: string, segmentId: string): Promise<SegmentTimingResponse> {
  return call(client.POST('/api/project/{id}/transcript/{segmentId}/borrow_pause', segment(projectId, segmentId)));
}

/** POST {id}/transcript/{segmentId}/keep_original: the original audio plays over the segment (keep), or it is dubbed again. */
export function keepOriginal(projectId: string, segmentId: string, keep: boolean): Promise<SegmentTimingResponse> {
  return call(client.POST('/api/project/{id}/transcript/{segmentId}/keep_original', { ...segment(projectId, segmentId), body: { keep } }));
}


/** The project's word list for speech recognition (GET {id}/asr_words). */
export function useAsrWords(projectId: string | null) {
  return useApiGet('/api/project/{id}/asr_words', projectId ? project(projectId) : null, { revalidateOnFocus: false });
}

/** PUT {id}/asr_words: replaces the list; returns it as stored (cleaned). */
export function saveAsrWords(projectId: string, words: string[]): Promise<AsrWordsResponse> {
  return call(client.PUT('/api/project/{id}/asr_words', { ...project(projectId), body: { words } }));
}
