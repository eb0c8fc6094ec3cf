// The sidebar's items and banners as data (spec section 2), decided from features, plan, device and build.
import type { AvailableFeature, FeatureKey, PlanTier } from '../../contract/features';
import { languagesClaim } from '../lib/claims';
import type { DeviceType } from '../lib/device';

export type SidebarGroup = 'top' | 'main' | 'promo' | 'bottom';
export type SidebarItemId =
  | 'translation'
  | 'voices'
  | 'dictionary'
  | 'book_call'
  | 'settings_members'
  | 'help_center'
  | 'get_help'
  | 'profile'
  | 'video_ads'
  | 'admin';

export interface SidebarItem {
  id: SidebarItemId;
  label: string;
  group: SidebarGroup;
  /** In-app path, or an external URL when `external`. */
  href?: string;
  external?: boolean;
  /** Opens the Teamspace dialog instead of navigating. */
  opensTeamspaceDialog?: boolean;
  disabled?: boolean;
  /** Shown next to a disabled item ('Desktop only'). */
  disabledReason?: string;
  /** A tag next to the label ('New'). */
  badge?: string;
  /** Visible but not in the plan: opens that feature's upgrade modal instead of the page. */
  locked?: FeatureKey;
  /** Signs in to the sister video-ad product (sealed-box single sign-on) instead of following href. */
  sisterSso?: boolean;
}

export interface SidebarInput {
  /** Space the space-scoped items point into (current space, else the first one). */
  spaceId: string | null;
  features: Partial<Record<FeatureKey, AvailableFeature>> | undefined;
  plan: PlanTier;
  device: DeviceType;
  whiteLabel: boolean;
  /** The Teamspaces feature provides its dialog; otherwise Settings & members goes to /account. */
  hasTeamspaceDialog: boolean;
  supportEmail: string;
  helpCenterUrl: string;
  videoAdsUrl: string;
  email: string | null;
  /** The server has the sister product's SSO configured (settings.sister_app); false hides Try video Ad. */
  sisterSso?: boolean;
  /** A superuser: the admin area is linked. */
  superuser?: boolean;
  /** Inside the platform's admin: mail links do nothing in the frame, so Get help is left out. */
  embedded?: boolean;
  /** How many target languages this install offers (the trial banner's claim). */
  languageCount?: number;
}

export const DESKTOP_ONLY = 'Desktop only';

export function mailto(email: string, subject?: string): string {
  return `mailto:${email}${subject ? `?subject=${encodeURIComponent(subject)}` : ''}`;
}

export function sidebarItems(input: SidebarInput): SidebarItem[] {
  // Get help and Help Center only where an address is configured (and a mail link can open: not in the frame).
  const getHelp: SidebarItem[] = input.supportEmail && !input.embedded
    ? [{ id: 'get_help', label: 'Get help', group: 'bottom', href: mailto(input.supportEmail), external: true }]
    : [];
  if (input.whiteLabel) return getHelp;

  const space = input.spaceId ? `/spaces/${encodeURIComponent(input.spaceId)}` : '';
  const items: SidebarItem[] = [{ id: 'translation', label: 'Translation', group: 'main', href: space || '/' }];
  if (input.features?.voice_presets?.visible) {
    const locked = input.features.voice_presets.enabled ? undefined : ('voice_presets' as const);
    items.push({ id: 'voices', label: 'Voice Clone Library', group: 'main', href: `${space}/voices`, locked });
  }
  if (input.features?.glossary?.visible) {
    const mobile = input.device === 'mobile';
    items.push({
      id: 'dictionary',
      label: 'Dictionary',
      group: 'main',
      href: `${space}/glossaries`,
      disabled: mobile,
      disabledReason: mobile ? DESKTOP_ONLY : undefined,
      locked: input.features.glossary.enabled ? undefined : 'glossary',
    });
  }
  // Try video Ad: paid plans only, and only once the server says the sister product's SSO is configured
  // (hidden while that is unknown and when SISTER_APP_URL / SISTER_APP_PUBLIC_KEY are not set).
  if (input.plan !== 'trial' && input.plan !== 'free' && input.sisterSso === true) {
    items.push({ id: 'video_ads', label: 'Try video Ad', group: 'promo', href: input.videoAdsUrl, external: true, badge: 'New', sisterSso: true });
  }
  if ((input.plan === 'business' || input.plan === 'enterprise') && input.supportEmail && !input.embedded) {
    items.push({
      id: 'book_call',
      label: 'Book a call with CS',
      group: 'bottom',
      href: mailto(input.supportEmail, 'Book a call with Customer Success'),
      external: true,
    });
  }
  items.push(
    input.hasTeamspaceDialog && input.spaceId
      ? { id: 'settings_members', label: 'Settings & members', group: 'bottom', opensTeamspaceDialog: true }
      : { id: 'settings_members', label: 'Settings & members', group: 'bottom', href: '/account' },
  );
  if (input.superuser) items.push({ id: 'admin', label: 'Admin', group: 'bottom', href: '/admin' });
  if (input.helpCenterUrl) items.push({ id: 'help_center', label: 'Help Center', group: 'bottom', href: input.helpCenterUrl, external: true });
  items.push(...getHelp);
  items.push({ id: 'profile', label: input.embedded ? 'Account' : (input.email ?? 'Account'), group: 'bottom', href: '/account' });
  return items;
}

export type SidebarBannerId = 'api' | 'video_ads' | 'trial';
export interface SidebarBanner {
  id: SidebarBannerId;
  title: string;
  text: string;
  action: { label: string; href: string; external?: boolean; /** Goes through the sister product's single sign-on. */ sisterSso?: boolean };
}

export function sidebarBanners(input: {
  features: SidebarInput['features'];
  plan: PlanTier;
  whiteLabel: boolean;
  dismissed: readonly string[];
  videoAdsUrl: string;
  /** The sister product's SSO is configured (settings.sister_app): the video-ads banner needs it. */
  sisterSso?: boolean;
  /** How many target languages this install offers (unknown: the claim names none). */
  languageCount?: number;
}): SidebarBanner[] {
  if (input.whiteLabel) return [];
  const out: SidebarBanner[] = [];
  const trial = input.plan === 'trial' || input.plan === 'free';
  if (trial) {
    out.push({
      id: 'trial',
      title: 'Free trial',
      text: `${languagesClaim(input.languageCount)} Upgrade for more minutes.`,
      action: { label: 'Upgrade', href: '/pricing' },
    });
  }
  if (input.features?.api?.visible) {
    out.push({
      id: 'api',
      title: 'Dubbing API',
      text: 'Dub videos from your own code with API credentials.',
      action: { label: 'Get API access', href: '/account' },
    });
  }
  if (!trial && input.sisterSso === true) {
    out.push({
      id: 'video_ads',
      title: 'Video ads',
      text: 'Turn your product page into a video ad in minutes.',
      action: { label: 'Try video Ad', href: input.videoAdsUrl, external: true, sisterSso: true },
    });
  }
  return out.filter((b) => !input.dismissed.includes(b.id));
}
