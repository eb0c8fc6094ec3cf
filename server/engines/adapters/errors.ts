// Typed failures of the HTTP engine adapters. All extend the engines' EngineError, so a pipeline stage
// that already maps EngineError to a failure status handles them too; `reason` tells them apart.
// Every message names the engine and is redacted of credentials before it is built.
import { EngineError } from '../types';

export type AdapterFailure =
  | 'auth' // 401/403: the key was refused (never retried)
  | 'rate_limited' // 429 that outlasted the retries or asked for a wait longer than allowed
  | 'quota' // the account's quota is used up (DeepL 456, ElevenLabs quota_exceeded)
  | 'unavailable' // 5xx or network failure after the bounded retries
  | 'timeout' // every attempt timed out
  | 'rejected' // another 4xx: the service refused this request
  | 'bad_response'; // malformed, truncated or incomplete response body

export class EngineAdapterError extends EngineError {
  readonly engine: string;
  readonly reason: AdapterFailure;
  /** HTTP status of the last response, when there was one. */
  readonly status: number | undefined;
  /** Whether retrying the same request later may succeed. */
  readonly retryable: boolean;
  constructor(engine: string, reason: AdapterFailure, message: string, o: { status?: number; retryable?: boolean } = {}) {
    super(reason === 'unavailable' || reason === 'timeout' ? 'unavailable' : 'failed', message);
    this.engine = engine;
    this.reason = reason;
    this.status = o.status;
    this.retryable = o.retryable ?? false;
  }
}

/** 401/403 from the service. Message: `engine <name> rejected the credentials`. */
export class EngineAuthError extends EngineAdapterError {
  constructor(engine: string, status: number) {
    super(engine, 'auth', `engine ${engine} rejected the credentials (HTTP ${status})`, { status });
  }
}

/** The response could not be used: not JSON, wrong shape, truncated audio, missing items. */
export class EngineResponseError extends EngineAdapterError {
  constructor(engine: string, detail: string, o: { status?: number; retryable?: boolean } = {}) {
    super(engine, 'bad_response', `engine ${engine} returned an unusable response: ${detail}`, o);
  }
}

export function isAdapterError(e: unknown): e is EngineAdapterError {
  return e instanceof EngineAdapterError;
}

/** The error a cancelled call rejects with: name 'AbortError', as media/errors isAbortError() expects. */
export function abortError(engine: string): Error {
  const e = new Error(`engine ${engine}: the call was cancelled`);
  e.name = 'AbortError';
  return e;
}
