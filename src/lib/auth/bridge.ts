// The parent-frame bridge of the embedded build: our own postMessage protocol with the ad platform's admin page
// (tests/e2e/parent.html is a working parent).
//
// Protocol (all messages are plain objects; the app only accepts messages whose event.source is window.parent,
// and, when the parent's origin is known, whose event.origin is that origin):
//
//   app -> parent  { type: 'dubbing:session-token:request', id: string, auth: 'session-token' }
//   parent -> app  { type: 'dubbing:session-token:response', id, token: string }          success
//   parent -> app  { type: 'dubbing:session-token:response', id, error: string }          failure
//                  error 'unsupported_auth_type' -> 'Unsupported auth type...'; any other error, or a reply
//                  without a token -> 'failed to get session token. please try again later'
//   app -> parent  { type: 'dubbing:redirect', id: string, url: string }                   navigate the parent
//
// Session tokens are HS256 JWTs minted by the parent for the app key (aud), with iss '<shop>/admin',
// dest '<shop URL>', sub, exp and nbf; the server verifies them. The bridge:
//  - gives every request an id and ignores replies with another id;
//  - fails a request the parent does not answer within 3 s with 'request timeout' (no hang);
//  - caches the token and treats it as expired 10 s before its exp (exp read from the JWT payload);
//  - rejects a second request while one is pending with
//    'Please wait for another async method to return before trying again.'
//    (the embedded auth provider shares one pending request between concurrent API calls);
//  - fails with 'Request failed' when there is no parent frame or postMessage throws.
import { EMBED_TOKEN_EXPIRY_MARGIN_MS, PARENT_FRAME_TIMEOUT_MS } from '../../../contract/constants';
import { TEXT } from '../../../contract/errors';
import { jwtExpiryMs } from './jwt';

export const MSG_TOKEN_REQUEST = 'dubbing:session-token:request';
export const MSG_TOKEN_RESPONSE = 'dubbing:session-token:response';
export const MSG_REDIRECT = 'dubbing:redirect';
export const AUTH_TYPE_SESSION_TOKEN = 'session-token';
export const ERROR_UNSUPPORTED_AUTH = 'unsupported_auth_type';

/** The parts of a window the bridge uses (a real window in the app, fakes in tests). */
export interface BridgeTarget {
  postMessage(message: unknown, targetOrigin: string): void;
}
export interface BridgeSelf {
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
  location: { href: string; origin: string; assign(url: string): void };
}

export interface BridgeOptions {
  /** The frame we live in (window). */
  self: BridgeSelf;
  /** window.parent; null or the frame itself when not embedded. */
  parent: BridgeTarget | null;
  /** The parent's origin when known (postMessage target and accepted event.origin); '*' / unchecked otherwise. */
  parentOrigin?: string | null;
  /** Extra origins the parent may be asked to navigate to (e.g. the shop admin). */
  allowedRedirectOrigins?: string[];
  timeoutMs?: number;
  expiryMarginMs?: number;
  now?: () => number;
}

export interface ParentBridge {
  /** A valid session token: cached, or requested from the parent. */
  getSessionToken(): Promise<string>;
  /** Requests a token of an auth type; only 'session-token' is supported. */
  request(authType: string): Promise<string>;
  /** Drops the cached token (the next getSessionToken asks the parent). */
  clearToken(): void;
  /** Validates a URL and navigates: same origin in the frame, allowed other origins through the parent. */
  redirect(url: string): void;
  dispose(): void;
}

interface Pending {
  id: string;
  resolve(token: string): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

let seq = 0;
function newId(): string {
  seq += 1;
  const rand = Math.random().toString(36).slice(2, 10);
  return `${Date.now().toString(36)}-${seq}-${rand}`;
}

function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const o = new URL(url).origin;
    return o === 'null' ? null : o;
  } catch {
    return null;
  }
}

export function createParentBridge(opts: BridgeOptions): ParentBridge {
  const timeoutMs = opts.timeoutMs ?? PARENT_FRAME_TIMEOUT_MS;
  const marginMs = opts.expiryMarginMs ?? EMBED_TOKEN_EXPIRY_MARGIN_MS;
  const now = opts.now ?? Date.now;
  const parent = opts.parent && (opts.parent as unknown) !== (opts.self as unknown) ? opts.parent : null;
  const parentOrigin = opts.parentOrigin ?? null;
  let pending: Pending | null = null;
  let cached: { token: string; expiresAt: number } | null = null;

  function cachedToken(): string | null {
    if (cached && cached.expiresAt - marginMs > now()) return cached.token;
    cached = null;
    return null;
  }

  function onMessage(event: MessageEvent): void {
    if (!pending || !parent) return;
    if (event.source !== (parent as unknown)) return;
    if (parentOrigin && event.origin !== parentOrigin) return;
    const data = event.data as Record<string, unknown> | null;
    if (!data || typeof data !== 'object' || data.type !== MSG_TOKEN_RESPONSE || data.id !== pending.id) return;
    const p = pending;
    pending = null;
    clearTimeout(p.timer);
    if (data.error !== undefined && data.error !== null) {
      p.reject(new Error(data.error === ERROR_UNSUPPORTED_AUTH ? TEXT.embedUnsupportedAuth : TEXT.embedTokenFailed));
      return;
    }
    const token = data.token;
    if (typeof token !== 'string' || token.trim() === '') {
      p.reject(new Error(TEXT.embedTokenFailed));
      return;
    }
    const exp = jwtExpiryMs(token);
    // A token without a readable exp is used for this request only, never cached.
    cached = exp !== null ? { token, expiresAt: exp } : null;
    p.resolve(token);
  }
  opts.self.addEventListener('message', onMessage);

  function request(authType: string): Promise<string> {
    if (authType !== AUTH_TYPE_SESSION_TOKEN) return Promise.reject(new Error(TEXT.embedUnsupportedAuth));
    const hit = cachedToken();
    if (hit) return Promise.resolve(hit);
    if (pending) return Promise.reject(new Error(TEXT.embedBusy));
    if (!parent) return Promise.reject(new Error(TEXT.embedRequestFailed));
    return new Promise<string>((resolve, reject) => {
      const id = newId();
      const timer = setTimeout(() => {
        if (pending?.id === id) {
          pending = null;
          reject(new Error(TEXT.embedTimeout));
        }
      }, timeoutMs);
      pending = { id, resolve, reject, timer };
      try {
        parent.postMessage({ type: MSG_TOKEN_REQUEST, id, auth: authType }, parentOrigin ?? '*');
      } catch {
        clearTimeout(timer);
        pending = null;
        reject(new Error(TEXT.embedRequestFailed));
      }
    });
  }

  function redirect(url: string): void {
    let target: URL;
    try {
      target = new URL(url, opts.self.location.href);
    } catch {
      throw new Error(TEXT.embedInvalidUrl);
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new Error(TEXT.embedInvalidUrl);
    if (target.origin === opts.self.location.origin) {
      opts.self.location.assign(target.href);
      return;
    }
    const allowed = new Set([parentOrigin, ...(opts.allowedRedirectOrigins ?? [])].filter((o): o is string => !!o));
    if (!allowed.has(target.origin)) throw new Error(TEXT.embedRedirectNotAllowed);
    if (!parent) throw new Error(TEXT.embedRequestFailed);
    try {
      parent.postMessage({ type: MSG_REDIRECT, id: newId(), url: target.href }, parentOrigin ?? '*');
    } catch {
      throw new Error(TEXT.embedRequestFailed);
    }
  }

  return {
    getSessionToken: () => request(AUTH_TYPE_SESSION_TOKEN),
    request,
    clearToken() {
      cached = null;
    },
    redirect,
    dispose() {
      opts.self.removeEventListener('message', onMessage);
      if (pending) {
        clearTimeout(pending.timer);
        pending.reject(new Error(TEXT.embedRequestFailed));
        pending = null;
      }
    },
  };
}

/** The bridge of the running page: window.parent, its origin from the referrer / ancestorOrigins, the shop. */
export function createWindowBridge(shop: string | null): ParentBridge {
  const w = window;
  const framed = w.parent && w.parent !== w;
  const ancestor = (w.location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins?.[0] ?? null;
  const parentOrigin = framed ? originOf(ancestor) ?? originOf(document.referrer) : null;
  const shopOrigin = shop ? originOf(`https://${shop}`) : null;
  return createParentBridge({
    self: w,
    parent: framed ? w.parent : null,
    parentOrigin,
    allowedRedirectOrigins: shopOrigin ? [shopOrigin] : [],
  });
}

export { originOf };
