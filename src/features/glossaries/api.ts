// The Dictionary's calls (/api/glossary). Keys are the API paths as the browser sees them.
import { useSWRConfig } from 'swr';
import type { CreateGlossaryRequest, Glossary, GlossaryEntry, GlossaryImportResult } from '../../../contract/schemas/glossary';
import { call, client, postForm, spaceQuery } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';

const listParams = (spaceId: string) => ({ params: { query: { space_id: spaceId } } });
const oneParams = (id: string) => ({ params: { path: { id } } });
const glossaryKey = (id: string) => apiKey('/api/glossary/{id}', oneParams(id));

export function useGlossaryList(spaceId: string | null, enabled: boolean) {
  return useApiGet('/api/glossary', spaceId && enabled ? listParams(spaceId) : null);
}

export function useGlossary(id: string | null) {
  return useApiGet('/api/glossary/{id}', id ? oneParams(id) : null);
}

/** Refreshes the lists and the dictionary after a change (the answer of the change is the new dictionary). */
export function useGlossaryRefresh() {
  const { mutate } = useSWRConfig();
  return async (g: Glossary | null, deletedId?: string) => {
    if (g) await mutate(glossaryKey(g.id), g, { revalidate: false });
    if (deletedId) await mutate(glossaryKey(deletedId), undefined, { revalidate: false });
    await mutate((k) => typeof k === 'string' && k.startsWith('/api/glossary?'));
  };
}

export function createGlossary(body: CreateGlossaryRequest): Promise<Glossary> {
  return call(client.POST('/api/glossary', { params: { query: spaceQuery() }, body }));
}

export function updateGlossary(id: string, body: { name?: string; entries?: GlossaryEntry[] }): Promise<Glossary> {
  return call(client.PATCH('/api/glossary/{id}', { params: { path: { id } }, body }));
}

export function deleteGlossary(id: string): Promise<unknown> {
  return call(client.DELETE('/api/glossary', { params: { query: { glossary_id: id } } }));
}

export function importGlossaryCsv(id: string, file: File): Promise<GlossaryImportResult> {
  const form = new FormData();
  form.set('file', file, file.name);
  return postForm<GlossaryImportResult>('/api/glossary/{id}/import', form, { path: { id } });
}

/** Downloads the dictionary as a CSV file. */
export async function downloadGlossaryCsv(g: Pick<Glossary, 'id' | 'name'>): Promise<void> {
  const blob = await call(client.GET('/api/glossary/{id}/export', { params: { path: { id: g.id } }, parseAs: 'blob' }));
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `${g.name.replace(/[^\w.-]+/g, '_') || 'dictionary'}.csv`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
