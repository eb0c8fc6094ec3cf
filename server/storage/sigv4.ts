// AWS Signature Version 4 for S3-compatible stores (header and query-string signing). Pure functions.
import { createHash, createHmac } from 'node:crypto';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service?: string;
}

export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

export function sha256Hex(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** RFC 3986 encoding as S3 wants it; slashes kept when encoding a path. */
export function uriEncode(s: string, keepSlash = false): string {
  let out = '';
  for (const ch of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(ch);
    if (/[A-Za-z0-9\-._~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += '%' + ch.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** 2013-05-24T00:00:00Z -> 20130524T000000Z */
export function amzDate(d: Date): string {
  return d.toISOString().replace(/[:-]|\.\d{3}/g, '');
}

function canonicalQuery(query: Record<string, string>): string {
  return Object.keys(query)
    .map((k) => [uriEncode(k), uriEncode(query[k]!)] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function signingKey(c: Credentials, date: string): Buffer {
  const kDate = hmac(`AWS4${c.secretAccessKey}`, date);
  const kRegion = hmac(kDate, c.region);
  const kService = hmac(kRegion, c.service ?? 's3');
  return hmac(kService, 'aws4_request');
}

export interface SignInput {
  method: string;
  /** Already URI-encoded path, e.g. /bucket/some%20key */
  path: string;
  query?: Record<string, string>;
  /** Lower- or mixed-case header names; host must be included. */
  headers: Record<string, string>;
  payloadHash: string;
  date: Date;
}

export function canonicalRequest(i: SignInput): { text: string; signedHeaders: string } {
  const hs = Object.entries(i.headers).map(([k, v]) => [k.toLowerCase(), v.trim().replace(/\s+/g, ' ')] as const);
  hs.sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const signedHeaders = hs.map(([k]) => k).join(';');
  const text = [
    i.method.toUpperCase(),
    i.path,
    canonicalQuery(i.query ?? {}),
    hs.map(([k, v]) => `${k}:${v}\n`).join(''),
    signedHeaders,
    i.payloadHash,
  ].join('\n');
  return { text, signedHeaders };
}

/** Signs a request with an Authorization header; returns the headers to send (x-amz-date included). */
export function signHeaders(c: Credentials, i: Omit<SignInput, 'headers'> & { headers: Record<string, string> }): Record<string, string> {
  const date = amzDate(i.date);
  const headers = { ...i.headers, 'x-amz-date': date, 'x-amz-content-sha256': i.payloadHash };
  const { text, signedHeaders } = canonicalRequest({ ...i, headers });
  const scope = `${date.slice(0, 8)}/${c.region}/${c.service ?? 's3'}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256Hex(text)].join('\n');
  const signature = createHmac('sha256', signingKey(c, date.slice(0, 8))).update(toSign, 'utf8').digest('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${c.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}

/** A presigned URL (query-string auth) valid for `expiresSec`. `base` is scheme://host. */
export function presignUrl(
  c: Credentials,
  i: { method: string; base: string; path: string; query?: Record<string, string>; date: Date; expiresSec: number },
): string {
  const host = new URL(i.base).host;
  const date = amzDate(i.date);
  const scope = `${date.slice(0, 8)}/${c.region}/${c.service ?? 's3'}/aws4_request`;
  const query: Record<string, string> = {
    ...(i.query ?? {}),
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': `${c.accessKeyId}/${scope}`,
    'X-Amz-Date': date,
    'X-Amz-Expires': String(Math.max(1, Math.min(604800, Math.floor(i.expiresSec)))),
    'X-Amz-SignedHeaders': 'host',
  };
  const { text } = canonicalRequest({ method: i.method, path: i.path, query, headers: { host }, payloadHash: UNSIGNED_PAYLOAD, date: i.date });
  const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256Hex(text)].join('\n');
  const signature = createHmac('sha256', signingKey(c, date.slice(0, 8))).update(toSign, 'utf8').digest('hex');
  return `${i.base}${i.path}?${canonicalQuery(query)}&X-Amz-Signature=${signature}`;
}
