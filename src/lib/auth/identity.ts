// Identity-service auth provider (standalone build): e-mail + password and OIDC against /api/auth.
// The session {access_token, refresh_token, expires_at} lives in localStorage; the access token is refreshed
// REFRESH_AHEAD_MS before it expires, with one refresh in flight at a time (single-flight), also across the
// parallel requests of one page.
import { call, clientWith } from '../api/client';
import { apiBaseUrl, isApiError, toApiError } from '../http';
import { local, STORAGE_KEYS } from '../storage';
import { decodeJwtPayload } from './jwt';
import type { IdentityAuthProvider, StoredSession } from './types';

/** Refresh this long before the access token expires. */
export const REFRESH_AHEAD_MS = 60_000;

interface TokenResponse {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

export interface IdentityProviderOptions {
  now?: () => number;
  refreshAheadMs?: number;
}

function isSession(x: unknown): x is StoredSession {
  const s = x as StoredSession | null;
  return !!s && typeof s.access_token === 'string' && typeof s.refresh_token === 'string' && typeof s.expires_at === 'number';
}

/** Only in-app paths are accepted as a place to return to (no other origins, no protocol-relative URLs). */
export function safeOrigin(origin: string | null | undefined): string {
  if (!origin || !origin.startsWith('/') || origin.startsWith('//') || origin.startsWith('/\\')) return '/';
  if (origin.startsWith('/auth')) return '/';
  return origin;
}

/** Calls of the identity service: no bearer from the provider itself (no recursion into getToken), no global error effects. */
const identity = () => clientWith({ auth: false, effects: false });

export function createIdentityProvider(opts: IdentityProviderOptions = {}): IdentityAuthProvider {
  const now = opts.now ?? Date.now;
  const ahead = opts.refreshAheadMs ?? REFRESH_AHEAD_MS;
  const listeners = new Set<() => void>();
  let refreshing: Promise<string | null> | null = null;

  function read(): StoredSession | null {
    const s = local.get<unknown>(STORAGE_KEYS.authSession, null);
    return isSession(s) ? s : null;
  }
  function notify() {
    for (const l of listeners) {
      try {
        l();
      } catch (e) {
        console.error(e);
      }
    }
  }
  function save(t: TokenResponse) {
    if (typeof t?.access_token !== 'string' || typeof t.refresh_token !== 'string' || !Number.isFinite(t.expires_in)) {
      throw toApiError(new Error('Malformed token response'));
    }
    local.set(STORAGE_KEYS.authSession, {
      access_token: t.access_token,
      refresh_token: t.refresh_token,
      expires_at: now() + t.expires_in * 1000,
    } satisfies StoredSession);
    notify();
  }
  function clear() {
    const had = read() !== null;
    local.remove(STORAGE_KEYS.authSession);
    if (had) notify();
  }

  async function refresh(current: StoredSession): Promise<string | null> {
    try {
      const t = await call(identity().POST('/api/auth/refresh', { body: { refresh_token: current.refresh_token } }));
      // Another tab may have signed out meanwhile; only store when the session is still the one refreshed.
      const latest = read();
      if (latest && latest.refresh_token !== current.refresh_token) return latest.access_token;
      save(t);
      return t.access_token;
    } catch (e) {
      const err = toApiError(e);
      const latest = read();
      // Another tab rotated the refresh token first: use its result.
      if (latest && latest.refresh_token !== current.refresh_token && latest.expires_at > now()) return latest.access_token;
      if (err.status >= 400 && err.status < 500) {
        clear();
        return null;
      }
      // Server unreachable: keep the session; the current token is still usable if not yet expired.
      if (current.expires_at > now()) return current.access_token;
      throw err;
    }
  }

  async function tokenCall(path: '/api/auth/sign-in' | '/api/auth/sign-up', body: { email: string; password: string }): Promise<void> {
    const t = await call(identity().POST(path, { body }));
    save(t);
  }

  return {
    kind: 'identity',
    async getToken() {
      const s = read();
      if (!s) return null;
      if (s.expires_at - ahead > now()) return s.access_token;
      if (!refreshing) {
        refreshing = refresh(s).finally(() => {
          refreshing = null;
        });
      }
      return refreshing;
    },
    async signOut() {
      const s = read();
      clear();
      if (!s) return;
      try {
        await call(
          identity().POST('/api/auth/sign-out', {
            body: { refresh_token: s.refresh_token },
            headers: { authorization: `Bearer ${s.access_token}` },
          }),
        );
      } catch (e) {
        // The local session is gone either way; the refresh token expires on its own.
        if (!isApiError(e)) console.error('sign-out request failed', e);
      }
    },
    isAuthenticated: () => read() !== null,
    getEmail() {
      const s = read();
      const email = s ? decodeJwtPayload(s.access_token)?.email : null;
      return typeof email === 'string' ? email : null;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async signIn(email, password) {
      await tokenCall('/api/auth/sign-in', { email, password });
    },
    async signUp(email, password) {
      await tokenCall('/api/auth/sign-up', { email, password });
    },
    async getOidcConfig() {
      return call(identity().GET('/api/auth/oidc/config'));
    },
    oidcStartUrl(origin, providerId) {
      const u = new URL('auth/oidc/start', apiBaseUrl());
      u.searchParams.set('origin', safeOrigin(origin));
      if (providerId) u.searchParams.set('provider', providerId);
      return u.href;
    },
    completeOidcCallback(hash) {
      const params = new URLSearchParams(hash.replace(/^#/, ''));
      const error = params.get('error');
      if (error) throw new Error(params.get('error_description') || error);
      const access = params.get('access_token');
      const refreshToken = params.get('refresh_token');
      const expiresIn = Number(params.get('expires_in'));
      if (!access || !refreshToken || !Number.isFinite(expiresIn) || expiresIn <= 0) {
        throw new Error('The sign-in response is incomplete. Please try again.');
      }
      save({ access_token: access, refresh_token: refreshToken, expires_in: expiresIn });
      return safeOrigin(params.get('origin'));
    },
  };
}
