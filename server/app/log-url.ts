// What of a request URL goes into a log line: the path and the query, with what would let a reader of the logs
// fetch or act as someone else cut out. A signed file URL (/api/files/<grant>.<signature>/<name>, valid for hours)
// keeps its grant (which file, until when) but loses its signature; query parameters that carry a signature, a
// token, a key or a code keep their name but not their value.

/** Query parameter names whose values never reach a log (X-Amz-Signature, X-Amz-Credential, token, sig, code ...). */
const SECRET_PARAM = /sig|token|secret|passw|credential|auth|jwt|session|ticket|api_?key|^key$|^code$|^state$/i;
const REDACTED = '[redacted]';

/** The signature part of a signed file URL's token. */
const SIGNED_FILE = /^(\/api\/files\/[^/.]+)\.[^/?]+/;

/** The path (and query, if any) of a request as it may be logged. */
export function loggableUrl(pathAndQuery: string): string {
  const q = pathAndQuery.indexOf('?');
  const path = q < 0 ? pathAndQuery : pathAndQuery.slice(0, q);
  const out = path.replace(SIGNED_FILE, `$1.${REDACTED}`);
  if (q < 0) return out;
  const params = new URLSearchParams(pathAndQuery.slice(q + 1));
  const kept: string[] = [];
  for (const [k, v] of params) kept.push(`${encodeURIComponent(k)}=${SECRET_PARAM.test(k) ? REDACTED : encodeURIComponent(v)}`);
  return kept.length ? `${out}?${kept.join('&')}` : out;
}

/** The loggable path and query of a request URL (absolute, as Hono's c.req.url). */
export function loggableRequestUrl(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return loggableUrl(start < 0 ? '/' : url.slice(start));
}
