// The embedded build's bridge to the ad platform's admin page: @shopify/app-bridge (createApp with the app key
// and the `host` parameter, getSessionToken, the Redirect action), wrapped with the spec's rules:
//  - a token request the platform does not answer within 3 s fails with 'request timeout' (nothing hangs);
//  - a token is cached and treated as expired 10 s before its exp (read from the JWT payload);
//  - one request in flight: concurrent getSessionToken() calls share it; the raw request() refuses a second
//    one with 'Please wait for another async method to return before trying again.' (App Bridge's replies
//    carry no request id, so two requests in flight could not be told apart);
//  - every failure carries the spec's embedded-app text (contract/errors.ts): 'failed to get session token.
//    please try again later' (the platform answered without a token or with an error), 'Unsupported auth
//    type...', 'Request failed' (no App Bridge: not framed, no app key or host, or sending failed),
//    'Invalid URL' and 'This URL is not allowed for redirection' (redirect).
// Navigation out of the iframe goes through Redirect REMOTE, to the admin's own origin, the shop, or the
// origins the server allows (EMBED_ADMIN_ORIGINS, EMBED_REDIRECT_ORIGINS); same-origin URLs stay in the frame.
import * as AppLink from '@shopify/app-bridge/actions/Link/AppLink';
import * as NavigationMenu from '@shopify/app-bridge/actions/Menu/NavigationMenu';
import * as History from '@shopify/app-bridge/actions/Navigation/History';
import * as Redirect from '@shopify/app-bridge/actions/Navigation/Redirect';
import * as SessionToken from '@shopify/app-bridge/actions/SessionToken';
// The package's own createApp (its index picks production.js or development.js at run time, which bundlers
// cannot follow; production.js re-exports this one).
import { createApp, type ClientApplication } from '@shopify/app-bridge/client';
import { getSessionToken as appBridgeSessionToken } from '@shopify/app-bridge/utilities/session-token';
import { EMBED_TOKEN_EXPIRY_MARGIN_MS, PARENT_FRAME_TIMEOUT_MS } from '../../../contract/constants';
import { EMBED_ERROR_TEXTS, TEXT } from '../../../contract/errors';
import { originAllowed } from '../../../contract/origins';
import { parseNavigableUrl } from '../navigation';
import type { NavigateOptions } from '../navigation-options';
import type { EmbedLaunch } from './embed-config';
import type { HostNavigation } from './types';
import { jwtExpiryMs } from './jwt';

export const AUTH_TYPE_SESSION_TOKEN = 'session-token';

/**
 * The spec's text for a failed token request: our own texts pass through; App Bridge errors (the platform
 * answered without a token, or with an error action) are 'failed to get session token...', an unsupported
 * operation is 'Unsupported auth type...'; anything else (sending failed) is 'Request failed'.
 */
export function embedErrorText(e: unknown): string {
  const message = e instanceof Error ? e.message : typeof e === 'string' ? e : '';
  if (EMBED_ERROR_TEXTS.has(message)) return message;
  const type = (e as { type?: unknown } | null)?.type;
  if (typeof type === 'string' && type.startsWith('APP::ERROR::')) {
    return type === 'APP::ERROR::UNSUPPORTED_OPERATION' ? TEXT.embedUnsupportedAuth : TEXT.embedTokenFailed;
  }
  return TEXT.embedRequestFailed;
}

export interface SessionTokenOptions {
  /** One token request to the platform (App Bridge's getSessionToken for the app). */
  fetchToken(): Promise<string>;
  timeoutMs?: number;
  expiryMarginMs?: number;
  now?: () => number;
}

export interface SessionTokens {
  /** A valid session token: the cached one, or one request shared by every caller meanwhile. */
  getSessionToken(): Promise<string>;
  /** One raw request of an auth type (only 'session-token'); refuses a second one while one is in flight. */
  request(authType: string): Promise<string>;
  /** Forgets the cached token (the next getSessionToken asks the platform). */
  clearToken(): void;
}

/** The spec's rules around a token source (no App Bridge here: the unit tests drive it with fakes). */
export function createSessionTokens(opts: SessionTokenOptions): SessionTokens {
  const timeoutMs = opts.timeoutMs ?? PARENT_FRAME_TIMEOUT_MS;
  const marginMs = opts.expiryMarginMs ?? EMBED_TOKEN_EXPIRY_MARGIN_MS;
  const now = opts.now ?? Date.now;
  let cached: { token: string; expiresAt: number } | null = null;
  let inflight: Promise<string> | null = null;

  function cachedToken(): string | null {
    if (cached && cached.expiresAt - marginMs > now()) return cached.token;
    cached = null;
    return null;
  }

  function ask(): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        reject(new Error(TEXT.embedTimeout));
      }, timeoutMs);
      let pending: Promise<string>;
      try {
        pending = opts.fetchToken();
      } catch (e) {
        pending = Promise.reject(e);
      }
      pending.then(
        (token) => {
          if (settled) return; // a reply after the timeout changes nothing
          settled = true;
          clearTimeout(timer);
          if (typeof token !== 'string' || token.trim() === '') {
            reject(new Error(TEXT.embedTokenFailed));
            return;
          }
          const exp = jwtExpiryMs(token);
          // A token without a readable exp, or one already inside the margin, serves this request only.
          cached = exp !== null && exp - marginMs > now() ? { token, expiresAt: exp } : null;
          resolve(token);
        },
        (e: unknown) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          reject(new Error(embedErrorText(e)));
        },
      );
    });
  }

  function request(authType: string): Promise<string> {
    if (authType !== AUTH_TYPE_SESSION_TOKEN) return Promise.reject(new Error(TEXT.embedUnsupportedAuth));
    const hit = cachedToken();
    if (hit) return Promise.resolve(hit);
    if (inflight) return Promise.reject(new Error(TEXT.embedBusy));
    const p = ask();
    inflight = p;
    const done = () => {
      if (inflight === p) inflight = null;
    };
    p.then(done, done);
    return p;
  }

  return {
    getSessionToken() {
      const hit = cachedToken();
      if (hit) return Promise.resolve(hit);
      // Every caller meanwhile shares the request in flight.
      return inflight ?? request(AUTH_TYPE_SESSION_TOKEN);
    },
    request,
    clearToken() {
      cached = null;
    },
  };
}

/** The parts of a window the redirect uses (a real window in the app, fakes in tests). */
export interface FrameLocation {
  href: string;
  origin: string;
  assign(url: string): void;
}

export interface ParentBridge extends SessionTokens {
  /**
   * Leaves the app for `url`: same-origin URLs navigate the frame; the admin, the shop and the allowed
   * origins go through App Bridge's Redirect (the admin window navigates); anything else throws
   * 'This URL is not allowed for redirection'; a non-http(s) URL throws 'Invalid URL'.
   */
  redirect(url: string, opts?: NavigateOptions): void;
  /** The admin's navigation menu, history and redirects into the app (null without App Bridge). */
  host: HostNavigation | null;
  dispose(): void;
}

/** App Bridge's navigation menu, history (the admin's URL) and APP redirects (the admin's menu clicks). */
export function appBridgeHost(app: ClientApplication): HostNavigation {
  let menu: NavigationMenu.NavigationMenu | null = null;
  let lastMenu = '';
  let lastPath = '';
  const history = History.create(app);
  return {
    setMenu(items, activePath) {
      const key = JSON.stringify([items, activePath]);
      if (key === lastMenu) return;
      lastMenu = key;
      const links = items.map((i) => AppLink.create(app, { label: i.label, destination: i.path }));
      const active = links.find((l, n) => items[n].path === activePath);
      if (!menu) menu = NavigationMenu.create(app, { items: links, active });
      else menu.set({ items: links, active });
    },
    syncPath(path) {
      if (path === lastPath) return;
      lastPath = path;
      history.dispatch(History.Action.REPLACE, path);
    },
    onNavigate(fn) {
      return app.subscribe(Redirect.Action.APP, (payload: { path?: unknown }) => {
        if (typeof payload?.path === 'string' && payload.path.startsWith('/')) fn(payload.path);
      });
    },
  };
}

export interface AppBridgeBridgeOptions extends Omit<SessionTokenOptions, 'fetchToken'> {
  /** The App Bridge app, or null when it could not be created (then every call fails with 'Request failed'). */
  app: ClientApplication | null;
  /** Shop domain (its https origin may be navigated to). */
  shop: string | null;
  /** Further origin patterns allowed for redirects (from the server). */
  allowedOrigins: readonly string[];
  location: FrameLocation;
  /** Opens a URL of this origin in a new tab (window.open). */
  openWindow?: (url: string) => void;
}

/** The bridge over an App Bridge app. */
export function createAppBridgeBridge(opts: AppBridgeBridgeOptions): ParentBridge {
  const { app } = opts;
  // The platform may answer a request with an error action instead of a token: fail the pending request with it
  // (an error action nobody subscribes to would otherwise be thrown inside App Bridge's message listener).
  let failPending: ((e: unknown) => void) | null = null;
  const stopErrors = app
    ? app.error((payload: unknown) => {
        const data = (payload ?? {}) as { type?: unknown; action?: { type?: unknown } };
        const about = typeof data.action?.type === 'string' ? data.action.type : null;
        if (failPending && (about === null || about.startsWith('APP::SESSION_TOKEN::'))) {
          failPending(Object.assign(new Error('App Bridge error'), { type: data.type }));
        } else {
          console.error('App Bridge error from the platform', payload);
        }
      })
    : () => {};

  // App Bridge's getSessionToken subscribes to the answer and only unsubscribes when one arrives. A request we
  // gave up on (timeout, error action) therefore still listens, and its late unsubscribe makes App Bridge skip the
  // next listener of the same answer. So there is at most one getSessionToken outstanding: asking again while it
  // waits re-sends the request action, and the outstanding call receives the answer.
  let outstanding: Promise<string> | null = null;
  const tokens = createSessionTokens({
    ...opts,
    fetchToken() {
      if (!app) return Promise.reject(new Error(TEXT.embedRequestFailed));
      if (outstanding) app.dispatch(SessionToken.request());
      else {
        const p = appBridgeSessionToken(app);
        outstanding = p;
        const clear = () => {
          if (outstanding === p) outstanding = null;
        };
        p.then(clear, clear);
      }
      const waiting = outstanding!;
      return new Promise<string>((resolve, reject) => {
        const fail = (e: unknown) => {
          if (failPending === fail) failPending = null;
          reject(e);
        };
        failPending = fail;
        waiting.then((t) => {
          if (failPending === fail) failPending = null;
          resolve(t);
        }, fail);
      });
    },
  });

  function allowed(origin: string): boolean {
    if (app && origin === app.hostOrigin) return true;
    if (opts.shop && origin === new URL(`https://${opts.shop}`).origin) return true;
    return originAllowed(opts.allowedOrigins, origin);
  }

  return {
    ...tokens,
    host: app ? appBridgeHost(app) : null,
    redirect(url, navigate = {}) {
      const target = parseNavigableUrl(url, opts.location.href);
      if (target.origin === opts.location.origin) {
        if (navigate.newContext) (opts.openWindow ?? ((u) => window.open(u, '_blank', 'noopener')))(target.href);
        else opts.location.assign(target.href);
        return;
      }
      if (!allowed(target.origin)) throw new Error(TEXT.embedRedirectNotAllowed);
      if (!app) throw new Error(TEXT.embedRequestFailed);
      try {
        const payload: Redirect.RemotePayload = { url: target.href };
        if (navigate.newContext) payload.newContext = true;
        Redirect.create(app).dispatch(Redirect.Action.REMOTE, payload);
      } catch (e) {
        console.error('App Bridge redirect failed', e);
        throw new Error(TEXT.embedRequestFailed);
      }
    },
    dispose() {
      stopErrors();
      failPending = null;
    },
  };
}

/**
 * The bridge of the running page: App Bridge created with the server's app key and the platform's `host`.
 * Without them (or outside a frame) the app still starts, and every token request fails with 'Request failed'
 * and a console error saying why. Opened outside the admin, App Bridge sends the browser into the admin.
 */
export function createWindowBridge(launch: EmbedLaunch): ParentBridge {
  let app: ClientApplication | null = null;
  let reason: string | null = null;
  if (!launch.apiKey) reason = 'the server has no app key (set EMBED_APP_KEY)';
  else if (!launch.host) reason = 'the page was opened without the platform\'s "host" parameter';
  else {
    try {
      app = createApp({ apiKey: launch.apiKey, host: launch.host });
    } catch (e) {
      reason = `App Bridge could not start: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  if (reason) console.error(`Embedded app: no connection to the platform's admin: ${reason}`);
  return createAppBridgeBridge({ app, shop: launch.shop, allowedOrigins: launch.allowedOrigins, location: window.location });
}
