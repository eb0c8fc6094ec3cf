// Embedded auth provider: the bearer token is the parent frame's session token (see bridge.ts).
// Concurrent API calls share one pending bridge request, so the bridge's "one request at a time" rule
// never fails the app's own parallel requests.
import type { ParentBridge } from './bridge';
import { decodeJwtPayload } from './jwt';
import type { EmbeddedAuthProvider } from './types';

export interface EmbeddedProviderOptions {
  bridge: ParentBridge;
  shop: string | null;
}

export function createEmbeddedProvider(opts: EmbeddedProviderOptions): EmbeddedAuthProvider {
  const listeners = new Set<() => void>();
  let inflight: Promise<string> | null = null;
  let lastToken: string | null = null;

  function notify() {
    for (const l of listeners) l();
  }

  return {
    kind: 'embedded',
    shop: opts.shop,
    async getToken() {
      if (!inflight) {
        inflight = opts.bridge.getSessionToken().finally(() => {
          inflight = null;
        });
      }
      lastToken = await inflight;
      return lastToken;
    },
    async signOut() {
      opts.bridge.clearToken();
      lastToken = null;
      notify();
    },
    // The parent frame owns the session: inside it we are always signed in.
    isAuthenticated: () => true,
    getEmail() {
      const email = lastToken ? decodeJwtPayload(lastToken)?.email : null;
      return typeof email === 'string' ? email : null;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    redirect(url: string) {
      opts.bridge.redirect(url);
    },
  };
}
