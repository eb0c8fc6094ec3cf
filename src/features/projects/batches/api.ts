// Calls of the batches feature (server/domains/batches): create, read (polled while it runs), cancel, retry, ZIP.
import type { CreateBatchRequest } from '../../../../contract/schemas/batch';
import { call, client, spaceQuery } from '../../../lib/api/client';
import { useApiGet } from '../../../lib/api/use-api-get';
import { TIMEOUT_HEADER } from '../../../lib/http';

export const BATCH_POLL_MS = 3000;
const batch = (id: string) => ({ params: { path: { id } } });

export function useBatch(id: string) {
  return useApiGet('/api/batch/{id}', batch(id), { refreshInterval: (b) => (b && b.status === 'running' ? BATCH_POLL_MS : 0) });
}

export const createBatch = (body: CreateBatchRequest) => call(client.POST('/api/batch', { params: { query: spaceQuery() }, body }));
export const cancelBatch = (id: string) => call(client.POST('/api/batch/{id}/cancel', { params: { path: { id } } }));
export const retryBatchItem = (id: string, itemId: string) =>
  call(client.POST('/api/batch/{id}/items/{item}/retry', { params: { path: { id, item: itemId } } }));

/** Saves the batch's ZIP (streamed by the server) under `fileName`. */
export async function downloadBatchZip(id: string, fileName: string): Promise<void> {
  const blob = await call(client.GET('/api/batch/{id}/download', { params: { path: { id } }, headers: { [TIMEOUT_HEADER]: '0' }, parseAs: 'blob' }));
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
