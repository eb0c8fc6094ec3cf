// A typed request helper for server tests: openapi-fetch over the app in process, typed from the OpenAPI document
// (src/lib/api/schema.d.ts, kept current by `npm run api:types` and checked by the integrator test).
// Paths, path and query parameters, bodies and answers are checked by the compiler: a test that sends a field the
// API does not take, or reads one it does not answer, does not compile.
import createClient from 'openapi-fetch';
import type { components, paths } from '../../src/lib/api/schema';
import type { Harness } from './harness';

export function typedClient(h: Harness, token?: string | null, headers: Record<string, string> = {}) {
  return createClient<paths>({
    baseUrl: 'http://localhost',
    headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    fetch: (req: Request) => Promise.resolve(h.app.fetch(req)),
  });
}

/** The validation issues of an error answer (a 422 lists them in `detail`; any other error has none). */
export function issuesOf(error: components['schemas']['Error'] | undefined): components['schemas']['ValidationIssue'][] {
  return Array.isArray(error?.detail) ? error.detail : [];
}
