// Safe wrappers over localStorage / sessionStorage (private mode, quota and JSON errors never throw).

/** Every key this app writes, in one place. */
export const STORAGE_KEYS = {
  /** Identity-service session: {access_token, refresh_token, expires_at}. */
  authSession: 'auth_session',
  /** Sidebar locked open (true) or collapsed (false). */
  sidebarLocked: 'sidebar_locked',
  /** Ids of sidebar banners the user closed. */
  dismissedBanners: 'sidebar_banners_dismissed',
  /** Any value: ignore the maintenance flag and settings failures (staff override). */
  maintenanceOverride: 'maintenance_override',
  /** Any value: log analytics events to the console. */
  analyticsDebug: 'analytics_debug',
  /** Any value: show the onboarding tour whatever the plan (staff, demos). */
  onboardingForce: 'onboarding_force',
  /** Embedded build: shop and host query params of the first load. */
  embedShop: 'embed_shop',
  embedHost: 'embed_host',
  /** Session-storage notice shown once on /auth (e.g. after an inactive-user sign-out). */
  authNotice: 'auth_notice',
} as const;

/** Keys that survive sign-out: UI preferences, not user data. */
export const PERSISTENT_KEYS: readonly string[] = [
  STORAGE_KEYS.sidebarLocked,
  STORAGE_KEYS.dismissedBanners,
  STORAGE_KEYS.maintenanceOverride,
  STORAGE_KEYS.analyticsDebug,
  STORAGE_KEYS.onboardingForce,
];

function area(kind: 'local' | 'session'): Storage | null {
  try {
    return kind === 'local' ? globalThis.localStorage ?? null : globalThis.sessionStorage ?? null;
  } catch {
    return null;
  }
}

function makeStore(kind: 'local' | 'session') {
  return {
    getString(key: string): string | null {
      try {
        return area(kind)?.getItem(key) ?? null;
      } catch {
        return null;
      }
    },
    setString(key: string, value: string): void {
      try {
        area(kind)?.setItem(key, value);
      } catch {
        /* quota or private mode: the value simply is not remembered */
      }
    },
    get<T>(key: string, fallback: T): T {
      const raw = this.getString(key);
      if (raw === null) return fallback;
      try {
        return JSON.parse(raw) as T;
      } catch {
        return fallback;
      }
    },
    set(key: string, value: unknown): void {
      this.setString(key, JSON.stringify(value));
    },
    remove(key: string): void {
      try {
        area(kind)?.removeItem(key);
      } catch {
        /* ignore */
      }
    },
    has(key: string): boolean {
      return this.getString(key) !== null;
    },
    /** Removes every key except `keep`. */
    clear(keep: readonly string[] = []): void {
      const s = area(kind);
      if (!s) return;
      try {
        const keys: string[] = [];
        for (let i = 0; i < s.length; i++) {
          const k = s.key(i);
          if (k !== null && !keep.includes(k)) keys.push(k);
        }
        for (const k of keys) s.removeItem(k);
      } catch {
        /* ignore */
      }
    },
  };
}

export const local = makeStore('local');
export const session = makeStore('session');
