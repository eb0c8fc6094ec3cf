// One webhook attempt over HTTP: a POST of the signed body (Standard Webhooks headers), with a time limit,
// following at most MAX_REDIRECTS redirects, each hop through the SSRF guard (ssrf.ts).
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { BlockedAddressError, blockedReason, guardedLookup } from './ssrf';

const MAX_REDIRECTS = 3;
/** Characters of the answer kept in the log of an attempt. */
const KEEP = 300;

export interface AttemptResult {
  /** The final HTTP status, or null when nothing answered (timeout, refused, blocked address). */
  status: number | null;
  ok: boolean;
  latencyMs: number;
  error: string | null;
}

interface Hop {
  status: number;
  location: string | null;
  body: string;
}

function post(url: URL, body: string, headers: Record<string, string>, o: { timeoutMs: number; allowPrivate: boolean; deadline: number }): Promise<Hop> {
  // An IP literal is connected to without a lookup: it is checked here.
  const literal = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal)) {
    const why = blockedReason(literal, o.allowPrivate);
    if (why) return Promise.reject(new BlockedAddressError(why));
  }
  return new Promise((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http;
    const left = Math.max(1, o.deadline - Date.now());
    const req = lib.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'DubbingStudio-Webhooks/1' },
        lookup: guardedLookup(o.allowPrivate) as never,
        timeout: left,
        agent: false,
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          if (text.length < KEEP) text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location ?? null, body: text.slice(0, KEEP) }));
        res.on('error', reject);
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${o.timeoutMs} ms`)), left);
    req.on('timeout', () => req.destroy(new Error(`no answer within ${o.timeoutMs} ms`)));
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.on('close', () => clearTimeout(timer));
    req.end(body);
  });
}

/** Sends one attempt. Never throws: what went wrong is in `error`. */
export async function sendWebhook(
  target: string,
  body: string,
  headers: Record<string, string>,
  o: { timeoutMs: number; allowPrivate: boolean },
): Promise<AttemptResult> {
  const t0 = Date.now();
  const deadline = t0 + o.timeoutMs;
  let url = new URL(target);
  try {
    for (let hop = 0; ; hop++) {
      const r = await post(url, body, headers, { ...o, deadline });
      if (r.status >= 300 && r.status < 400 && r.location) {
        if (hop >= MAX_REDIRECTS) {
          return { status: r.status, ok: false, latencyMs: Date.now() - t0, error: `more than ${MAX_REDIRECTS} redirects` };
        }
        const next = new URL(r.location, url);
        if (next.protocol !== 'http:' && next.protocol !== 'https:') {
          return { status: r.status, ok: false, latencyMs: Date.now() - t0, error: `redirect to an unsupported URL: ${next.protocol}` };
        }
        url = next;
        continue;
      }
      const ok = r.status >= 200 && r.status < 300;
      return { status: r.status, ok, latencyMs: Date.now() - t0, error: ok ? null : `HTTP ${r.status}${r.body ? `: ${r.body}` : ''}` };
    }
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return { status: null, ok: false, latencyMs: Date.now() - t0, error: url.href !== target ? `redirect to ${url.origin}: ${msg}` : msg };
  }
}
