// Support chat calls: the signed-in user's own conversation.
import type { SupportConversation } from '../../../contract/schemas/onboarding';
import { call, clientWith } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';

/** While the panel is open the thread is read with ?read=1 (the answers count as read): its key is `${SUPPORT_THREAD_KEY}?read=1`. */
export const SUPPORT_THREAD_KEY = apiKey('/api/support/thread');
/** While the panel is open, answers show within this time; closed, the unread badge refreshes slower. */
export const SUPPORT_POLL_OPEN_MS = 3000;
export const SUPPORT_POLL_CLOSED_MS = 30_000;

export function useSupportThread(open: boolean) {
  return useApiGet('/api/support/thread', open ? { params: { query: { read: '1' } } } : {}, {
    refreshInterval: open ? SUPPORT_POLL_OPEN_MS : SUPPORT_POLL_CLOSED_MS,
    keepPreviousData: true,
  });
}

/** The project open on an in-app path (/spaces/{id}/project/{projectId}), else null. */
export function projectOfPath(path: string): string | null {
  const m = /\/project\/([0-9a-f-]{36})(?:[/?#]|$)/i.exec(path);
  return m ? m[1] : null;
}

export function sendSupportMessage(body: string, page: string): Promise<SupportConversation> {
  return call(clientWith({ spaceId: false }).POST('/api/support/messages', { body: { body, page, project_id: projectOfPath(page) } }));
}
