// The editor's part of the Teamspace's cast: which speakers the voice selection recognised from the cast (with the
// undo) and "Keep in cast" for a speaker. Key: the API path.
import { mutate } from 'swr';
import type { CastMember } from '../../../../contract/schemas/cast';
import { call, client } from '../../../lib/api/client';
import { apiKey, useApiGet } from '../../../lib/api/use-api-get';

const recognitions = (spaceId: string, projectId: string) => ({ params: { path: { id: spaceId }, query: { project_id: projectId } } });
const recognitionsKey = (spaceId: string, projectId: string) => apiKey('/api/space/{id}/cast/recognitions', recognitions(spaceId, projectId));

export function useCastRecognitions(spaceId: string, projectId: string, enabled: boolean) {
  return useApiGet('/api/space/{id}/cast/recognitions', enabled ? recognitions(spaceId, projectId) : null);
}

export function keepInCast(spaceId: string, projectId: string, speakerId: string): Promise<CastMember> {
  return call(client.POST('/api/space/{id}/cast', { params: { path: { id: spaceId } }, body: { project_id: projectId, speaker_id: speakerId } }));
}

export async function undoCastRecognition(spaceId: string, projectId: string, speakerId: string): Promise<void> {
  await call(client.POST('/api/space/{id}/cast/undo', { params: { path: { id: spaceId } }, body: { project_id: projectId, speaker_id: speakerId } }));
  await mutate(recognitionsKey(spaceId, projectId));
}
