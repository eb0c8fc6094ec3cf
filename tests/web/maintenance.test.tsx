import { act, render, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TEXT, maintenanceText } from '../../contract/errors';
import { gateState, maintenanceTiming, warningText } from '../../src/app/maintenance';
import { chooseSettings, loadSettings, settingsTiming } from '../../src/lib/api/use-settings';
import { setAuthProvider } from '../../src/lib/auth/active';
import { ApiError } from '../../src/lib/http';
import { page } from '../../src/lib/page';
import { STORAGE_KEYS } from '../../src/lib/storage';
import { renderApp, settingsFixture, stubAuth, useApi } from './app-harness';
import { server } from './msw';

vi.mock('../../src/features/projects', () => ({ ProjectsHome: () => <h1>Projects home page</h1>, FolderPage: () => null }));
vi.mock('../../src/features/editor', () => ({ ProjectPage: () => null }));
vi.mock('../../src/features/spaces', () => ({ TeamspaceSwitcher: () => null, TeamspaceModals: () => null, useOpenTeamspaceDialog: () => () => {} }));

const realSleep = settingsTiming.sleep;
const realPoll = maintenanceTiming.pollMs;
afterEach(() => {
  settingsTiming.sleep = realSleep;
  maintenanceTiming.pollMs = realPoll;
  setAuthProvider(null);
  vi.restoreAllMocks();
});

describe('settings choice and retries', () => {
  it('space settings for a member in a space, user settings for a superuser or outside a space, app settings signed out', () => {
    expect(chooseSettings({ spaceId: 's1', isSuperuser: false, authenticated: true })).toEqual({ kind: 'space', spaceId: 's1' });
    expect(chooseSettings({ spaceId: 's1', isSuperuser: true, authenticated: true })).toEqual({ kind: 'user', spaceId: null });
    expect(chooseSettings({ spaceId: null, isSuperuser: false, authenticated: true })).toEqual({ kind: 'user', spaceId: null });
    expect(chooseSettings({ spaceId: 's1', isSuperuser: undefined, authenticated: false })).toEqual({ kind: 'app', spaceId: null });
  });

  it('sends space_id only for space settings, and no token for app settings', async () => {
    setAuthProvider(stubAuth());
    const seen: { q: string; auth: string | null }[] = [];
    server.use(
      http.get('*/api/settings', ({ request }) => {
        seen.push({ q: new URL(request.url).search, auth: request.headers.get('authorization') });
        return HttpResponse.json(settingsFixture());
      }),
    );
    await loadSettings({ kind: 'space', spaceId: 's1' });
    await loadSettings({ kind: 'user', spaceId: null });
    await loadSettings({ kind: 'app', spaceId: null });
    expect(seen).toEqual([
      { q: '?space_id=s1', auth: 'Bearer test-token' },
      { q: '', auth: 'Bearer test-token' },
      { q: '', auth: null },
    ]);
  });

  it('retries 3 times with a delay growing 1 s per attempt, then fails', async () => {
    let calls = 0;
    server.use(
      http.get('*/api/settings', () => {
        calls++;
        return HttpResponse.json({ detail: 'down' }, { status: 503 });
      }),
    );
    const waits: number[] = [];
    await expect(loadSettings({ kind: 'app', spaceId: null }, { sleep: async (ms) => void waits.push(ms) })).rejects.toMatchObject({ status: 503 });
    expect(calls).toBe(4);
    expect(waits).toEqual([1000, 2000, 3000]);
  });

  it('succeeds on a later attempt and does not retry 4xx answers', async () => {
    let calls = 0;
    server.use(
      http.get('*/api/settings', () => (++calls < 3 ? HttpResponse.error() : HttpResponse.json(settingsFixture()))),
    );
    await expect(loadSettings({ kind: 'app', spaceId: null }, { sleep: async () => {} })).resolves.toMatchObject({ kind: 'user' });
    expect(calls).toBe(3);
    calls = 0;
    server.use(http.get('*/api/settings', () => (calls++, HttpResponse.json({ detail: 'nope' }, { status: 403 }))));
    await expect(loadSettings({ kind: 'space', spaceId: 'x' }, { sleep: async () => {} })).rejects.toMatchObject({ status: 403 });
    expect(calls).toBe(1);
  });
});

describe('maintenance gate', () => {
  const err = (status: number, kind?: 'auth') => new ApiError({ status, message: 'x', kind });
  it('decides spinner, maintenance, app or error', () => {
    const ok = settingsFixture();
    const down = settingsFixture({ features: { maintenance: true, warning: null } });
    expect(gateState({ settings: undefined, error: undefined, override: false })).toBe('loading');
    expect(gateState({ settings: ok, error: undefined, override: false })).toBe('ok');
    expect(gateState({ settings: down, error: undefined, override: false })).toBe('maintenance');
    expect(gateState({ settings: undefined, error: err(503), override: false })).toBe('maintenance');
    expect(gateState({ settings: undefined, error: err(504), override: false })).toBe('maintenance');
    expect(gateState({ settings: down, error: undefined, override: true })).toBe('ok');
    expect(gateState({ settings: undefined, error: err(503), override: true })).toBe('ok');
    expect(gateState({ settings: undefined, error: err(0, 'auth'), override: false })).toBe('error');
    expect(gateState({ settings: undefined, error: err(401), override: false })).toBe('signingOut');
    expect(gateState({ settings: undefined, error: err(401), override: false, embedded: true })).toBe('error');
  });

  it('shows a spinner while settings load', async () => {
    useApi({});
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    server.use(http.get('*/api/settings', async () => (await gate, HttpResponse.json(settingsFixture()))));
    renderApp({ path: '/spaces/sp-default' });
    expect(screen.getByRole('status', { name: 'Loading' })).toBeTruthy();
    release();
    await screen.findByRole('heading', { name: 'Projects home page' });
  });

  it('shows the maintenance screen when the flag is on, unless the local override is set', async () => {
    useApi({ settings: settingsFixture({ features: { maintenance: true, warning: null } }) });
    const first = renderApp({ path: '/spaces/sp-default', provider: stubAuth({ authenticated: false }) });
    await screen.findByRole('heading', { name: TEXT.maintenanceTitle });
    expect(TEXT.maintenanceTitle).toBe('We are down for an upgrade and will be back shortly');
    first.unmount();

    localStorage.setItem(STORAGE_KEYS.maintenanceOverride, '1');
    renderApp({ path: '/spaces/sp-default' });
    await screen.findByRole('heading', { name: 'Projects home page' });
  });

  it('shows the maintenance screen when the settings call fails (after its retries)', async () => {
    settingsTiming.sleep = async () => {};
    useApi({ settings: () => HttpResponse.json({ detail: 'Service Unavailable' }, { status: 503 }) });
    renderApp({ path: '/auth' });
    await screen.findByRole('heading', { name: TEXT.maintenanceTitle });
  });

  it('polls while in maintenance and reloads the page once when it ends', async () => {
    maintenanceTiming.pollMs = 30;
    const reload = vi.spyOn(page, 'reload').mockImplementation(() => {});
    let maintenance = true;
    useApi({ settings: () => settingsFixture({ features: { maintenance, warning: null } }) });
    renderApp({ path: '/auth', provider: stubAuth({ authenticated: false }) });
    await screen.findByRole('heading', { name: TEXT.maintenanceTitle });
    expect(reload).not.toHaveBeenCalled();
    maintenance = false;
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
    // The app is back (the reload is mocked, so the sign-in page renders) and the effects of that render have run:
    // still exactly one reload.
    await screen.findByRole('heading', { name: 'Sign in to your account' });
    await act(async () => {});
    expect(reload).toHaveBeenCalledTimes(1);
  });
});

describe('maintenance and warning banner', () => {
  it('uses the warning message, else the 12-hour maintenance time text for 30 minutes', () => {
    expect(warningText(null)).toBeNull();
    expect(warningText({ severity: 'info', message: 'New voices are here', maintenance_time: '2025-03-01T15:05:00' })).toBe('New voices are here');
    expect(warningText({ severity: 'warning', message: null, maintenance_time: '2025-03-01T15:05:00' })).toBe(
      'The service will be unavailable from 3:05 pm for 30 minutes',
    );
    expect(maintenanceText('2025-03-01T00:30:00')).toBe('The service will be unavailable from 12:30 am for 30 minutes');
    expect(maintenanceText('2025-03-01T12:00:00')).toBe('The service will be unavailable from 12:00 pm for 30 minutes');
    expect(warningText({ severity: 'info', message: '  ', maintenance_time: null })).toBeNull();
  });

  it('renders at the top of the app', async () => {
    useApi({
      settings: settingsFixture({ features: { maintenance: false, warning: { severity: 'critical', message: null, maintenance_time: '2025-03-01T21:45:00' } } }),
    });
    renderApp({ path: '/spaces/sp-default' });
    await screen.findByText('The service will be unavailable from 9:45 pm for 30 minutes');
    await screen.findByRole('heading', { name: 'Projects home page' });
  });
});

describe('generic error page and Unknown Error modal', () => {
  beforeEach(() => useApi({}));

  it('a render error shows Something went wrong with a Refresh page button that reloads', async () => {
    const { ErrorBoundary } = await import('../../src/ui/error-page');
    const { AppProvider } = await import('@shopify/polaris');
    const en = (await import('@shopify/polaris/locales/en.json')).default;
    const reload = vi.spyOn(page, 'reload').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const Boom = () => {
      throw new Error('boom');
    };
    render(
      <AppProvider i18n={en}>
        <ErrorBoundary>
          <Boom />
        </ErrorBoundary>
      </AppProvider>,
    );
    expect(screen.getByRole('heading', { name: TEXT.genericTitle })).toBeTruthy();
    expect(screen.getByText(TEXT.genericPage)).toBeTruthy();
    screen.getByRole('button', { name: TEXT.refreshPage }).click();
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('the Unknown Error modal asks to contact support by chat or e-mail', async () => {
    const { unknownErrorOpenAtom } = await import('../../src/lib/state');
    const app = renderApp({ path: '/spaces/sp-default' });
    await screen.findByRole('heading', { name: 'Projects home page' });
    act(() => app.store.set(unknownErrorOpenAtom, true));
    const dialog = await screen.findByRole('dialog');
    expect(dialog.textContent).toContain('Please contact the support chat or email us at support@dubbing.studio.');
  });
});
