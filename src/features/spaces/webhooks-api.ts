// The webhook endpoints of a space (owner only): GET/POST /api/space/{id}/webhooks, PATCH/DELETE .../{wid},
// GET .../{wid}/deliveries (the attempts log).
import type { WebhookEvent } from '../../../contract/schemas/api';
import { call, clientWith } from '../../lib/api/client';
import { useApiGet } from '../../lib/api/use-api-get';

const of = (spaceId: string) => ({ params: { path: { id: spaceId } } });
const at = (spaceId: string, wid: string) => ({ params: { path: { id: spaceId, wid } } });

export function useWebhooks(spaceId: string | null) {
  return useApiGet('/api/space/{id}/webhooks', spaceId ? of(spaceId) : null, { revalidateOnFocus: false });
}
export function useDeliveries(spaceId: string, id: string | null) {
  return useApiGet('/api/space/{id}/webhooks/{wid}/deliveries', id ? at(spaceId, id) : null, { revalidateOnFocus: false });
}

const quiet = () => clientWith({ spaceId: false });
export const webhooksApi = {
  create: (spaceId: string, body: { url: string; events: WebhookEvent[] }) =>
    call(quiet().POST('/api/space/{id}/webhooks', { params: { path: { id: spaceId } }, body })),
  update: (spaceId: string, id: string, patch: { enabled?: boolean; events?: WebhookEvent[]; url?: string }) =>
    call(quiet().PATCH('/api/space/{id}/webhooks/{wid}', { ...at(spaceId, id), body: patch })),
  remove: (spaceId: string, id: string) => call(quiet().DELETE('/api/space/{id}/webhooks/{wid}', at(spaceId, id))),
};
