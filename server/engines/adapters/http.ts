// The one HTTP client the engine adapters use: per-attempt timeouts, the caller's AbortSignal
// propagated into fetch (a cancelled project stops its in-flight calls at once), 429 retried after
// Retry-After with capped exponential back-off, bounded retries on 5xx, network failures, truncated
// bodies and timeouts, 401/403 turned into a non-retryable EngineAuthError, and every credential
// redacted from every error and log line. Delays go through an injectable sleep so tests are fast.
import { EngineAdapterError, EngineAuthError, EngineResponseError, abortError } from './errors';


export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;
export type Logger = (line: string) => void;

export interface RetryPolicy {
  /** Attempts in total, the first included (default 4). */
  maxAttempts: number;
  /** First back-off delay; doubled on every further retry (default 500 ms). */
  baseDelayMs: number;
  /** Cap of the exponential back-off (default 20 s). */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call fails at once (default 120 s). */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 120_000 };
export const DEFAULT_TIMEOUT_MS = 120_000;

export interface HttpClientOptions {
  /** Engine name used in every message: 'openai', 'deepl', 'elevenlabs'. */
  engine: string;
  baseUrl: string;
  /** Headers sent with every request (the credential header goes here). */
  headers?: Record<string, string>;
  /** Values never to appear in errors or logs (API keys). Header values are added automatically. */
  secrets?: ReadonlyArray<string | null | undefined>;
  /** Per-attempt timeout, covering the response body too (default 120 s). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  sleep?: Sleep;
  fetch?: typeof fetch;
  log?: Logger;
  /** Clock for Retry-After given as an HTTP date. */
  now?: () => number;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined | null>;
  /** JSON body (sent with Content-Type: application/json). */
  json?: unknown;
  /** Multipart body; must be re-sendable (FormData with Blob parts is). */
  form?: FormData;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** What the call does, for messages ('transcription', 'speech synthesis'). */
  what?: string;
  /** Attempts for this call (default: the client's policy). */
  maxAttempts?: number;
  /**
   * false for calls that create something (voice clones): only 429 and 503, where the service says
   * it did nothing, are retried; a timeout or a dropped connection might have created it already.
   */
  idempotent?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** Sleep that rejects with an AbortError as soon as the signal aborts. */
export const defaultSleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** Replaces every occurrence of every secret (and its URL-encoded form) with [redacted]. */
export function redact(text: string, secrets: ReadonlyArray<string | null | undefined>): string {
  let out = text;
  for (const s of secrets) {
    if (!s || s.length < 4) continue;
    for (const form of new Set([s, encodeURIComponent(s)])) out = out.split(form).join('[redacted]');
  }
  return out;
}

/** Retry-After in ms: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value == null || value.trim() === '') return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/** Exponential back-off for the n-th retry (1-based), capped. */
export function backoffDelay(retry: number, policy: RetryPolicy): number {
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, retry - 1));
}

/** The message a service put in its error body: OpenAI {error:{message}}, DeepL {message}, ElevenLabs {detail}. */
export function serviceMessage(body: Buffer): string {
  const raw = body.toString('utf8').trim();
  if (!raw) return '';
  try {
    const j = JSON.parse(raw) as Record<string, unknown>;
    const pick = (x: unknown): string | null => {
      if (typeof x === 'string') return x;
      if (x && typeof x === 'object') {
        const o = x as Record<string, unknown>;
        for (const k of ['message', 'msg', 'detail', 'error']) {
          const r = pick(o[k]);
          if (r) return r;
        }
        if (Array.isArray(x)) return x.map(pick).filter(Boolean).join('; ');
      }
      return null;
    };
    return (pick(j.error) ?? pick(j.detail) ?? pick(j.message) ?? raw).slice(0, 300);
  } catch {
    return raw.replace(/\s+/g, ' ').slice(0, 300);
  }
}

type Failure =
  | { kind: 'status'; status: number; message: string }
  | { kind: 'timeout' }
  | { kind: 'network'; message: string }
  | { kind: 'truncated'; status: number };

export class EngineHttpClient {
  readonly engine: string;
  readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly secrets: string[];
  private readonly timeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly sleep: Sleep;
  private readonly fetchImpl: typeof fetch;
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(o: HttpClientOptions) {
    this.engine = o.engine;
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    this.headers = { ...(o.headers ?? {}) };
    const headerSecrets = Object.values(this.headers).flatMap((h) => [h, h.replace(/^(Bearer|DeepL-Auth-Key)\s+/i, '')]);
    this.secrets = [...(o.secrets ?? []), ...headerSecrets].filter((s): s is string => !!s && s.length >= 4);
    this.timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.policy = { ...DEFAULT_RETRY, ...(o.retry ?? {}) };
    this.sleep = o.sleep ?? defaultSleep;
    this.fetchImpl = o.fetch ?? fetch;
    this.logger = o.log ?? ((line) => console.warn(line));
    this.now = o.now ?? Date.now;
  }

  /** Redacts this client's credentials from any text. */
  redact(text: string): string {
    return redact(text, this.secrets);
  }

  log(line: string): void {
    this.logger(this.redact(`[engine ${this.engine}] ${line}`));
  }

  url(path: string, query?: RequestOptions['query']): string {
    const u = new URL(this.baseUrl + (path.startsWith('/') ? path : `/${path}`));
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) u.searchParams.set(k, String(v));
    return u.toString();
  }

  /** Sends a request with retries; resolves with a 2xx response whose body was read completely. */
  async request(method: string, path: string, o: RequestOptions = {}): Promise<HttpResponse> {
    const what = o.what ?? `${method} ${path}`;
    const url = this.url(path, o.query);
    const headers: Record<string, string> = { ...this.headers, ...(o.headers ?? {}) };
    let body: string | FormData | undefined;
    if (o.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(o.json);
    } else if (o.form) {
      body = o.form;
    }
    const timeoutMs = o.timeoutMs ?? this.timeoutMs;
    const { signal } = o;
    let last: Failure | null = null;
    const maxAttempts = Math.max(1, o.maxAttempts ?? this.policy.maxAttempts);

    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      if (signal?.aborted) throw abortError(this.engine);
      const ctl = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        ctl.abort();
      }, timeoutMs);
      const onAbort = () => ctl.abort();
      signal?.addEventListener('abort', onAbort, { once: true });
      let delay = 0;
      try {
        const res = await this.fetchImpl(url, { method, headers, body, signal: ctl.signal });
        let buf: Buffer | null = null;
        try {
          buf = Buffer.from(await res.arrayBuffer());
        } catch (e) {
          if (signal?.aborted) throw abortError(this.engine);
          if (timedOut) throw e;
        }
        if (buf === null) {
          // The connection closed before the announced body arrived.
          last = { kind: 'truncated', status: res.status };
          this.log(`${what}: truncated response body (attempt ${attempt}/${maxAttempts})`);
          delay = backoffDelay(attempt, this.policy);
        } else if (res.status >= 200 && res.status < 300) {
          return { status: res.status, headers: res.headers, body: buf };
        } else {
          const r = this.classifyStatus(res, buf, attempt, what);
          last = r.failure;
          delay = r.delay;
          this.log(`${what}: HTTP ${res.status} (attempt ${attempt}/${maxAttempts})`);
        }
      } catch (e) {
        if (e instanceof EngineAdapterError) throw e;
        if (signal?.aborted) throw abortError(this.engine);
        if (timedOut) {
          last = { kind: 'timeout' };
          this.log(`${what}: no answer within ${Math.round(timeoutMs / 1000)} s (attempt ${attempt}/${maxAttempts})`);
        } else {
          const cause = (e as { cause?: { code?: string; message?: string } }).cause;
          const message = this.redact(cause?.code ?? cause?.message ?? (e as Error).message ?? String(e));
          last = { kind: 'network', message };
          this.log(`${what}: ${message} (attempt ${attempt}/${maxAttempts})`);
        }
        delay = backoffDelay(attempt, this.policy);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
      const safe = last !== null && last.kind === 'status' && (last.status === 429 || last.status === 503);
      if (o.idempotent === false && !safe) throw this.finalError(what, last!, timeoutMs, attempt);
      await this.pause(attempt, maxAttempts, delay, signal);
    }
    throw this.finalError(what, last!, timeoutMs, maxAttempts);
  }

  /** Sends a request and parses its JSON body; a body that is not JSON is an EngineResponseError. */
  async json<T = unknown>(method: string, path: string, o: RequestOptions = {}): Promise<T> {
    const res = await this.request(method, path, o);
    return this.parseJson<T>(res.body, o.what ?? `${method} ${path}`);
  }

  parseJson<T = unknown>(body: Buffer, what: string): T {
    const text = body.toString('utf8');
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new EngineResponseError(this.engine, `${what}: the body is not valid JSON (${text.length} bytes)`);
    }
  }

  /** Throws for statuses that are not retried; returns the failure and the delay for those that are. */
  private classifyStatus(res: Response, buf: Buffer, attempt: number, what: string): { failure: Failure; delay: number } {
    const message = this.redact(serviceMessage(buf));
    const status = res.status;
    // ElevenLabs answers an exhausted quota with 401 {"detail":{"status":"quota_exceeded",...}}.
    const quota = /quota/i.test(message) && (status === 400 || status === 401 || status === 403);
    if ((status === 401 || status === 403) && !quota) throw new EngineAuthError(this.engine, status);
    if (status === 456 || quota) {
      throw new EngineAdapterError(this.engine, 'quota', `engine ${this.engine} quota exceeded${message ? `: ${message}` : ''}`, { status });
    }
    const ra = parseRetryAfter(res.headers.get('retry-after'), this.now());
    if (status === 429) {
      if (ra !== null && ra > this.policy.maxRetryAfterMs) {
        throw new EngineAdapterError(
          this.engine,
          'rate_limited',
          `engine ${this.engine} is rate limiting requests (asked to retry after ${Math.ceil(ra / 1000)} s)`,
          { status, retryable: true },
        );
      }
      return { failure: { kind: 'status', status, message }, delay: Math.max(ra ?? 0, backoffDelay(attempt, this.policy)) };
    }
    if (status === 408 || status >= 500) {
      const honoured = ra !== null && ra <= this.policy.maxRetryAfterMs ? ra : 0;
      return { failure: { kind: 'status', status, message }, delay: Math.max(honoured, backoffDelay(attempt, this.policy)) };
    }
    throw new EngineAdapterError(
      this.engine,
      'rejected',
      `engine ${this.engine} refused the ${what} request (HTTP ${status})${message ? `: ${message}` : ''}`,
      { status },
    );
  }

  private async pause(attempt: number, maxAttempts: number, delay: number, signal?: AbortSignal): Promise<void> {
    if (attempt >= maxAttempts) return;
    try {
      await this.sleep(delay, signal);
    } catch (e) {
      if (signal?.aborted) throw abortError(this.engine);
      throw e;
    }
    if (signal?.aborted) throw abortError(this.engine);
  }

  private finalError(what: string, last: Failure, timeoutMs: number, n: number): EngineAdapterError {
    const tries = `${n} attempt${n === 1 ? '' : 's'}`;
    switch (last.kind) {
      case 'timeout':
        return new EngineAdapterError(
          this.engine,
          'timeout',
          `engine ${this.engine} did not answer the ${what} request within ${Math.round(timeoutMs / 1000)} s (${tries})`,
          { retryable: true },
        );
      case 'network':
        return new EngineAdapterError(this.engine, 'unavailable', `engine ${this.engine} is unreachable (${last.message}) after ${tries}`, {
          retryable: true,
        });
      case 'truncated':
        return new EngineResponseError(this.engine, `${what}: the response body was truncated (${tries})`, {
          status: last.status,
          retryable: true,
        });
      case 'status':
        if (last.status === 429) {
          return new EngineAdapterError(this.engine, 'rate_limited', `engine ${this.engine} is still rate limiting requests after ${tries}`, {
            status: 429,
            retryable: true,
          });
        }
        return new EngineAdapterError(
          this.engine,
          'unavailable',
          `engine ${this.engine} failed the ${what} request: HTTP ${last.status}${last.message ? ` (${last.message})` : ''} after ${tries}`,
          { status: last.status, retryable: true },
        );
    }
  }
}
