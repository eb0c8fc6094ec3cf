// The one React tree of both builds.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import type { AnyAuthProvider } from '../lib/auth/types';
import { SettingsGate } from './maintenance';
import { AppProviders, type AppProvidersProps } from './providers';
import { AppRoutes } from './routes';

export type AppProps = Omit<AppProvidersProps, 'children'>;

export function App(props: AppProps) {
  return (
    <AppProviders {...props}>
      <SettingsGate>
        <AppRoutes />
      </SettingsGate>
    </AppProviders>
  );
}

/** Mounts the app into an element (the entries of standalone/ and embed/). */
export function mountApp(el: HTMLElement | null, provider: AnyAuthProvider): void {
  if (!el) throw new Error('Missing #root element');
  createRoot(el).render(
    <StrictMode>
      <App provider={provider} />
    </StrictMode>,
  );
}
