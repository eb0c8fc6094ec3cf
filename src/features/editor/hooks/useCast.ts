// The editor's part of the Teamspace's cast: which speakers the voice selection recognised from the cast (with the
// undo) and "Keep in cast" for a speaker. Key: the API path.
import useSWR, { mutate } from 'swr';
import type { CastMember, CastRecognition } from '../../../../contract/schemas/cast';
import { request, type ApiError } from '../../../lib/http';

const recognitionsKey = (spaceId: string, projectId: string) =>
  `/api/space/${encodeURIComponent(spaceId)}/cast/recognitions?project_id=${encodeURIComponent(projectId)}`;

export function useCastRecognitions(spaceId: string, projectId: string, enabled: boolean) {
  return useSWR<CastRecognition[], ApiError>(enabled ? recognitionsKey(spaceId, projectId) : null);
}

export function keepInCast(spaceId: string, projectId: string, speakerId: string): Promise<CastMember> {
  return request((c) => c.post(`space/${spaceId}/cast`, { json: { project_id: projectId, speaker_id: speakerId } }).json<CastMember>());
}

export async function undoCastRecognition(spaceId: string, projectId: string, speakerId: string): Promise<void> {
  await request((c) => c.post(`space/${spaceId}/cast/undo`, { json: { project_id: projectId, speaker_id: speakerId } }).json());
  await mutate(recognitionsKey(spaceId, projectId));
}
