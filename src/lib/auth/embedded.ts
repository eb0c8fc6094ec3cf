// Embedded auth provider: the bearer token is the platform's session token, from App Bridge through the
// bridge (src/lib/auth/bridge.ts: 3 s timeout, 10 s expiry margin, one request shared by concurrent API calls).
// Nothing is stored: the token lives in memory only (third-party storage and cookies may be blocked in the
// iframe), and the platform owns the session.
import type { NavigateOptions } from '../navigation-options';
import type { ParentBridge } from './bridge';
import { decodeJwtPayload } from './jwt';
import type { EmbeddedAuthProvider } from './types';

export interface EmbeddedProviderOptions {
  bridge: ParentBridge;
  shop: string | null;
}

export function createEmbeddedProvider(opts: EmbeddedProviderOptions): EmbeddedAuthProvider {
  const listeners = new Set<() => void>();
  let lastToken: string | null = null;

  function notify() {
    for (const l of listeners) {
      try {
        l();
      } catch (e) {
        console.error(e);
      }
    }
  }

  return {
    kind: 'embedded',
    shop: opts.shop,
    host: opts.bridge.host ?? undefined,
    async getToken() {
      lastToken = await opts.bridge.getSessionToken();
      return lastToken;
    },
    async signOut() {
      opts.bridge.clearToken();
      lastToken = null;
      notify();
    },
    // The platform owns the session: inside its admin we are always signed in.
    isAuthenticated: () => true,
    getEmail() {
      const email = lastToken ? decodeJwtPayload(lastToken)?.email : null;
      return typeof email === 'string' ? email : null;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    redirect(url: string, navigate?: NavigateOptions) {
      opts.bridge.redirect(url, navigate);
    },
  };
}
