// Providers of the one React tree: auth provider, jotai store, SWR (query cache), Polaris (AppProvider with
// English texts, Frame for toasts), router (wouter; base '/embed' in the embedded build), global error effects,
// and the app-wide overlays (toasts, snackbars, loading overlay, Unknown Error modal).
import '@shopify/polaris/build/esm/styles.css';
import './app.css';
import { AppProvider, Frame } from '@shopify/polaris';
import en from '@shopify/polaris/locales/en.json';
import { Provider as JotaiProvider } from 'jotai';
import { forwardRef, useEffect, useState, type ReactNode } from 'react';
import { SWRConfig, useSWRConfig } from 'swr';
import { Link, Router, useLocation, type BaseLocationHook, type BaseSearchHook } from 'wouter';
import type { User } from '../../contract/schemas/user';
import { CURRENT_USER_KEY } from '../lib/api/use-current-user';
import { PRODUCTS_KEY, paymentContextFrom } from '../features/billing';
import type { ProductsResponse } from '../../contract/schemas/payments';
import { setAuthProvider } from '../lib/auth/active';
import type { AnyAuthProvider } from '../lib/auth/types';
import { setSpaceIdSource } from '../lib/http';
import { routerBase } from '../lib/page';
import { ErrorBoundary } from '../ui/error-page';
import { LoadingOverlay } from '../ui/loading-overlay';
import { SnackbarHost } from '../ui/snackbars';
import { ToastHost } from '../ui/toasts';
import { UnknownErrorModal } from '../ui/unknown-error-modal';
import { AuthProviderContext } from '../lib/auth/context';
import { installErrorEffects } from './errors';
import { currentSpaceIdAtom } from '../lib/state';
import { getAppStore, type AppStore } from '../lib/store';
import { swrConfig } from '../lib/swr';

interface LinkLikeComponentProps {
  url: string;
  external?: boolean;
  children?: ReactNode;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [key: string]: any;
}

const EXTERNAL = /^(https?:|mailto:|tel:|\/api\/)/i;

/** Polaris links (Button url=..., Link url=...) navigate inside the app through the router. */
const PolarisLink = forwardRef<HTMLAnchorElement, LinkLikeComponentProps>(function PolarisLink({ url, external, children, ...rest }, ref) {
  if (external || EXTERNAL.test(url)) {
    return (
      <a href={url} ref={ref} target={external ? '_blank' : undefined} rel={external ? 'noopener noreferrer' : undefined} {...rest}>
        {children}
      </a>
    );
  }
  return (
    <Link href={url} ref={ref} {...(rest as Record<string, unknown>)}>
      {children}
    </Link>
  );
});

/** Subscribes the global error effects (spec section 8) for the life of the app. */
function ErrorEffects() {
  const { cache, mutate } = useSWRConfig();
  const [, navigate] = useLocation();
  useEffect(
    () =>
      installErrorEffects({
        store: getAppStore(),
        getUser: () => cache.get(CURRENT_USER_KEY)?.data as User | undefined,
        revalidate: (key) => void mutate(key),
        navigate: (to, state) => navigate(to, { state }),
        // The archived-plan flag and minute pack come from the catalogue (loaded ahead for subscribers).
        paymentContext: (user) => paymentContextFrom(user, cache.get(PRODUCTS_KEY)?.data as ProductsResponse | undefined),
      }),
    [cache, mutate, navigate],
  );
  return null;
}

/** The space of the page's URL (/spaces/:id/...), so a page's first requests carry it before any state catches up. */
function spaceOfLocation(): string | null {
  if (typeof window === 'undefined') return null;
  const base = routerBase();
  const path = base && window.location.pathname.startsWith(base) ? window.location.pathname.slice(base.length) : window.location.pathname;
  const m = /^\/spaces\/([^/?#]+)/.exec(path);
  return m ? decodeURIComponent(m[1]) : null;
}

export interface RouterOverrides {
  hook?: BaseLocationHook;
  searchHook?: BaseSearchHook;
}

export interface AppProvidersProps {
  provider: AnyAuthProvider;
  store?: AppStore;
  /** Tests: a memory location. */
  router?: RouterOverrides;
  /** Tests: an isolated SWR cache. */
  swrProvider?: () => Map<string, unknown>;
  children: ReactNode;
}

export function AppProviders({ provider, store, router, swrProvider, children }: AppProvidersProps) {
  const appStore = store ?? getAppStore();
  // Before the first child renders: the http client reads the provider and the space of this store.
  useState(() => {
    setAuthProvider(provider);
    setSpaceIdSource(() => spaceOfLocation() ?? appStore.get(currentSpaceIdAtom));
    return true;
  });
  return (
    <AuthProviderContext provider={provider}>
      <JotaiProvider store={appStore}>
        <SWRConfig value={swrProvider ? { ...swrConfig, provider: swrProvider as never } : swrConfig}>
          <AppProvider i18n={en} linkComponent={PolarisLink}>
            <Router base={routerBase()} hook={router?.hook} searchHook={router?.searchHook}>
              <Frame>
                <ErrorEffects />
                <ErrorBoundary>{children}</ErrorBoundary>
                <ToastHost />
                <SnackbarHost />
                <LoadingOverlay />
                <UnknownErrorModal />
              </Frame>
            </Router>
          </AppProvider>
        </SWRConfig>
      </JotaiProvider>
    </AuthProviderContext>
  );
}
