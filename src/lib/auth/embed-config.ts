// What the embedded build needs to start App Bridge, read once at start-up:
//  - the app key and the allowed redirect origins, from the meta tags the server puts into /embed/index.html
//    (server/http/embed-page.ts: EMBED_APP_KEY, EMBED_ADMIN_ORIGINS, EMBED_REDIRECT_ORIGINS);
//  - `host` (base64 of the admin's host and path, e.g. admin.example.com/store/demo) and `shop` (the shop
//    domain), the query parameters the platform adds to the iframe URL.
// Nothing here depends on storage: inside a third-party iframe with cookies blocked, storage may throw or be
// empty. The launch parameters are kept in memory; sessionStorage is only a best-effort copy for a reload of
// the frame, and without it `host` is rebuilt from the admin's origin (location.ancestorOrigins).

import { EMBED_META } from '../../../contract/origins';
import { session, STORAGE_KEYS } from '../storage';

export interface EmbedLaunch {
  /** The app key (client id) registered on the platform; null when the server has none configured. */
  apiKey: string | null;
  /** The `host` parameter as App Bridge expects it (base64url), or null when unknown. */
  host: string | null;
  /** Shop domain, e.g. demo.myshop.example. */
  shop: string | null;
  /** Origin patterns the admin window may be sent to (besides the admin itself and the shop). */
  allowedOrigins: string[];
}

const SHOP_RE = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+(?::\d{1,5})?$/i;
/** A decoded host: host[:port] with an optional path (admin.example.com/store/demo, demo.myshop.example/admin). */
const DECODED_HOST_RE = /^[a-z0-9.-]+(?::\d{1,5})?(?:\/[A-Za-z0-9._~%/-]*)?$/i;

export function isShopDomain(s: string): boolean {
  return SHOP_RE.test(s);
}

/** The admin host a `host` parameter stands for, or null when it is not one. */
export function decodeHostParam(host: string): string | null {
  try {
    const decoded = atob(host.replace(/_/g, '/').replace(/-/g, '+'));
    return DECODED_HOST_RE.test(decoded) ? decoded : null;
  } catch {
    return null;
  }
}

/** A `host` parameter for an admin origin (used when the frame was reloaded without one). */
export function hostParamFor(origin: string): string | null {
  try {
    const u = new URL(origin);
    if (u.protocol !== 'https:') return null;
    return btoa(u.host).replace(/=+$/, '');
  } catch {
    return null;
  }
}

export interface LaunchSources {
  /** The page URL. */
  href: string;
  /** <meta name=...> content, or null. */
  meta(name: string): string | null;
  /** location.ancestorOrigins[0] when the browser has it. */
  ancestorOrigin: string | null;
  /** Best-effort session memory (may throw or forget). */
  remembered: { get(key: string): string | null; set(key: string, value: string): void };
}

const KEY_HOST = STORAGE_KEYS.embedHost;
const KEY_SHOP = STORAGE_KEYS.embedShop;

/** Reads the launch settings; invalid parameters are ignored with a console error. */
export function readEmbedLaunch(src: LaunchSources): EmbedLaunch {
  const url = new URL(src.href);
  const apiKey = src.meta(EMBED_META.appKey)?.trim() || null;
  const allowedOrigins = (src.meta(EMBED_META.allowedOrigins) ?? '').split(/\s+/).filter((s) => s !== '');

  let host: string | null = null;
  const rawHost = url.searchParams.get('host');
  if (rawHost !== null) {
    if (decodeHostParam(rawHost)) host = rawHost;
    else console.error(`Ignoring invalid host parameter "${rawHost}": expected the value the platform adds to the app URL`);
  }
  let shop: string | null = null;
  const rawShop = url.searchParams.get('shop');
  if (rawShop !== null) {
    if (isShopDomain(rawShop)) shop = rawShop.toLowerCase();
    else console.error(`Ignoring invalid shop parameter "${rawShop}": expected a shop domain such as example.myshop.com`);
  }

  const safeGet = (key: string) => {
    try {
      return src.remembered.get(key);
    } catch {
      return null;
    }
  };
  const safeSet = (key: string, value: string) => {
    try {
      src.remembered.set(key, value);
    } catch {
      /* storage blocked: memory is enough for this document */
    }
  };
  if (host) safeSet(KEY_HOST, host);
  else {
    const kept = safeGet(KEY_HOST);
    host = kept && decodeHostParam(kept) ? kept : src.ancestorOrigin ? hostParamFor(src.ancestorOrigin) : null;
  }
  if (shop) safeSet(KEY_SHOP, shop);
  else {
    const kept = safeGet(KEY_SHOP);
    shop = kept && isShopDomain(kept) ? kept : null;
  }
  return { apiKey, host, shop, allowedOrigins };
}

/** The launch settings of the running page. */
export function readWindowLaunch(): EmbedLaunch {
  const ancestors = (window.location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  return readEmbedLaunch({
    href: window.location.href,
    meta: (name) => document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.getAttribute('content') ?? null,
    ancestorOrigin: ancestors && ancestors.length > 0 ? ancestors[0] : null,
    remembered: { get: (key) => session.getString(key), set: (key, value) => session.setString(key, value) },
  });
}
