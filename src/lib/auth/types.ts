// The pluggable auth provider: one React tree, two ways to get a bearer token.
// - 'identity' (standalone build): the identity service at /api/auth (e-mail + password, OIDC).
// - 'embedded' (iframe build): the platform's session tokens through App Bridge (src/lib/auth/bridge.ts).
import type { NavigateOptions } from '../navigation-options';

export interface AuthProvider {
  readonly kind: 'identity' | 'embedded';
  /** A bearer token for the API, refreshed or re-requested as needed; null when signed out. */
  getToken(): Promise<string | null>;
  /** Ends the session on this device (revokes the refresh token when there is one). */
  signOut(): Promise<void>;
  /** True when a session exists (the token itself may still need a refresh). */
  isAuthenticated(): boolean;
  /** E-mail of the signed-in identity when the token carries it. */
  getEmail(): string | null;
  /** Called whenever the session changes (sign-in, refresh failure, sign-out). */
  subscribe(listener: () => void): () => void;
}

export interface StoredSession {
  access_token: string;
  refresh_token: string;
  /** Epoch milliseconds at which the access token expires. */
  expires_at: number;
}

export interface OidcProviderInfo {
  id: string;
  name: string;
}
export interface OidcConfig {
  enabled: boolean;
  providers: OidcProviderInfo[];
}

export interface IdentityAuthProvider extends AuthProvider {
  readonly kind: 'identity';
  signIn(email: string, password: string): Promise<void>;
  signUp(email: string, password: string): Promise<void>;
  /** Social sign-in configuration (GET /api/auth/oidc/config). */
  getOidcConfig(): Promise<OidcConfig>;
  /** The URL that starts the OIDC code flow and comes back to /auth/callback with `origin`. */
  oidcStartUrl(origin: string, providerId?: string): string;
  /**
   * Completes the OIDC redirect: reads `#access_token=..&refresh_token=..&expires_in=..&origin=..`
   * (or `#error=..`), stores the session and returns the in-app path to go to.
   */
  completeOidcCallback(hash: string): string;
}

export interface EmbeddedAuthProvider extends AuthProvider {
  readonly kind: 'embedded';
  /** Shop domain from the ?shop= param of the first load, when given. */
  readonly shop: string | null;
  /**
   * Leaves the app: same-origin URLs navigate the frame, allowed origins navigate the admin window through
   * App Bridge's Redirect; throws 'Invalid URL' / 'This URL is not allowed for redirection' / 'Request failed'.
   * Features call navigateExternal (src/lib/navigation.ts), which works in both builds.
   */
  redirect(url: string, opts?: NavigateOptions): void;
  /** The admin's navigation (menu, URL, its own clicks), when App Bridge is connected. */
  readonly host?: HostNavigation;
}

/** The platform admin's side of navigation (App Bridge's navigation menu, history and app redirects). */
export interface HostNavigation {
  /** The admin shows these entries in its own navigation (the app then shows no sidebar of its own). */
  setMenu(items: { label: string; path: string }[], activePath: string | null): void;
  /** Keeps the admin's URL on the app's page (so a reload or a shared link opens it). */
  syncPath(path: string): void;
  /** The admin asks for one of the app's pages (a menu entry clicked). Returns the unsubscribe. */
  onNavigate(fn: (path: string) => void): () => void;
}

export type AnyAuthProvider = IdentityAuthProvider | EmbeddedAuthProvider;

export function isIdentityProvider(p: AuthProvider | null | undefined): p is IdentityAuthProvider {
  return !!p && p.kind === 'identity';
}
export function isEmbeddedProvider(p: AuthProvider | null | undefined): p is EmbeddedAuthProvider {
  return !!p && p.kind === 'embedded';
}
