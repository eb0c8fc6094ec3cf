// The signed-in layout: sidebar (desktop width) or top menu (tablet/phone width), the maintenance/warning banner,
// the page, and the Teamspace dialogs of the spaces feature. Inside the platform's admin the admin's own
// navigation carries the app's pages (App Bridge navigation menu) and its URL follows the app's (history), so
// the app shows only a slim bar with the Teamspace switcher and the minutes left.
import { useAtomValue } from 'jotai';
import { useEffect, type ReactNode } from 'react';
import { useLocation, useSearch } from 'wouter';
import { call, clientWith } from '../lib/api/client';
import { SIDEBAR_COLLAPSED_PX, SIDEBAR_EXPANDED_PX } from '../../contract/constants';
import { userPlanTier as planTierOf } from '../../contract/plans';
import { useCurrentUser } from '../lib/api/use-current-user';
import { TeamspaceModals, TeamspaceSwitcher, useOpenTeamspaceDialog } from '../features/spaces';
import { BillingHost } from '../features/billing';
import { SupportWidget } from '../features/support';
import { SurveyPrompt, Tour } from '../features/onboarding';
import { useAuth } from '../lib/auth/context';
import type { HostNavigation } from '../lib/auth/types';
import { MinutesBalance } from './minutes-balance';
import { currentEnvironment, isWhiteLabelBuild } from '../lib/environments';
import { MaintenanceBanner } from './maintenance';
import { useSettings } from '../lib/api/use-settings';
import { MobileNav, Sidebar } from './sidebar';
import { sidebarBanners, sidebarItems, type SidebarItem } from './sidebar-items';
import { firstSpace, useSpaces } from '../lib/api/use-spaces';
import { currentSpaceIdAtom, deviceTypeAtom, dismissedBannersAtom, sidebarLockedAtom } from '../lib/state';

/** Left margin of the page next to the sidebar: the locked width, or the collapsed one (hover overlays). */
export function mainOffset(device: string, locked: boolean): number {
  if (device !== 'desktop') return 0;
  return locked ? SIDEBAR_EXPANDED_PX : SIDEBAR_COLLAPSED_PX;
}

export function AppShell({ children }: { children: ReactNode }) {
  const device = useAtomValue(deviceTypeAtom);
  const locked = useAtomValue(sidebarLockedAtom);
  const dismissed = useAtomValue(dismissedBannersAtom);
  const currentSpaceId = useAtomValue(currentSpaceIdAtom);
  const { settings } = useSettings();
  const { data: user } = useCurrentUser();
  const { data: spaces } = useSpaces();
  const auth = useAuth();
  const openDialog = useOpenTeamspaceDialog();
  const [, navigate] = useLocation();
  const env = currentEnvironment();
  const whiteLabel = isWhiteLabelBuild() || !!settings?.white_label;
  const spaceId = currentSpaceId ?? firstSpace(spaces)?.id ?? null;
  const plan = planTierOf(user);
  const features = settings?.scope_settings.available_features;
  const email = user?.email ?? auth.getEmail();
  const embedded = auth.kind === 'embedded';
  const host = embedded ? (auth as { host?: HostNavigation }).host : undefined;
  // The server's SUPPORT_EMAIL / HELP_CENTER_URL when it says (unset: no link); the build's defaults otherwise.
  const supportEmail = (settings?.support ? settings.support.email : env.supportEmail) ?? '';
  const helpCenterUrl = (settings?.support ? settings.support.help_center_url : env.helpCenterUrl) ?? '';
  const languageCount = settings?.languages.translation.length;

  const items = sidebarItems({
    spaceId,
    features,
    plan,
    device,
    whiteLabel,
    hasTeamspaceDialog: true,
    supportEmail,
    helpCenterUrl,
    videoAdsUrl: env.videoAdsUrl,
    email,
    sisterSso: settings ? settings.sister_app === true : undefined,
    superuser: user?.is_superuser === true,
    embedded,
    languageCount,
  });
  const banners = sidebarBanners({ features, plan, whiteLabel, dismissed, videoAdsUrl: env.videoAdsUrl, sisterSso: settings?.sister_app === true, languageCount });
  useHostNavigation(host, items);
  const renderTop = whiteLabel ? undefined : (collapsed: boolean) => <TeamspaceSwitcher collapsed={collapsed} />;
  // Try video Ad: the server seals the ID token, name and picture for the sister product; a failure is reported
  // and sends the user to sign in again (spec section 8).
  const goToSister = async () => {
    try {
      const r = await call(clientWith({ spaceId: false }).POST('/api/users/sister_sso'));
      window.location.assign(r.redirect_url);
    } catch (e) {
      console.error('Single sign-on to the video-ad product failed', e);
      navigate('/auth');
    }
  };
  const openSettings = () => {
    if (spaceId) openDialog(spaceId);
  };

  if (host) {
    return (
      <div className="ds-shell ds-shell--embedded" data-device={device}>
        <main className="ds-main">
          <header className="ds-embed-bar">
            {!whiteLabel ? <TeamspaceSwitcher collapsed={false} /> : <span />}
            <MinutesBalance spaceId={spaceId} />
          </header>
          <MaintenanceBanner />
          {children}
        </main>
        <TeamspaceModals />
        <BillingHost />
        {user && !whiteLabel ? <SupportWidget supportEmail={supportEmail} /> : null}
        {user ? <Tour key={user.id} user={user} /> : null}
        {user && settings?.surveys.length ? <SurveyPrompt surveys={settings.surveys} /> : null}
      </div>
    );
  }

  return (
    <div className="ds-shell" data-device={device}>
      {device === 'desktop' ? (
        <Sidebar
          items={items}
          banners={banners}
          email={email}
          whiteLabel={whiteLabel}
          onOpenTeamspaceDialog={openSettings}
          renderTop={renderTop}
          onSisterSso={() => void goToSister()}
          balance={<MinutesBalance spaceId={spaceId} />}
        />
      ) : null}
      <main className="ds-main" style={{ marginLeft: mainOffset(device, locked) }}>
        {device !== 'desktop' ? <MobileNav items={items} whiteLabel={whiteLabel} onOpenTeamspaceDialog={openSettings} renderTop={renderTop} balance={<MinutesBalance spaceId={spaceId} compact />} /> : null}
        <MaintenanceBanner />
        {children}
      </main>
      <TeamspaceModals />
      <BillingHost />
      {user && !whiteLabel ? <SupportWidget supportEmail={supportEmail} /> : null}
      {user ? <Tour key={user.id} user={user} /> : null}
      {user && settings?.surveys.length ? <SurveyPrompt surveys={settings.surveys} /> : null}
    </div>
  );
}

/**
 * Inside the platform's admin: the app's in-app pages go to the admin's navigation menu, the admin's URL follows
 * the app's page, and the admin's menu clicks navigate the app.
 */
function useHostNavigation(host: HostNavigation | undefined, items: SidebarItem[]) {
  const [location, navigate] = useLocation();
  const search = useSearch();
  const entries = items.filter((i) => !i.external && !i.disabled && !i.opensTeamspaceDialog && i.href && i.href.startsWith('/'));
  const menu = entries.map((i) => ({ label: i.label, path: i.href! }));
  const active = entries.find((i) => location === i.href || location.startsWith(`${i.href}/`))?.href ?? null;
  const menuKey = JSON.stringify([menu, active]);
  useEffect(() => {
    host?.setMenu(JSON.parse(menuKey)[0] as { label: string; path: string }[], active);
    // menuKey carries menu and active.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [host, menuKey]);
  useEffect(() => {
    host?.syncPath(`${location}${search ? `?${search}` : ''}`);
  }, [host, location, search]);
  useEffect(() => (host ? host.onNavigate((path) => navigate(path)) : undefined), [host, navigate]);
}
