// navigateExternal in both builds, the embedded build's link routing, and the launch settings it reads
// (app key and allowed origins from the server's meta tags, host and shop from the iframe URL, no storage needed).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEXT } from '../../contract/errors';
import { setAuthProvider } from '../../src/lib/auth/active';
import { decodeHostParam, hostParamFor, readEmbedLaunch, type LaunchSources } from '../../src/lib/auth/embed-config';
import type { EmbeddedAuthProvider } from '../../src/lib/auth/types';
import { navigateExternal, routeExternalLinks } from '../../src/lib/navigation';
import { page } from '../../src/lib/page';

afterEach(() => {
  setAuthProvider(null);
  vi.restoreAllMocks();
  document.body.innerHTML = '';
});

function embeddedProvider(redirect = vi.fn()): EmbeddedAuthProvider {
  return {
    kind: 'embedded',
    shop: null,
    getToken: async () => 't',
    signOut: async () => {},
    isAuthenticated: () => true,
    getEmail: () => null,
    subscribe: () => () => {},
    redirect,
  };
}

describe('navigateExternal', () => {
  it('standalone: the browser goes there, or opens a new tab; non-http(s) URLs are "Invalid URL"', () => {
    const assign = vi.spyOn(page, 'assign').mockImplementation(() => {});
    const open = vi.spyOn(window, 'open').mockImplementation(() => null);
    navigateExternal('https://checkout.stripe.com/c/pay/cs_1');
    expect(assign).toHaveBeenCalledWith('https://checkout.stripe.com/c/pay/cs_1');
    navigateExternal('https://billing.stripe.com/p/session', { newContext: true });
    expect(open).toHaveBeenCalledWith('https://billing.stripe.com/p/session', '_blank', 'noopener');
    expect(() => navigateExternal('javascript:alert(1)')).toThrow(TEXT.embedInvalidUrl);
    expect(() => navigateExternal('data:text/html,hi')).toThrow(TEXT.embedInvalidUrl);
    expect(assign).toHaveBeenCalledTimes(1);
  });

  it('embedded: goes through the provider (App Bridge), and its refusals reach the caller', () => {
    const assign = vi.spyOn(page, 'assign').mockImplementation(() => {});
    const redirect = vi.fn((url: string) => {
      if (url.includes('evil')) throw new Error(TEXT.embedRedirectNotAllowed);
    });
    setAuthProvider(embeddedProvider(redirect));
    navigateExternal('https://checkout.stripe.com/x', { newContext: true });
    expect(redirect).toHaveBeenCalledWith('https://checkout.stripe.com/x', { newContext: true });
    expect(() => navigateExternal('https://evil.example/')).toThrow(TEXT.embedRedirectNotAllowed);
    expect(assign).not.toHaveBeenCalled();
  });
});

describe('routeExternalLinks', () => {
  // The test page must never follow a link itself: stop every default action after the document's listeners ran.
  const stopDefault = (e: Event) => e.preventDefault();
  const stops: (() => void)[] = [];
  const route = (opts: Parameters<typeof routeExternalLinks>[1]) => {
    const stop = routeExternalLinks(document, opts);
    stops.push(stop);
    return stop;
  };
  beforeEach(() => window.addEventListener('click', stopDefault));
  afterEach(() => {
    window.removeEventListener('click', stopDefault);
    for (const s of stops.splice(0)) s();
  });

  function link(href: string, attrs: Record<string, string> = {}) {
    const a = document.createElement('a');
    a.href = href;
    a.textContent = href;
    for (const [k, v] of Object.entries(attrs)) a.setAttribute(k, v);
    document.body.append(a);
    return a;
  }

  it('sends clicks on links to other origins through navigate, with a new context for target=_blank', () => {
    const navigate = vi.fn();
    const onError = vi.fn();
    const stop = route({ navigate, onError });
    // What the router left for the browser (seen right after it, before the test page's own guard).
    const prevented: boolean[] = [];
    document.addEventListener('click', (e) => prevented.push(e.defaultPrevented));
    const external = link('https://help.example.com/article');
    const ev = new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 });
    external.dispatchEvent(ev);
    expect(ev.defaultPrevented).toBe(true);
    expect(navigate).toHaveBeenLastCalledWith('https://help.example.com/article', { newContext: false });

    link('https://ads.example.com/', { target: '_blank' }).dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));
    expect(navigate).toHaveBeenLastCalledWith('https://ads.example.com/', { newContext: true });
    expect(navigate).toHaveBeenCalledTimes(2);

    // Left alone: same origin, mailto:, downloads, other buttons, clicks already handled.
    expect(prevented).toEqual([true, true]);
    link(`${location.origin}/embed/account`).dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));
    expect(prevented).toEqual([true, true, false]);
    link('mailto:support@example.com').dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));
    link('https://files.example.com/a.srt', { download: '' }).dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));
    link('https://x.example.com/').dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 1 }));
    const handled = link('https://y.example.com/');
    handled.addEventListener('click', (e) => e.preventDefault());
    handled.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));
    expect(navigate).toHaveBeenCalledTimes(2);
    expect(onError).not.toHaveBeenCalled();

    stop();
    link('https://z.example.com/').dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));
    expect(navigate).toHaveBeenCalledTimes(2);
  });

  it('reports a refused link with the error text', () => {
    const onError = vi.fn();
    route({
      navigate: () => {
        throw new Error(TEXT.embedRedirectNotAllowed);
      },
      onError,
    });
    link('https://evil.example/').dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, button: 0 }));
    expect(onError).toHaveBeenCalledWith(TEXT.embedRedirectNotAllowed);
  });
});

describe('embedded launch settings', () => {
  const HOST = btoa('admin.example.com/store/demo').replace(/=+$/, '');

  function sources(over: Partial<LaunchSources> & { metas?: Record<string, string>; store?: Map<string, string> } = {}): LaunchSources {
    const store = over.store ?? new Map<string, string>();
    return {
      href: over.href ?? `https://app.example/embed/?shop=Demo.MyShop.example&host=${HOST}`,
      meta: over.meta ?? ((name) => over.metas?.[name] ?? null),
      ancestorOrigin: over.ancestorOrigin ?? null,
      remembered: over.remembered ?? { get: (k) => store.get(k) ?? null, set: (k, v) => void store.set(k, v) },
    };
  }

  it('reads the app key and allowed origins from the meta tags and host and shop from the URL', () => {
    const launch = readEmbedLaunch(
      sources({ metas: { 'embed-app-key': ' key-1 ', 'embed-allowed-origins': 'https://admin.example.com  https://checkout.stripe.com' } }),
    );
    expect(launch).toEqual({
      apiKey: 'key-1',
      host: HOST,
      shop: 'demo.myshop.example',
      allowedOrigins: ['https://admin.example.com', 'https://checkout.stripe.com'],
    });
    expect(decodeHostParam(HOST)).toBe('admin.example.com/store/demo');
    expect(readEmbedLaunch(sources({ metas: { 'embed-app-key': '' } })).apiKey).toBeNull();
  });

  it('ignores invalid parameters; after a reload without them uses its memory, else the admin ancestor', () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const bad = readEmbedLaunch(sources({ href: 'https://app.example/embed/?shop=not%20a%20shop&host=%%%' }));
    expect(bad.host).toBeNull();
    expect(bad.shop).toBeNull();
    expect(error).toHaveBeenCalledTimes(2);

    const store = new Map<string, string>();
    readEmbedLaunch(sources({ store }));
    const reloaded = readEmbedLaunch(sources({ store, href: 'https://app.example/embed/spaces/1' }));
    expect(reloaded.host).toBe(HOST);
    expect(reloaded.shop).toBe('demo.myshop.example');

    // Storage blocked (third-party iframe): the admin's origin stands in for host.
    const throwing = {
      get: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      set: () => {
        throw new DOMException('denied', 'SecurityError');
      },
    };
    const blocked = readEmbedLaunch(sources({ remembered: throwing, href: 'https://app.example/embed/', ancestorOrigin: 'https://admin.example.com' }));
    expect(blocked.host).toBe(hostParamFor('https://admin.example.com'));
    expect(decodeHostParam(blocked.host!)).toBe('admin.example.com');
    expect(blocked.shop).toBeNull();
    // With the parameters present, blocked storage changes nothing.
    expect(readEmbedLaunch(sources({ remembered: throwing })).host).toBe(HOST);
    expect(hostParamFor('http://admin.example.com')).toBeNull();
  });
});
