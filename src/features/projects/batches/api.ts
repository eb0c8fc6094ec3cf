// Calls of the batches feature (server/domains/batches): create, read (polled while it runs), cancel, retry, ZIP.
import useSWR from 'swr';
import type { Batch, CreateBatchRequest } from '../../../../contract/schemas/batch';
import { fetcher, request } from '../../../lib/http';

export const BATCH_POLL_MS = 3000;
export const batchKey = (id: string) => `/api/batch/${encodeURIComponent(id)}`;

export function useBatch(id: string) {
  return useSWR<Batch>(batchKey(id), fetcher, { refreshInterval: (b) => (b && b.status === 'running' ? BATCH_POLL_MS : 0) });
}

export const createBatch = (body: CreateBatchRequest) => request((c) => c.post('batch', { json: body }).json<Batch>());
export const cancelBatch = (id: string) => request((c) => c.post(`batch/${encodeURIComponent(id)}/cancel`).json<Batch>());
export const retryBatchItem = (id: string, itemId: string) =>
  request((c) => c.post(`batch/${encodeURIComponent(id)}/items/${encodeURIComponent(itemId)}/retry`).json<Batch>());

/** Saves the batch's ZIP (streamed by the server) under `fileName`. */
export async function downloadBatchZip(id: string, fileName: string): Promise<void> {
  const blob = await request((c) => c.get(`batch/${encodeURIComponent(id)}/download`, { timeout: false }).blob());
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
