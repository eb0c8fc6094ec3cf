// Calls of the editor: transcript, speakers and voices, generate, downloads, copy, feedback.
import useSWR from 'swr';
import { fetcher, request, type ApiError } from '../../lib/http';
import type { Project, Segment } from '../../../contract/schemas/project';

export const transcriptKey = (projectId: string) => `/api/project/${projectId}/transcript`;
export const voicePoolKey = (projectId: string) => `/api/project/${projectId}/voice_pool`;

export interface TranscriptResponse {
  segments: Segment[];
}

export function useTranscript(projectId: string | null, pollMs = 0) {
  return useSWR<TranscriptResponse, ApiError>(projectId ? transcriptKey(projectId) : null, fetcher, {
    revalidateOnFocus: false,
    revalidateOnReconnect: false,
    refreshInterval: pollMs,
  });
}

export function fetchTranscript(projectId: string, ids?: string[]): Promise<TranscriptResponse> {
  const searchParams = ids && ids.length > 0 ? new URLSearchParams(ids.map((id) => ['segments', id])) : undefined;
  return request((c) => c.get(`project/${projectId}/transcript`, { searchParams }).json<TranscriptResponse>());
}

/** One chunk of changed segments (the store sends chunks of 50 in parallel). */
export async function patchSegments(projectId: string, segments: Segment[]): Promise<Segment[]> {
  const r = await request((c) => c.patch(`project/${projectId}/transcript`, { json: { segments } }).json<TranscriptResponse>());
  return r.segments;
}

export type NewSegment = Omit<Segment, 'id' | 'status'>;
export async function addSegments(projectId: string, segments: NewSegment[]): Promise<Segment[]> {
  const r = await request((c) => c.post(`project/${projectId}/transcript`, { json: { segments } }).json<TranscriptResponse>());
  return r.segments;
}

export function deleteSegment(projectId: string, segmentId: string): Promise<unknown> {
  return request((c) => c.delete(`project/${projectId}/transcript/${segmentId}`).json());
}

export async function mergeSegments(projectId: string, segmentIds: string[]): Promise<Segment[]> {
  const r = await request((c) => c.post(`project/${projectId}/transcript/merge`, { json: { segment_ids: segmentIds } }).json<TranscriptResponse>());
  return r.segments;
}

export interface Voice {
  id: string;
  name: string;
  gender: string | null;
  language: string;
  sample_url: string | null;
}

export function useVoicePool(projectId: string | null) {
  return useSWR<{ voices: Voice[] }>(projectId ? voicePoolKey(projectId) : null, fetcher);
}

export function updateSpeakers(projectId: string, speakers: Array<{ id: string; name?: string; voice_id?: string | null }>): Promise<Project> {
  return request((c) => c.patch(`project/${projectId}`, { json: { speakers } }).json<Project>());
}

export function generate(projectId: string): Promise<Project> {
  return request((c) => c.post(`project/${projectId}/generate`).json<Project>());
}

export const MEDIA_TYPES = ['video', 'audio', 'voiceover', 'srt', 'vtt', 'original'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

export function mediaDownload(projectId: string, mediaType: MediaType): Promise<{ url: string }> {
  return request((c) => c.post(`project/${projectId}/media_download`, { json: { media_type: mediaType } }).json<{ url: string }>());
}

export function burnSubtitles(projectId: string, videoType: 'translated' | 'original' = 'translated'): Promise<Project> {
  return request((c) => c.post(`project/${projectId}/burn_subtitles`, { searchParams: { video_type: videoType } }).json<Project>());
}

export function copyProject(projectId: string, dstLang: string, freeDubbing = false): Promise<Project> {
  return request((c) => c.post(`project/${projectId}/copy`, { json: { dst_lang: dstLang, free_dubbing: freeDubbing } }).json<Project>());
}

export function sendFeedback(projectId: string, body: { comment: string; options: string[] }): Promise<unknown> {
  return request((c) => c.post(`project/${projectId}/feedback`, { json: body }).json());
}

export const projectKey = (id: string) => `/api/project/${id}`;
