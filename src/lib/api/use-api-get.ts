// The typed reads of the browser: an SWR hook over the typed client (src/lib/api/client.ts). The answer type comes
// from the OpenAPI document; the SWR key is the API path as the browser sees it ('/api/project/p1/transcript',
// '/api/glossary?space_id=s1'), built by `apiKey` from the same path and parameters, so that code invalidating by
// key (`mutate(CURRENT_USER_KEY)`, prefix matches such as '/api/project/paginated', the session gate clearing '/api/...' keys) keeps working.
//
//   const { data } = useApiGet('/api/project/{id}/transcript', { params: { path: { id } } }, { refreshInterval: 0 });
//   export const transcriptKey = (id: string) => apiKey('/api/project/{id}/transcript', { params: { path: { id } } });
import useSWR, { type SWRConfiguration, type SWRResponse } from 'swr';
import type { Client, ClientPathsWithMethod, FetchOptions, MethodResponse } from 'openapi-fetch';
import type { paths } from './schema';
import { call, client, clientWith } from './client';
import type { ApiContext, ApiError } from '../http';

/** The API paths that answer GET. */
export type GetPath = ClientPathsWithMethod<typeof client, 'get'>;
/** The request options of a GET path (path and query parameters, headers). */
export type GetInit<P extends GetPath> = FetchOptions<paths[P]['get']>;
/** The answer of a GET path as the OpenAPI document declares it. */
export type GetAnswer<P extends GetPath> = MethodResponse<typeof client, 'get', P>;

type QueryValue = string | number | boolean | readonly string[] | null | undefined;
/** Parameters as the key sees them: path parameters and any query. */
export interface KeyInit {
  params?: { path?: Record<string, string>; query?: Record<string, QueryValue> };
}

/**
 * The SWR key of a GET: the path with its path parameters filled in (URI-encoded) and the query in the order given,
 * encoded as URLSearchParams does (undefined and null values left out, arrays joined by commas).
 */
export function apiKey<P extends GetPath>(path: P, init?: KeyInit): string {
  const pathParams: Record<string, unknown> = init?.params?.path ?? {};
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(pathParams[name])));
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(init?.params?.query ?? {})) {
    if (v === undefined || v === null) continue;
    q.append(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  const query = q.toString();
  return query ? `${filled}?${query}` : filled;
}

type RequiredInit<P extends GetPath> = undefined extends GetInit<P>['params'] ? [GetInit<P>?] : [GetInit<P>];

function getThrough<P extends GetPath>(c: Client<paths>, path: P, init: GetInit<P> | undefined): Promise<GetAnswer<P>> {
  // One generic call: the compiler checks path and parameters at the caller, the answer type comes from the schema.
  const get = c.GET as unknown as (p: string, i?: unknown) => ReturnType<typeof c.GET>;
  return call(get(path, init)) as Promise<GetAnswer<P>>;
}

/** GET a path through the typed client (for the few reads outside SWR). */
export function getApi<P extends GetPath>(path: P, ...init: RequiredInit<P>): Promise<GetAnswer<P>> {
  return getThrough(client, path, init[0]);
}

/**
 * SWR over a typed GET. `init` null: nothing is fetched (SWR's null key). Errors are ApiError (the HTTP client's
 * mapping and global effects apply, as for every call). `context`: the request sends no token, no space_id, or runs
 * no global error effects (src/lib/api/client.ts clientWith); the key stays the path's.
 */
export function useApiGet<P extends GetPath>(
  path: P,
  init: GetInit<P> | null,
  options?: SWRConfiguration<GetAnswer<P>, ApiError>,
  context?: ApiContext,
): SWRResponse<GetAnswer<P>, ApiError> {
  const key = init === null ? null : apiKey(path, init as KeyInit);
  const c = context ? clientWith(context) : client;
  return useSWR(key, () => getThrough(c, path, init ?? undefined), options);
}
