// SWR as the spec's query cache: 3 retries with back-off doubling from 1 s up to 30 s, never for 4xx answers.
// Data stays in the cache for the life of the page (at least the spec's 5 minutes); settings and the space list
// are additionally de-duplicated for 5 minutes (CACHED_5_MIN), other queries revalidate on mount as usual.
import type { SWRConfiguration } from 'swr';
import {
  QUERY_BACKOFF_BASE_MS,
  QUERY_BACKOFF_CAP_MS,
  QUERY_CACHE_MS,
  QUERY_RETRIES,
} from '../../contract/constants';
import { isApiError } from './http';

/** Delay before retry number `retryCount` (1-based): 1 s, 2 s, 4 s ... capped at 30 s. */
export function retryDelayMs(retryCount: number): number {
  return Math.min(QUERY_BACKOFF_BASE_MS * 2 ** Math.max(0, retryCount - 1), QUERY_BACKOFF_CAP_MS);
}

/** Retry only server/network failures, at most QUERY_RETRIES times. */
export function shouldRetry(error: unknown, retryCount: number): boolean {
  if (retryCount > QUERY_RETRIES) return false;
  if (isApiError(error) && error.status >= 400 && error.status < 500) return false;
  // No token (e.g. the parent frame did not answer within 3 s): show it instead of waiting longer.
  if (isApiError(error) && error.kind === 'auth') return false;
  return true;
}

/** Every query names its own reader: the typed GETs of src/lib/api/use-api-get.ts (no default one). */
export const swrConfig: SWRConfiguration = {
  errorRetryCount: QUERY_RETRIES,
  onErrorRetry(error, _key, _config, revalidate, { retryCount }) {
    if (!shouldRetry(error, retryCount)) return;
    setTimeout(() => void revalidate({ retryCount }), retryDelayMs(retryCount));
  },
};

/** For queries the spec caches for 5 minutes (settings, spaces). */
export const CACHED_5_MIN: SWRConfiguration = {
  dedupingInterval: QUERY_CACHE_MS,
  focusThrottleInterval: QUERY_CACHE_MS,
};
