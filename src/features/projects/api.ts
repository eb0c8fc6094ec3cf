// SWR hooks and calls of the projects feature. Keys are the API paths as the browser sees them.
import { useSWRConfig, type ScopedMutator } from 'swr';
import { call, client, clientWith, postForm, spaceQuery } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';
import { applyLiveEvent, LIVE_POLL_MS, useLiveEvents } from '../../lib/live';
import type { Project } from '../../../contract/schemas/project';
import type * as v from 'valibot';
import type { CreateTranscriptRequest } from '../../../contract/schemas/project';
import { isWorking } from '../../../contract/statuses';
import { projectsListQuery } from './lib/paging';

export const LIST_POLL_MS = 4000;
export const liveListPath = (spaceId: string) => `project/events?space_id=${encodeURIComponent(spaceId)}`;
const listParams = (o: Parameters<typeof projectsListQuery>[0]) => ({ params: { query: projectsListQuery(o) } });
/** @internal Used by tests only. */
export const projectsListKey = (o: Parameters<typeof projectsListQuery>[0]) => apiKey('/api/project/paginated', listParams(o));

export function useProjectList(o: { spaceId: string | null; page: number; searchText: string; folderId?: string | null }) {
  const init = o.spaceId ? listParams({ spaceId: o.spaceId, page: o.page, searchText: o.searchText, folderId: o.folderId }) : null;
  // Status and progress are pushed (server-sent events); polling is the fallback while the stream is down.
  let live = false;
  const swr = useApiGet('/api/project/paginated', init, {
    keepPreviousData: true,
    refreshInterval: (data) => (data?.data.some((p) => isWorking(p.status, p.error_code)) ? (live ? LIVE_POLL_MS : LIST_POLL_MS) : 0),
  });
  const { mutate } = swr;
  live = useLiveEvents(o.spaceId ? liveListPath(o.spaceId) : null, (e) => {
    // Before the first page arrives there is nothing to patch (a mutation now would make SWR drop the page
    // in flight): read the list instead.
    if (!swr.data) {
      void mutate();
      return;
    }
    let stale = false;
    let known = false;
    void mutate(
      (page) => {
        if (!page) return page;
        let changed = false;
        const data = page.data.map((p) => {
          if (p.id !== e.id) return p;
          known = true;
          const r = applyLiveEvent(p, e);
          stale ||= r.stale;
          changed ||= r.project !== p;
          return r.project;
        });
        return changed ? { ...page, data } : page;
      },
      { revalidate: false },
    ).then(() => {
      // a status change (or a project new to the list) is read again in full
      if (stale || (!known && (e.status === 'created' || e.status === 'uploading'))) void mutate();
    });
  });
  return swr;
}

/** Revalidates every list page of the translation list and the folders (after create, rename, move, delete). */
export function revalidateLists(mutate: ScopedMutator): Promise<unknown> {
  return mutate((key) => typeof key === 'string' && (key.startsWith('/api/project/paginated') || key.startsWith('/api/project/folders')));
}
export function useRevalidateLists(): () => Promise<unknown> {
  const { mutate } = useSWRConfig();
  return () => revalidateLists(mutate);
}

export function renameProject(id: string, name: string): Promise<Project> {
  return call(client.PATCH('/api/project/{id}', { params: { path: { id } }, body: { name } }));
}
/** 'What went wrong?' on a project (also a failed one): POST /api/project/{id}/feedback. */
export function sendProjectFeedback(id: string, body: { comment: string; options: string[] }): Promise<unknown> {
  return call(client.POST('/api/project/{id}/feedback', { params: { path: { id } }, body }));
}
export function moveProject(id: string, folderId: string | null): Promise<Project> {
  return call(client.PATCH('/api/project/{id}', { params: { path: { id } }, body: { folder_id: folderId } }));
}
export function deleteProject(id: string): Promise<unknown> {
  return call(client.DELETE('/api/project/{id}', { params: { path: { id } } }));
}

export type CreateTranscriptBody = v.InferInput<typeof CreateTranscriptRequest>;
export function createTranscript(body: CreateTranscriptBody): Promise<Project> {
  return call(client.POST('/api/project/create_transcript', { params: { query: spaceQuery() }, body }));
}

export interface VideoInfo {
  duration: number | null;
  title: string | null;
  thumbnail?: string | null;
}
export function videoInfo(link: string): Promise<VideoInfo> {
  return call(clientWith({ effects: false }).GET('/api/library/info/video', { params: { query: { link } } }));
}

/** Multipart upload (subtitle files and the fallback when tus is off). */
export function uploadMultipart(file: File, kind: 'video' | 'audio' | 'srt'): Promise<{ id: string; status: string }> {
  const form = new FormData();
  form.set('file', file);
  form.set('kind', kind);
  return postForm<{ id: string; status: string }>('/api/library/media', form, { query: { kind } });
}

export interface GlossaryItem {
  id: string;
  name: string;
}
/** Dictionaries as the glossary calls list them: an array or {data: [...]}, ids as id or glossary_id. */
export function toGlossaryItems(raw: unknown): GlossaryItem[] {
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' && Array.isArray((raw as { data?: unknown }).data) ? (raw as { data: unknown[] }).data : [];
  return list.flatMap((g) => {
    if (!g || typeof g !== 'object') return [];
    const o = g as Record<string, unknown>;
    const id = typeof o.glossary_id === 'string' ? o.glossary_id : typeof o.id === 'string' ? o.id : null;
    if (!id) return [];
    const name = typeof o.name === 'string' && o.name ? o.name : typeof o.label === 'string' && o.label ? o.label : id;
    return [{ id, name }];
  });
}
export function useGlossaries(spaceId: string | null, srcLang: string, dstLang: string, enabled: boolean) {
  const init = enabled && spaceId && srcLang && dstLang ? { params: { query: { source_lang: srcLang, target_lang: dstLang, space_id: spaceId } } } : null;
  const swr = useApiGet('/api/glossary', init, { shouldRetryOnError: false });
  return { ...swr, data: swr.data === undefined ? undefined : toGlossaryItems(swr.data) };
}

const foldersParams = (spaceId: string) => ({ params: { query: { space_id: spaceId } } });
/** The folders of the space: a folder's id is its name (projects with the same folder_id are one folder). */
export function useFolders(spaceId: string | null) {
  return useApiGet('/api/project/folders', spaceId ? foldersParams(spaceId) : null, { shouldRetryOnError: false });
}
