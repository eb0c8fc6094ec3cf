// The provider the running app uses. Set once by the entry (standalone/ or embed/) before the first render;
// the http client reads it for every request.
import type { AnyAuthProvider } from './types';

let active: AnyAuthProvider | null = null;

export function setAuthProvider(p: AnyAuthProvider | null): void {
  active = p;
}

export function getAuthProvider(): AnyAuthProvider | null {
  return active;
}

