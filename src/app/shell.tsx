// The signed-in layout: sidebar (desktop) or top menu (tablet/mobile), the maintenance/warning banner, the page,
// and the Teamspace dialogs of the spaces feature.
import { useAtomValue } from 'jotai';
import type { ReactNode } from 'react';
import { SIDEBAR_COLLAPSED_PX, SIDEBAR_EXPANDED_PX } from '../../contract/constants';
import { planTierOf, useCurrentUser } from '../features/account/api';
import { TeamspaceModals, TeamspaceSwitcher, useOpenTeamspaceDialog } from '../features/spaces';
import { useAuth } from './auth-context';
import { currentEnvironment, isWhiteLabelBuild } from './environments';
import { MaintenanceBanner } from './maintenance';
import { useSettings } from './settings';
import { MobileNav, Sidebar } from './sidebar';
import { sidebarBanners, sidebarItems } from './sidebar-items';
import { firstSpace, useSpaceList } from './spaces';
import { currentSpaceIdAtom, deviceTypeAtom, dismissedBannersAtom, sidebarLockedAtom } from './state';

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
  const { data: spaces } = useSpaceList();
  const auth = useAuth();
  const openDialog = useOpenTeamspaceDialog();
  const env = currentEnvironment();
  const whiteLabel = isWhiteLabelBuild() || !!settings?.white_label;
  const spaceId = currentSpaceId ?? firstSpace(spaces)?.id ?? null;
  const plan = planTierOf(user);
  const features = settings?.scope_settings.available_features;
  const email = user?.email ?? auth.getEmail();

  const items = sidebarItems({
    spaceId,
    features,
    plan,
    device,
    whiteLabel,
    hasTeamspaceDialog: true,
    supportEmail: env.supportEmail,
    helpCenterUrl: env.helpCenterUrl,
    videoAdsUrl: env.videoAdsUrl,
    email,
  });
  const banners = sidebarBanners({ features, plan, whiteLabel, dismissed, videoAdsUrl: env.videoAdsUrl });
  const renderTop = whiteLabel ? undefined : (collapsed: boolean) => <TeamspaceSwitcher collapsed={collapsed} />;
  const openSettings = () => {
    if (spaceId) openDialog(spaceId);
  };

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
        />
      ) : null}
      <main className="ds-main" style={{ marginLeft: mainOffset(device, locked) }}>
        {device !== 'desktop' ? <MobileNav items={items} whiteLabel={whiteLabel} onOpenTeamspaceDialog={openSettings} renderTop={renderTop} /> : null}
        <MaintenanceBanner />
        {children}
      </main>
      <TeamspaceModals />
    </div>
  );
}
