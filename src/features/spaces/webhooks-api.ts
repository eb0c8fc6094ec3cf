// The webhook endpoints of a space (owner only): GET/POST /api/space/{id}/webhooks, PATCH/DELETE .../{wid},
// GET .../{wid}/deliveries (the attempts log).
import useSWR from 'swr';
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from '../../../contract/schemas/api';
import { call, clientWith } from '../../lib/api/client';
import { fetcher } from '../../lib/http';

export const webhooksKey = (spaceId: string) => `/api/space/${spaceId}/webhooks`;
export const deliveriesKey = (spaceId: string, id: string) => `/api/space/${spaceId}/webhooks/${id}/deliveries`;

export function useWebhooks(spaceId: string | null) {
  return useSWR<{ data: WebhookEndpoint[] }>(spaceId ? webhooksKey(spaceId) : null, fetcher, { revalidateOnFocus: false });
}
export function useDeliveries(spaceId: string, id: string | null) {
  return useSWR<{ data: WebhookDelivery[] }>(id ? deliveriesKey(spaceId, id) : null, fetcher, { revalidateOnFocus: false });
}

const quiet = () => clientWith({ spaceId: false });
const at = (spaceId: string, wid: string) => ({ params: { path: { id: spaceId, wid } } });
export const webhooksApi = {
  create: (spaceId: string, body: { url: string; events: WebhookEvent[] }) =>
    call(quiet().POST('/api/space/{id}/webhooks', { params: { path: { id: spaceId } }, body })),
  update: (spaceId: string, id: string, patch: { enabled?: boolean; events?: WebhookEvent[]; url?: string }) =>
    call(quiet().PATCH('/api/space/{id}/webhooks/{wid}', { ...at(spaceId, id), body: patch })),
  remove: (spaceId: string, id: string) => call(quiet().DELETE('/api/space/{id}/webhooks/{wid}', at(spaceId, id))),
};
