// The one HTTP client of the app: a ky instance with
//  - the bearer token of the active auth provider (identity session or the parent frame's session token),
//  - `space_id` added to every product-API request when the current space is known and not already set,
//  - every failure turned into an ApiError {status, detail, message} with the spec's error-text order,
//    a network failure or a request timeout becoming 504 'Gateway Timeout',
//  - global error effects (src/app/errors.ts) notified once per failed request.
// The typed client (src/lib/api/client.ts) sends every call through `api`; SWR keys are the API paths as the browser
// sees them ('/api/space/list?x=1', src/lib/api/use-api-get.ts).
import ky, { type KyInstance } from 'ky';
import { EMBED_ERROR_TEXTS, TEXT } from '../../contract/errors';
import { getAuthProvider } from './auth/active';
import { currentEnvironment } from './environments';

/** Default time a request may take before it is failed as 504 'Gateway Timeout'. */
export const REQUEST_TIMEOUT_MS = 60_000;
/** Marks the 504 answer gatewayFetch makes up for a network failure or timeout. */
const NETWORK_FAILURE_HEADER = 'x-client-network-failure';
/** Request header overriding the timeout (milliseconds; '0' = none). Stripped before sending. */
export const TIMEOUT_HEADER = 'x-request-timeout';

/** http: the server answered; network: no answer (504); auth: no token could be obtained; client: anything else. */
export type ApiErrorKind = 'http' | 'network' | 'auth' | 'client';

export interface ApiErrorInit {
  status: number;
  kind?: ApiErrorKind;
  message: string;
  detail?: unknown;
  body?: unknown;
  method?: string;
  path?: string;
}

/** Every failure of `api`: status (0 = failed before any response), detail (body.detail as sent) and message. */
export class ApiError extends Error {
  readonly status: number;
  readonly kind: ApiErrorKind;
  readonly detail: unknown;
  readonly body: unknown;
  readonly method: string;
  /** Path relative to the API base without query, e.g. 'users/current'. */
  readonly path: string;
  constructor(init: ApiErrorInit) {
    super(init.message);
    this.name = 'ApiError';
    this.status = init.status;
    this.kind = init.kind ?? (init.status === 0 ? 'client' : 'http');
    this.detail = init.detail;
    this.body = init.body;
    this.method = (init.method ?? 'GET').toUpperCase();
    this.path = init.path ?? '';
  }
  /** body.detail when it is a string. */
  get detailText(): string | null {
    return typeof this.detail === 'string' ? this.detail : null;
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}
function nonEmpty(s: unknown): s is string {
  return typeof s === 'string' && s.trim() !== '';
}

/**
 * The user-facing text of a failed response, in the spec's order:
 * 1. error message (`error.message`, `error` as a string, or `message`),
 * 2. the first `msg` of a `detail` list (validation errors),
 * 3. a plain-text body (not an HTML error page),
 * 4. a string `detail`,
 * 5. the HTTP status text,
 * 6. any other top-level `detail` (serialised),
 * then 'Server error. Please try again later'.
 */
export function errorText(body: unknown, statusText: string): string {
  if (isRecord(body)) {
    const err = body.error;
    if (isRecord(err) && nonEmpty(err.message)) return err.message;
    if (nonEmpty(err)) return err;
    if (nonEmpty(body.message)) return body.message;
    if (Array.isArray(body.detail)) {
      const first = body.detail[0];
      if (isRecord(first) && nonEmpty(first.msg)) return first.msg;
    }
  }
  if (nonEmpty(body) && !body.trimStart().startsWith('<')) return body.trim();
  if (isRecord(body) && nonEmpty(body.detail)) return body.detail;
  if (nonEmpty(statusText)) return statusText;
  if (isRecord(body) && body.detail !== undefined && body.detail !== null) {
    return typeof body.detail === 'string' ? body.detail || TEXT.serverError : JSON.stringify(body.detail);
  }
  return TEXT.serverError;
}

/**
 * Any thrown value as an ApiError: network/timeouts -> 504 'Gateway Timeout'; the embedded app's own errors
 * (App Bridge: 'This URL is not allowed for redirection', 'Invalid URL', ...) keep their spec text; everything
 * else -> 'Server error...'.
 */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e;
  if (e instanceof Error && EMBED_ERROR_TEXTS.has(e.message)) {
    return new ApiError({ status: 0, kind: 'client', message: e.message });
  }
  const name = (e as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || e instanceof TypeError) {
    return new ApiError({ status: 504, kind: 'network', message: TEXT.gatewayTimeout, detail: TEXT.gatewayTimeout });
  }
  return new ApiError({ status: 0, kind: 'client', message: TEXT.serverError });
}

/** The text to show for any error (ApiError or not). */
export function errorMessage(e: unknown): string {
  return toApiError(e).message;
}

// ---- configuration shared with the app ----------------------------------------------------------------

/** Per-request options read by the hooks (ky `context`). */
export interface ApiContext {
  /** false: send no bearer token (identity-service calls that must not recurse into getToken). */
  auth?: boolean;
  /** false: never add space_id to this request. */
  spaceId?: boolean;
  /** false: do not run the global error effects for this request. */
  effects?: boolean;
}

export interface ApiErrorInfo {
  error: ApiError;
  context: ApiContext;
}
type ErrorListener = (info: ApiErrorInfo) => void;

let spaceIdSource: () => string | null = () => null;
const errorListeners = new Set<ErrorListener>();

/** The app tells the client where the current space id lives (src/app/state.ts). */
export function setSpaceIdSource(fn: () => string | null): void {
  spaceIdSource = fn;
}

/** The current space id as the client adds it to requests (null when none is known). */
export function currentSpaceId(): string | null {
  return spaceIdSource();
}

/** Global error effects subscribe here; returns the unsubscribe function. */
export function onApiError(listener: ErrorListener): () => void {
  errorListeners.add(listener);
  return () => errorListeners.delete(listener);
}

/** The API base as configured ('/api' by default), resolved against the page. */
export function apiBaseUrl(): URL {
  const base = currentEnvironment().activeApiUrl;
  return new URL(base.endsWith('/') ? base : `${base}/`, globalThis.location?.href ?? 'http://localhost/');
}

/** Path of a request URL relative to the API base ('users/current'), or the full path when outside it. */
export function apiPathOf(url: string): string {
  const u = new URL(url, globalThis.location?.href ?? 'http://localhost/');
  const base = apiBaseUrl();
  if (u.origin === base.origin && u.pathname.startsWith(base.pathname)) return u.pathname.slice(base.pathname.length);
  return u.pathname;
}

/** Requests to the identity service are not product-API requests: no space_id there. */
function isIdentityServicePath(path: string): boolean {
  return path === 'auth' || path.startsWith('auth/');
}

async function readBody(res: Response): Promise<unknown> {
  try {
    const text = await res.clone().text();
    if (text === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  } catch {
    return undefined;
  }
}

/** The same request to another URL (a Request cannot be used as RequestInit: its body is a stream). */
export async function withUrl(req: Request, url: URL): Promise<Request> {
  const body = req.body ? await req.blob() : undefined;
  return new Request(url, {
    method: req.method,
    headers: req.headers,
    body,
    signal: req.signal,
    credentials: req.credentials,
    cache: req.cache,
    redirect: req.redirect,
    keepalive: req.keepalive,
  });
}

/** fetch with a timeout, where a network failure or the timeout answers 504 'Gateway Timeout'. */
const gatewayFetch: typeof fetch = async (input, init) => {
  let req = input instanceof Request ? input : new Request(input, init);
  const override = req.headers.get(TIMEOUT_HEADER);
  const timeoutMs = override !== null && Number.isFinite(Number(override)) ? Number(override) : REQUEST_TIMEOUT_MS;
  const timer = new AbortController();
  const handle = timeoutMs > 0 ? setTimeout(() => timer.abort(), timeoutMs) : null;
  const callerSignal = req.signal;
  if (override !== null) {
    const headers = new Headers(req.headers);
    headers.delete(TIMEOUT_HEADER);
    req = new Request(req, { headers });
  }
  try {
    const signal = AbortSignal.any([callerSignal, timer.signal]);
    return await globalThis.fetch(req, { ...(input instanceof Request ? init : {}), signal });
  } catch (e) {
    if (callerSignal.aborted) throw e;
    return new Response(JSON.stringify({ detail: TEXT.gatewayTimeout }), {
      status: 504,
      statusText: TEXT.gatewayTimeout,
      headers: { 'content-type': 'application/json', [NETWORK_FAILURE_HEADER]: '1' },
    });
  } finally {
    if (handle !== null) clearTimeout(handle);
  }
};

function createApi(): KyInstance {
  return ky.create({
    prefixUrl: apiBaseUrl().href,
    retry: 0, // SWR owns retries (src/app/swr.ts)
    timeout: false, // gatewayFetch owns the timeout so that it maps to 504
    fetch: gatewayFetch,
    hooks: {
      beforeRequest: [
        async (request, options) => {
          const ctx = (options.context ?? {}) as ApiContext;
          const path = apiPathOf(request.url);
          if (ctx.auth !== false && !request.headers.has('authorization')) {
            let token: string | null | undefined;
            try {
              token = await getAuthProvider()?.getToken();
            } catch (e) {
              // The identity service failing a refresh is already an ApiError (e.g. 504 when unreachable).
              if (e instanceof ApiError) throw e;
              // No token from the parent frame (silent, refusing): the caller sees the bridge's text.
              const message = e instanceof Error ? e.message : TEXT.embedTokenFailed;
              throw new ApiError({ status: 0, kind: 'auth', message, detail: message, method: request.method, path });
            }
            if (token) request.headers.set('authorization', `Bearer ${token}`);
          }
          const spaceId = ctx.spaceId === false || isIdentityServicePath(path) ? null : spaceIdSource();
          if (spaceId) {
            const url = new URL(request.url);
            if (!url.searchParams.has('space_id')) {
              url.searchParams.set('space_id', spaceId);
              return withUrl(request, url);
            }
          }
          return undefined;
        },
      ],
      beforeError: [
        async (error) => {
          const res = error.response;
          const body = await readBody(res);
          const apiError = new ApiError({
            status: res.status,
            kind: res.headers.get(NETWORK_FAILURE_HEADER) ? 'network' : 'http',
            message: errorText(body, res.statusText),
            detail: isRecord(body) ? body.detail : undefined,
            body,
            method: error.request.method,
            path: apiPathOf(error.request.url),
          });
          const ctx = (error.options.context ?? {}) as ApiContext;
          if (ctx.effects !== false) {
            for (const l of errorListeners) {
              try {
                l({ error: apiError, context: ctx });
              } catch (e) {
                console.error('api error listener failed', e);
              }
            }
          }
          throw apiError;
        },
      ],
    },
  });
}

/** The API client. Inputs are relative to the API base ('users/current'); the app calls it through the typed client (src/lib/api/client.ts). */
export const api: KyInstance = createApi();

/** Runs any api call and rethrows failures as ApiError (for callers outside SWR). */
export async function request<T>(fn: (client: KyInstance) => Promise<T>): Promise<T> {
  try {
    return await fn(api);
  } catch (e) {
    throw toApiError(e);
  }
}

