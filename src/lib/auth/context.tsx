// The active auth provider for React: useAuth() and a re-render whenever the session changes.
import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import type { AnyAuthProvider } from './types';

const AuthContext = createContext<AnyAuthProvider | null>(null);

export function AuthProviderContext({ provider, children }: { provider: AnyAuthProvider; children: ReactNode }) {
  return <AuthContext.Provider value={provider}>{children}</AuthContext.Provider>;
}

export function useAuth(): AnyAuthProvider {
  const p = useContext(AuthContext);
  if (!p) throw new Error('useAuth outside <AuthProviderContext>');
  return p;
}

/** True while a session exists; re-renders on sign-in / sign-out / refresh failure. */
export function useIsAuthenticated(): boolean {
  const p = useAuth();
  return useSyncExternalStore(p.subscribe, p.isAuthenticated, p.isAuthenticated);
}
