// Page-level navigation side effects in one place (tests replace them with spies).
export const page = {
  /** Full navigation (reloads the app). */
  assign(url: string): void {
    window.location.assign(url);
  },
  reload(): void {
    window.location.reload();
  },
};

/** Router base of this build: '' for the standalone build, '/embed' for the embedded one. */
export function routerBase(): string {
  const base = (import.meta.env?.BASE_URL as string | undefined) ?? '/';
  return base.replace(/\/+$/, '');
}

/** The current in-app path with its query (without the router base). */
export function currentAppPath(): string {
  const base = routerBase();
  const path = window.location.pathname;
  const inApp = base && path.startsWith(base) ? path.slice(base.length) || '/' : path;
  return inApp + window.location.search;
}
