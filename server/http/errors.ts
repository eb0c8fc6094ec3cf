// One error class for the API: a status and a detail, rendered as {"detail": ...}.
export type ValidationIssue = { loc: (string | number)[]; msg: string; type: string };

export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 502 | 503 | 504,
    readonly detail: string | ValidationIssue[],
    readonly headers?: Record<string, string>,
  ) {
    super(typeof detail === 'string' ? detail : detail.map((d) => d.msg).join('; '));
  }
}

export const badRequest = (d: string) => new ApiError(400, d);
export const unauthorized = (d = 'Not authenticated') => new ApiError(401, d, { 'WWW-Authenticate': 'Bearer' });
export const paymentRequired = (d: string) => new ApiError(402, d);
export const forbidden = (d: string) => new ApiError(403, d);
export const notFound = (d = 'Not found') => new ApiError(404, d);
export const conflict = (d: string) => new ApiError(409, d);
export const unprocessable = (issues: ValidationIssue[]) => new ApiError(422, issues);
export const tooMany = (d: string, retryAfterSec?: number) =>
  new ApiError(429, d, retryAfterSec ? { 'Retry-After': String(retryAfterSec) } : undefined);
