// Errors as HTTP responses, rendered as {"detail": ...}: the domains' DomainError codes are mapped to statuses
// here, in ONE table; ApiError is the HTTP layer's own (a status it decides itself, e.g. 413 for a body).
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isDiskFull } from '../media/errors';
import { DomainError, diskFull, type DomainErrorCode, type ValidationIssue } from '../errors';

export type { ValidationIssue };
export { badRequest, notFound, unauthorized, unprocessable } from '../errors';

/** THE mapping of domain error codes to HTTP statuses. */
export const STATUS_OF: Record<DomainErrorCode, ContentfulStatusCode> = {
  bad_request: 400,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  too_large: 413,
  unsupported_media: 415,
  invalid: 422,
  rate_limited: 429,
  upstream_failed: 502,
  unavailable: 503,
  upstream_timeout: 504,
  out_of_disk: 507,
};

export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 502 | 503 | 504,
    readonly detail: string | ValidationIssue[],
    readonly headers?: Record<string, string>,
    /** Machine-readable fields sent beside `detail`. */
    readonly extra?: Record<string, unknown>,
  ) {
    super(typeof detail === 'string' ? detail : detail.map((d) => d.msg).join('; '));
  }
}

/** The response of an error the API knows (null for anything else: a 500). */
export function errorResponse(err: unknown): {
  status: ContentfulStatusCode;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
} | null {
  if (err instanceof DomainError) {
    return { status: STATUS_OF[err.code], body: { detail: err.detail, ...err.o.extra }, headers: err.o.headers };
  }
  if (err instanceof ApiError) return { status: err.status, body: { detail: err.detail, ...err.extra }, headers: err.headers };
  // A write the full disk refused, wherever it happened: said as such (not a 500).
  if (isDiskFull(err)) return errorResponse(diskFull('The server is out of disk space: nothing was saved. Try again later.'));
  return null;
}
