// The Voice Clone Library's calls (/api/voice_preset, the uploads of /api/library, the tutorial flag). Keys are the
// API paths as the browser sees them.
import { useSWRConfig } from 'swr';
import type { VoicePreset } from '../../../contract/schemas/voice-preset';
import { call, client, spaceQuery } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';
import { TIMEOUT_HEADER, request } from '../../lib/http';

/** Uploads, cloning and samples may take minutes. */
const LONG = { [TIMEOUT_HEADER]: '300000' };

const presetList = (spaceId: string) => ({ params: { query: { space_id: spaceId } } });
export const presetListKey = (spaceId: string) => apiKey('/api/voice_preset', presetList(spaceId));

export function usePresetList(spaceId: string | null, enabled: boolean) {
  return useApiGet('/api/voice_preset', spaceId && enabled ? presetList(spaceId) : null);
}

/** Polls the statuses of presets still being made; refreshes the list when one is done or failed. */
export function usePresetStatuses(spaceId: string | null, processing: string[]) {
  const { mutate } = useSWRConfig();
  return useApiGet('/api/voice_preset/statuses', processing.length ? { params: { query: { ids: processing.join(',') } } } : null, {
    refreshInterval: 1500,
    onSuccess: (rows) => {
      if (spaceId && rows.some((r) => r.status !== 'processing')) void mutate(presetListKey(spaceId));
    },
  });
}

/** Projects of the space with their speakers (to clone a speaker's voice). */
export function useSpaceProjects(spaceId: string | null, enabled: boolean) {
  return useApiGet('/api/project/paginated', spaceId && enabled ? { params: { query: { space_id: spaceId, limit: '100' } } } : null);
}

export function useRefreshPresets() {
  const { mutate } = useSWRConfig();
  return (spaceId: string) => mutate(presetListKey(spaceId));
}

/** Uploads a recording (audio kept as it is; a video's sound is extracted on the server). */
export async function uploadSample(file: File): Promise<{ id: string; status: string; error?: string | null }> {
  const form = new FormData();
  form.set('file', file, file.name);
  const isVideo = file.type.startsWith('video/') || /\.(mp4|mov|mkv|webm|avi|m4v)$/i.test(file.name);
  if (isVideo) return request((c) => c.post('library/media/extract-audio', { body: form, headers: LONG }).json());
  form.set('kind', 'audio');
  return request((c) => c.post('library/media', { body: form, headers: LONG }).json());
}

export function createPreset(body: { label: string; media_id: string; similarity_boost?: number; stability?: number }): Promise<VoicePreset> {
  return call(client.POST('/api/voice_preset/create', { params: { query: spaceQuery() }, body, headers: LONG }));
}

export function createPresetFromProject(body: { project_id: string; speaker_id: string; label?: string }): Promise<VoicePreset> {
  return call(client.POST('/api/voice_preset/from_project', { body, headers: LONG }));
}

export function renamePreset(id: string, label: string): Promise<VoicePreset> {
  return call(client.PATCH('/api/voice_preset/{id}', { params: { path: { id } }, body: { label } }));
}

export function updatePresetSettings(id: string, s: { similarity_boost: number; stability: number }): Promise<VoicePreset> {
  return call(client.POST('/api/voice_preset/{id}/update_settings', { params: { path: { id } }, body: s }));
}

export function deletePreset(id: string): Promise<unknown> {
  return call(client.DELETE('/api/voice_preset/{id}', { params: { path: { id } } }));
}

/** The preset saying a sample sentence at the given settings (a WAV). */
export function presetSample(id: string, q: { language: string; similarity_boost: number; stability: number }): Promise<Blob> {
  return call(
    client.GET('/api/voice_preset/{id}/sample', {
      params: { path: { id }, query: { language: q.language, similarity_boost: String(q.similarity_boost), stability: String(q.stability) } },
      headers: LONG,
      parseAs: 'blob',
    }),
  );
}

export function markTutorialDisplayed(): Promise<unknown> {
  return call(client.POST('/api/users/set_voice_preset_tutorial_displayed'));
}

export function useTutorialFlags(enabled: boolean) {
  return useApiGet('/api/users/voice_tutorials', enabled ? {} : null);
}
