// The domains' error: what went wrong as a code and a text a person reads. Services and repositories throw it
// and know nothing of HTTP; server/http/errors.ts maps each code to a status in one table.
export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };

export type DomainErrorCode =
  | 'bad_request' // the request cannot be done as asked
  | 'unauthenticated' // no caller, or credentials that do not hold
  | 'payment_required' // minutes or a plan are missing
  | 'forbidden' // the caller may not do this
  | 'not_found'
  | 'conflict' // the state does not allow it (already done, being processed, taken)
  | 'gone'
  | 'too_large'
  | 'unsupported_media'
  | 'invalid' // field-level validation issues
  | 'rate_limited'
  | 'upstream_failed' // a service we depend on answered wrongly
  | 'unavailable' // not configured here, or temporarily unavailable
  | 'upstream_timeout'
  | 'out_of_disk'; // the server's data folder is full

export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: DomainErrorCode,
    readonly detail: string | ValidationIssue[],
    readonly o: {
      /** Response headers the caller needs (Retry-After, WWW-Authenticate). */
      headers?: Record<string, string>;
      /** Machine-readable fields sent beside `detail` (e.g. a feature refusal's code and feature). */
      extra?: Record<string, unknown>;
    } = {},
  ) {
    super(typeof detail === 'string' ? detail : detail.map((d) => d.msg).join('; '));
  }
}

export const badRequest = (d: string) => new DomainError('bad_request', d);
export const unauthorized = (d = 'Not authenticated') => new DomainError('unauthenticated', d, { headers: { 'WWW-Authenticate': 'Bearer' } });
export const forbidden = (d: string) => new DomainError('forbidden', d);
export const notFound = (d = 'Not found') => new DomainError('not_found', d);
export const conflict = (d: string) => new DomainError('conflict', d);
export const unprocessable = (issues: ValidationIssue[]) => new DomainError('invalid', issues);
export const tooMany = (d: string, retryAfterSec?: number) =>
  new DomainError('rate_limited', d, retryAfterSec ? { headers: { 'Retry-After': String(retryAfterSec) } } : {});

export const DISK_FULL_TEXT = 'The server is out of disk space: the upload was not stored. Try again later.';

export const diskFull = (d: string = DISK_FULL_TEXT) => new DomainError('out_of_disk', d, { headers: { 'Retry-After': '60' } });
