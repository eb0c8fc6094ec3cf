// Maintenance screen, its gate, and the maintenance/warning banner (spec sections 2 and 8).
// - A spinner while the first settings load.
// - The maintenance screen when the settings call fails (server or network) or features.maintenance is on,
//   unless localStorage 'maintenance_override' is set. While it shows, settings are polled; when maintenance
//   ends the page reloads once.
// - A banner at the top: the warning's message, or, when only a maintenance time is given,
//   'The service will be unavailable from h:mm am/pm for 30 minutes'.
import { Banner, BlockStack, Text } from '@shopify/polaris';
import { useEffect, useRef, type ReactNode } from 'react';
import { MAINTENANCE_WINDOW_MINUTES } from '../../contract/constants';
import { maintenanceText, TEXT } from '../../contract/errors';
import type { Settings } from '../../contract/schemas/settings';
import { getAuthProvider } from '../lib/auth/active';
import type { ApiError } from '../lib/http';
import { page } from '../lib/page';
import { local, STORAGE_KEYS } from '../lib/storage';
import { GenericErrorPage } from '../ui/error-page';
import { MAINTENANCE_ILLUSTRATION } from '../ui/illustrations';
import { SpinnerPage } from '../ui/spinner-page';
import { useSettings } from '../lib/api/use-settings';

/** How often settings are polled while the maintenance screen shows. */
export const MAINTENANCE_POLL_MS = 30_000;
/** Poll timing (tests shorten it). */
export const maintenanceTiming = { pollMs: MAINTENANCE_POLL_MS };

export type GateState = 'loading' | 'maintenance' | 'ok' | 'error' | 'signingOut';

export function maintenanceOverridden(): boolean {
  return local.has(STORAGE_KEYS.maintenanceOverride);
}

/** What the gate shows for a settings load (pure). */
export function gateState(input: {
  settings: Settings | undefined;
  error: ApiError | undefined;
  override: boolean;
  /** Inside the platform's admin a 401 does not sign out to /auth (there is none): it is shown. */
  embedded?: boolean;
}): GateState {
  const { settings, error, override } = input;
  if (override) return settings || error ? 'ok' : 'loading';
  if (error) {
    if (error.kind === 'auth') return 'error';
    const serverSide = error.status === 0 || error.status >= 500;
    if (serverSide) return 'maintenance';
    if (!settings) return error.status === 401 && !input.embedded ? 'signingOut' : 'error';
  }
  if (!settings) return 'loading';
  if (settings.features.maintenance) return 'maintenance';
  return 'ok';
}

export function MaintenanceScreen() {
  return (
    <div className="ds-maintenance" role="main">
      <BlockStack gap="400" inlineAlign="center">
        <img src={MAINTENANCE_ILLUSTRATION} alt="" width={240} height={160} />
        <Text as="h1" variant="headingXl" alignment="center">
          {TEXT.maintenanceTitle}
        </Text>
      </BlockStack>
    </div>
  );
}

export function SettingsGate({ children }: { children: ReactNode }) {
  const { settings, error, mutate } = useSettings();
  const state = gateState({
    settings,
    error,
    override: maintenanceOverridden(),
    embedded: getAuthProvider()?.kind === 'embedded',
  });
  const wasMaintenance = useRef(false);
  const reloaded = useRef(false);

  useEffect(() => {
    if (state === 'maintenance') {
      wasMaintenance.current = true;
    } else if (state === 'ok' && wasMaintenance.current && !reloaded.current) {
      reloaded.current = true;
      page.reload();
    }
  }, [state]);

  useEffect(() => {
    if (state !== 'maintenance') return;
    const t = setInterval(() => void mutate(), maintenanceTiming.pollMs);
    return () => clearInterval(t);
  }, [state, mutate]);

  if (state === 'loading' || state === 'signingOut') return <SpinnerPage />;
  if (state === 'maintenance') return <MaintenanceScreen />;
  if (state === 'error') return <GenericErrorPage detail={error?.message} />;
  return <>{children}</>;
}

type Warning = NonNullable<Settings['features']['warning']>;

/** The banner text of a warning: its message, else the maintenance-time text, else none. */
export function warningText(warning: Warning | null | undefined): string | null {
  if (!warning) return null;
  if (warning.message && warning.message.trim() !== '') return warning.message;
  if (warning.maintenance_time) return maintenanceText(warning.maintenance_time, MAINTENANCE_WINDOW_MINUTES);
  return null;
}

const TONE = { info: 'info', warning: 'warning', critical: 'critical' } as const;

export function MaintenanceBanner() {
  const { settings } = useSettings();
  const warning = settings?.features.warning;
  const text = warningText(warning);
  if (!warning || !text) return null;
  return (
    <div className="ds-top-banner">
      <Banner tone={TONE[warning.severity]}>
        <Text as="p">{text}</Text>
      </Banner>
    </div>
  );
}
