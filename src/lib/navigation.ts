// Navigation out of the app (payment checkout, billing portal, the sister product...), the same call in both
// builds:
//  - standalone: the browser goes there (window.location, or a new tab with newContext);
//  - embedded (inside the ad platform's admin iframe): the admin window goes there through App Bridge's
//    Redirect action, only for allowed origins (src/lib/auth/bridge.ts).
// Failures throw an Error whose message is the spec's text: 'Invalid URL' (not an http(s) URL),
// 'This URL is not allowed for redirection', 'Request failed' (no App Bridge to ask).
import { TEXT } from '../../contract/errors';
import { getAuthProvider } from './auth/active';
import { isEmbeddedProvider } from './auth/types';
import { page } from './page';
import type { NavigateOptions } from './navigation-options';

/** The absolute http(s) URL of `url` (relative URLs resolve against `base`); throws 'Invalid URL'. */
export function parseNavigableUrl(url: string, base: string): URL {
  let target: URL;
  try {
    target = new URL(url, base);
  } catch {
    throw new Error(TEXT.embedInvalidUrl);
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw new Error(TEXT.embedInvalidUrl);
  return target;
}

/** Leaves the app for `url` (see the top of this file); throws with the spec's text when it cannot. */
export function navigateExternal(url: string, opts: NavigateOptions = {}): void {
  const provider = getAuthProvider();
  if (isEmbeddedProvider(provider)) {
    provider.redirect(url, opts);
    return;
  }
  const target = parseNavigableUrl(url, window.location.href);
  if (opts.newContext) window.open(target.href, '_blank', 'noopener');
  else page.assign(target.href);
}

export interface ExternalLinkOptions {
  /** Navigates out (navigateExternal in the app). */
  navigate(url: string, opts: NavigateOptions): void;
  /** Shows why a link could not be followed (a toast in the app). */
  onError(message: string): void;
}

/**
 * Embedded build: clicks on links to other origins (sidebar Help Center, the sister product, links in pages)
 * go through `navigate` instead of the browser, so that they leave the iframe through the platform and obey
 * the allowed origins. A new tab is asked for when the link says so (target=_blank, or a modifier key).
 * Same-origin links, mailto: and other schemes, downloads and clicks already handled are left alone.
 * Returns the function that removes the listener.
 */
export function routeExternalLinks(root: Document, opts: ExternalLinkOptions): () => void {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0) return;
    const el = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (!(el instanceof HTMLAnchorElement) || el.hasAttribute('download')) return;
    let url: URL;
    try {
      url = new URL(el.href, root.baseURI);
    } catch {
      return;
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin === root.location?.origin) return;
    event.preventDefault();
    const newContext = el.target === '_blank' || event.metaKey || event.ctrlKey || event.shiftKey;
    try {
      opts.navigate(url.href, { newContext });
    } catch (e) {
      opts.onError(e instanceof Error ? e.message : String(e));
    }
  };
  root.addEventListener('click', onClick);
  return () => root.removeEventListener('click', onClick);
}
