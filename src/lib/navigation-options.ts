// How a navigation out of the app opens (src/lib/navigation.ts), named apart so the auth providers' types can take it
// without importing the navigation itself (which asks the active provider).
export interface NavigateOptions {
  /** Open in a new tab/window instead of replacing the current page. */
  newContext?: boolean;
}
