// The webhook endpoints of a space (owner only): GET/POST /api/space/{id}/webhooks, PATCH/DELETE .../{wid},
// GET .../{wid}/deliveries (the attempts log).
import useSWR from 'swr';
import type { WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret, WebhookEvent } from '../../../contract/schemas/api';
import { fetcher, request } from '../../lib/http';

export const webhooksKey = (spaceId: string) => `/api/space/${spaceId}/webhooks`;
export const deliveriesKey = (spaceId: string, id: string) => `/api/space/${spaceId}/webhooks/${id}/deliveries`;

export function useWebhooks(spaceId: string | null) {
  return useSWR<{ data: WebhookEndpoint[] }>(spaceId ? webhooksKey(spaceId) : null, fetcher, { revalidateOnFocus: false });
}
export function useDeliveries(spaceId: string, id: string | null) {
  return useSWR<{ data: WebhookDelivery[] }>(id ? deliveriesKey(spaceId, id) : null, fetcher, { revalidateOnFocus: false });
}

const base = (spaceId: string) => `space/${spaceId}/webhooks`;
export const webhooksApi = {
  create: (spaceId: string, body: { url: string; events: WebhookEvent[] }) =>
    request((c) => c.post(base(spaceId), { json: body, context: { spaceId: false } }).json<WebhookEndpointWithSecret>()),
  update: (spaceId: string, id: string, patch: { enabled?: boolean; events?: WebhookEvent[]; url?: string }) =>
    request((c) => c.patch(`${base(spaceId)}/${id}`, { json: patch, context: { spaceId: false } }).json<WebhookEndpointWithSecret>()),
  remove: (spaceId: string, id: string) => request((c) => c.delete(`${base(spaceId)}/${id}`, { context: { spaceId: false } })),
};
