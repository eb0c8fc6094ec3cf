// Sign-out routines: clear local state and go to /auth with a full page load (spec section 4).
import { getAuthProvider } from './active';
import { page, routerBase } from '../page';
import { local, PERSISTENT_KEYS, session, STORAGE_KEYS } from '../storage';

export interface SignOutOptions {
  /** In-app path to come back to after the next sign-in. */
  origin?: string | null;
  /** A notice shown once on the sign-in page (e.g. 'Inactive user'). */
  notice?: string;
}

/** The /auth URL of this build, keeping where the user came from. */
export function authUrl(origin?: string | null): string {
  const q = origin && origin !== '/' ? `?origin=${encodeURIComponent(origin)}` : '';
  return `${routerBase()}/auth${q}`;
}

/** Standard sign-out: end the session, clear user data (keep UI preferences), reload into /auth. */
export async function signOutToAuth(opts: SignOutOptions = {}): Promise<void> {
  const provider = getAuthProvider();
  try {
    await provider?.signOut();
  } finally {
    local.clear(PERSISTENT_KEYS);
    session.clear();
    if (opts.notice) session.setString(STORAGE_KEYS.authNotice, opts.notice);
    // Inside the ad platform's frame the parent owns the session: there is no /auth to go to.
    if (provider?.kind !== 'embedded') page.assign(authUrl(opts.origin));
  }
}

/** 409 when creating the account: log out, clear local storage completely, reload. */
export async function signOutClearAndReload(): Promise<void> {
  const provider = getAuthProvider();
  try {
    await provider?.signOut();
  } finally {
    local.clear();
    session.clear();
    page.reload();
  }
}
