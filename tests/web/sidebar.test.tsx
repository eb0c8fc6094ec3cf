import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { Provider as JotaiProvider } from 'jotai';
import { AppProvider } from '@shopify/polaris';
import en from '@shopify/polaris/locales/en.json';
import { describe, expect, it, vi } from 'vitest';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import type { PlanTier } from '../../contract/features';
import { Sidebar, sidebarWidth } from '../../src/app/sidebar';
import { DESKTOP_ONLY, sidebarBanners, sidebarItems, type SidebarInput } from '../../src/app/sidebar-items';
import { deviceTypeAtom } from '../../src/lib/state';
import { resetAppStore } from '../../src/lib/store';
import { STORAGE_KEYS } from '../../src/lib/storage';
import { featureSet, renderApp, settingsFixture, spaceFixture, useApi, userFixture } from './app-harness';

vi.mock('../../src/features/projects', () => ({ ProjectsHome: () => <h1>Projects home page</h1>, FolderPage: () => null }));
vi.mock('../../src/features/editor', () => ({ ProjectPage: () => null }));
vi.mock('../../src/features/spaces', () => ({
  TeamspaceSwitcher: ({ collapsed }: { collapsed: boolean }) => <div data-testid="switcher">{collapsed ? 'M' : 'My Teamspace'}</div>,
  TeamspaceModals: () => null,
  useOpenTeamspaceDialog: () => () => {},
}));

const base: SidebarInput = {
  spaceId: 's1',
  features: featureSet({}),
  plan: 'trial',
  device: 'desktop',
  whiteLabel: false,
  hasTeamspaceDialog: true,
  supportEmail: 'support@dubbing.studio',
  helpCenterUrl: 'https://help.example',
  videoAdsUrl: 'https://ads.example',
  email: 'ana@example.com',
  sisterSso: true,
};
const ids = (input: Partial<SidebarInput>) => sidebarItems({ ...base, ...input }).map((i) => i.id);

describe('sidebar items', () => {
  it('trial user without optional features: translation, settings, help, profile', () => {
    expect(ids({})).toEqual(['translation', 'settings_members', 'help_center', 'get_help', 'profile']);
  });

  it('Voice Clone Library and Dictionary follow the visible flag of their features', () => {
    expect(ids({ features: featureSet({ voice_presets: true }) })).toContain('voices');
    expect(ids({ features: featureSet({ glossary: true }) })).toContain('dictionary');
    const hiddenButEnabled = featureSet({});
    hiddenButEnabled.glossary = { enabled: true, visible: false, metadata: {} };
    expect(ids({ features: hiddenButEnabled })).not.toContain('dictionary');
  });

  it('Dictionary is disabled on mobile with the text Desktop only', () => {
    const mobile = sidebarItems({ ...base, device: 'mobile', features: featureSet({ glossary: true }) }).find((i) => i.id === 'dictionary')!;
    expect(mobile).toMatchObject({ disabled: true, disabledReason: DESKTOP_ONLY });
    expect(DESKTOP_ONLY).toBe('Desktop only');
    const desktop = sidebarItems({ ...base, features: featureSet({ glossary: true }) }).find((i) => i.id === 'dictionary')!;
    expect(desktop.disabled).toBe(false);
    expect(desktop.href).toBe('/spaces/s1/glossaries');
  });

  it.each<[PlanTier, boolean, boolean]>([
    ['trial', false, false],
    ['free', false, false],
    ['starter', false, true],
    ['creator_pro', false, true],
    ['business', true, true],
    ['enterprise', true, true],
  ])('plan %s: Book a call %s, Try video Ad %s', (plan, bookCall, videoAds) => {
    const list = ids({ plan });
    expect(list.includes('book_call')).toBe(bookCall);
    expect(list.includes('video_ads')).toBe(videoAds);
  });

  it('Try video Ad is tagged New; groups are main, promo and bottom', () => {
    const items = sidebarItems({ ...base, plan: 'business', features: featureSet({ voice_presets: true, glossary: true }) });
    expect(items.find((i) => i.id === 'video_ads')).toMatchObject({ badge: 'New', group: 'promo' });
    expect(items.filter((i) => i.group === 'main').map((i) => i.id)).toEqual(['translation', 'voices', 'dictionary']);
    expect(items.filter((i) => i.group === 'bottom').map((i) => i.id)).toEqual([
      'book_call',
      'settings_members',
      'help_center',
      'get_help',
      'profile',
    ]);
  });

  it('Settings & members opens the Teamspace dialog, or goes to /account without one', () => {
    expect(sidebarItems(base).find((i) => i.id === 'settings_members')).toMatchObject({ opensTeamspaceDialog: true });
    expect(sidebarItems({ ...base, hasTeamspaceDialog: false }).find((i) => i.id === 'settings_members')).toMatchObject({ href: '/account' });
    expect(sidebarItems(base).find((i) => i.id === 'profile')).toMatchObject({ href: '/account', label: 'ana@example.com' });
  });

  it('white-label builds show only the Get help mail link', () => {
    const items = sidebarItems({ ...base, whiteLabel: true, plan: 'enterprise', features: featureSet({ voice_presets: true, glossary: true }) });
    expect(items).toEqual([{ id: 'get_help', label: 'Get help', group: 'bottom', href: 'mailto:support@dubbing.studio', external: true }]);
  });

  it('banners: trial banner on trial, API banner with the api feature, video ads for paid plans; dismissed ones hidden', () => {
    const b = (plan: PlanTier, dismissed: string[] = [], api = false) =>
      sidebarBanners({ features: featureSet({ api }), plan, whiteLabel: false, dismissed, videoAdsUrl: 'https://ads.example', sisterSso: true }).map((x) => x.id);
    expect(b('trial')).toEqual(['trial']);
    expect(b('business', [], true)).toEqual(['api', 'video_ads']);
    expect(b('business', ['api'], true)).toEqual(['video_ads']);
    expect(sidebarBanners({ features: featureSet({ api: true }), plan: 'trial', whiteLabel: true, dismissed: [], videoAdsUrl: '' })).toEqual([]);
  });

  it('Try video Ad (item and banner) needs the sister product configured: hidden when it is not, or not known yet', () => {
    for (const sisterSso of [false, undefined]) {
      expect(ids({ plan: 'business', sisterSso })).not.toContain('video_ads');
      expect(sidebarBanners({ features: featureSet({}), plan: 'business', whiteLabel: false, dismissed: [], videoAdsUrl: 'https://ads.example', sisterSso }).map((x) => x.id)).not.toContain('video_ads');
    }
    expect(sidebarItems({ ...base, plan: 'business' }).find((i) => i.id === 'video_ads')).toMatchObject({ sisterSso: true });
    const banner = sidebarBanners({ features: featureSet({}), plan: 'business', whiteLabel: false, dismissed: [], videoAdsUrl: 'https://ads.example', sisterSso: true });
    expect(banner.find((b) => b.id === 'video_ads')?.action).toMatchObject({ label: 'Try video Ad', sisterSso: true });
  });
});

function renderSidebar(plan: PlanTier = 'trial') {
  const store = resetAppStore();
  const items = sidebarItems({ ...base, plan });
  const banners = () => sidebarBanners({ features: featureSet({}), plan, whiteLabel: false, dismissed: [], videoAdsUrl: '' });
  const loc = memoryLocation({ path: '/spaces/s1' });
  return render(
    <JotaiProvider store={store}>
      <AppProvider i18n={en}>
        <Router hook={loc.hook}>
          <Sidebar items={items} banners={banners()} email="ana@example.com" whiteLabel={false} renderTop={(c) => <span>{c ? 'collapsed' : 'expanded'}</span>} />
        </Router>
      </AppProvider>
    </JotaiProvider>,
  );
}

describe('sidebar component', () => {
  it('is 208 px locked open, 60 px collapsed, and expands to 208 px on hover', () => {
    expect(sidebarWidth(true, false)).toBe(208);
    expect(sidebarWidth(false, false)).toBe(60);
    expect(sidebarWidth(false, true)).toBe(208);
    renderSidebar();
    const nav = screen.getByTestId('sidebar');
    expect(nav.style.width).toBe('208px');
    expect(screen.getByText('expanded')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Collapse sidebar' }));
    expect(nav.style.width).toBe('60px');
    expect(screen.getByText('collapsed')).toBeTruthy();
    expect(within(nav).queryByText('Translation')).toBeNull();
    fireEvent.mouseEnter(nav);
    expect(nav.style.width).toBe('208px');
    expect(within(nav).getByText('Translation')).toBeTruthy();
    fireEvent.mouseLeave(nav);
    expect(nav.style.width).toBe('60px');
  });

  it('remembers the lock across mounts', () => {
    const first = renderSidebar();
    fireEvent.click(screen.getByRole('button', { name: 'Collapse sidebar' }));
    expect(localStorage.getItem(STORAGE_KEYS.sidebarLocked)).toBe('false');
    first.unmount();
    renderSidebar();
    expect(screen.getByTestId('sidebar').style.width).toBe('60px');
    fireEvent.click(screen.getByRole('button', { name: 'Keep sidebar open' }));
    expect(localStorage.getItem(STORAGE_KEYS.sidebarLocked)).toBe('true');
  });

  it('a closed banner stays closed (persisted)', () => {
    const first = renderSidebar('trial');
    expect(screen.getByText('Free trial')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Close Free trial banner' }));
    expect(screen.queryByText('Free trial')).toBeNull();
    expect(JSON.parse(localStorage.getItem(STORAGE_KEYS.dismissedBanners)!)).toEqual(['trial']);
    first.unmount();
    renderSidebar('trial');
    expect(screen.queryByText('Free trial')).toBeNull();
    expect(screen.getByText('Translation')).toBeTruthy();
  });
});

describe('sidebar in the app', () => {
  it('shows the gated items from settings and the plan', async () => {
    useApi({
      settings: settingsFixture({ visible: { voice_presets: true, glossary: true }, sister_app: true, support: { email: 'support@dubbing.studio', help_center_url: null } }),
      user: userFixture({ plan: 'business' }),
    });
    renderApp({ path: '/spaces/sp-default' });
    const nav = await screen.findByTestId('sidebar');
    await within(nav).findByText('Voice Clone Library');
    expect(within(nav).getByText('Dictionary')).toBeTruthy();
    expect(within(nav).getByText('Book a call with CS')).toBeTruthy();
    const videoAds = nav.querySelector('[data-item=video_ads]')!;
    expect(videoAds.textContent).toContain('Try video Ad');
    expect(within(videoAds as HTMLElement).getByText('New')).toBeTruthy();
    // With the sister product's single sign-on configured it is a button that seals the session (tests/server/auth/sso.test.ts).
    expect(videoAds.tagName).toBe('BUTTON');
    expect(within(nav).getByTestId('switcher').textContent).toBe('My Teamspace');
    expect(within(nav).getByRole('link', { name: /ana@example.com/ }).getAttribute('href')).toBe('/account');
  });

  it('Try video Ad is hidden when the single sign-on is not configured', async () => {
    useApi({ settings: settingsFixture({ sister_app: false, support: { email: 'support@dubbing.studio', help_center_url: null } }), user: userFixture({ plan: 'business' }) });
    renderApp({ path: '/spaces/sp-default' });
    const nav = await screen.findByTestId('sidebar');
    await within(nav).findByText('Book a call with CS');
    expect(nav.querySelector('[data-item=video_ads]')).toBeNull();
  });

  it('a white-label install (settings.white_label) shows only the Get help mail link', async () => {
    useApi({ settings: settingsFixture({ white_label: true, visible: { voice_presets: true, glossary: true }, support: { email: 'support@dubbing.studio', help_center_url: null } }) });
    renderApp({ path: '/spaces/sp-default' });
    const nav = await screen.findByTestId('sidebar');
    await screen.findByRole('heading', { name: 'Projects home page' });
    const links = within(nav).getAllByRole('link');
    expect(links).toHaveLength(1);
    expect(links[0].textContent).toBe('Get help');
    expect(links[0].getAttribute('href')).toBe('mailto:support@dubbing.studio');
    expect(within(nav).queryByTestId('switcher')).toBeNull();
  });

  it('is not shown on mobile: a top menu holds the items instead', async () => {
    useApi({ settings: settingsFixture({ visible: { glossary: true } }), spaces: [spaceFixture('sp-default')] });
    const app = renderApp({ path: '/spaces/sp-default' });
    act(() => app.store.set(deviceTypeAtom, 'mobile'));
    await screen.findByRole('heading', { name: 'Projects home page' });
    expect(screen.queryByTestId('sidebar')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Menu' }));
    const dictionary = await screen.findByRole('button', { name: /Dictionary/ });
    expect(dictionary.textContent).toContain('Desktop only');
    expect(dictionary.hasAttribute('disabled') || dictionary.getAttribute('aria-disabled') === 'true').toBe(true);
  });
});
