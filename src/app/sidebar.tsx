// The sidebar (spec section 2): laptop/desktop only; locked open at 208 px or collapsed at 60 px expanding on
// hover; the lock is remembered; popovers 186 px wide; groups top (logo + Teamspace switcher), main, promo
// and bottom; dismissible, remembered banners. White-label builds show only the Get help mail link.
import { Badge, Button, Icon, Popover, ActionList, Text, Tooltip } from '@shopify/polaris';
import {
  BookIcon,
  CalendarIcon,
  ChatIcon,
  LanguageTranslateIcon,
  PersonIcon,
  MegaphoneIcon,
  MicrophoneIcon,
  QuestionCircleIcon,
  SettingsIcon,
  XSmallIcon,
  PinIcon,
  PinFilledIcon,
} from '@shopify/polaris-icons';
import { useAtom, useSetAtom } from 'jotai';
import { useState, type ComponentType, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { SIDEBAR_COLLAPSED_PX, SIDEBAR_EXPANDED_PX, SIDEBAR_POPOVER_PX } from '../../contract/constants';
import type { SidebarBanner, SidebarItem, SidebarItemId } from './sidebar-items';
import { dismissedBannersAtom, sidebarLockedAtom, upgradeModalAtom } from '../lib/state';

type IconSource = ComponentType<Record<string, unknown>> | ((props: Record<string, unknown>) => ReactNode);

const ICONS: Record<SidebarItemId, IconSource> = {
  translation: LanguageTranslateIcon,
  voices: MicrophoneIcon,
  dictionary: BookIcon,
  book_call: CalendarIcon,
  settings_members: SettingsIcon,
  help_center: QuestionCircleIcon,
  get_help: ChatIcon,
  profile: PersonIcon,
  video_ads: MegaphoneIcon,
  admin: SettingsIcon,
};

export interface SidebarProps {
  items: SidebarItem[];
  banners: SidebarBanner[];
  /** Logo + Teamspace switcher (top group); receives whether the sidebar is collapsed. */
  renderTop?: (collapsed: boolean) => ReactNode;
  /** Settings & members when the Teamspaces dialog exists. */
  onOpenTeamspaceDialog?: () => void;
  email: string | null;
  whiteLabel: boolean;
  /** Try video Ad with single sign-on: seals the user's token and goes to the sister product. */
  onSisterSso?: () => void;
  /** The minutes left (shown under the Teamspace switcher; the top bar's end on narrow windows). */
  balance?: ReactNode;
}

export function sidebarWidth(locked: boolean, hovered: boolean): number {
  return locked || hovered ? SIDEBAR_EXPANDED_PX : SIDEBAR_COLLAPSED_PX;
}

function initials(email: string | null): string {
  if (!email) return '?';
  const name = email.split('@')[0] ?? '';
  const parts = name.split(/[._-]+/).filter(Boolean);
  const letters = parts.length >= 2 ? parts[0][0] + parts[1][0] : name.slice(0, 2);
  return letters.toUpperCase() || '?';
}

function isActive(location: string, href: string | undefined, id: SidebarItemId): boolean {
  if (!href || href.startsWith('http') || href.startsWith('mailto:')) return false;
  if (id === 'translation') return /^\/spaces\/[^/]+\/?$/.test(location) || /^\/spaces\/[^/]+\/(folders|project)\//.test(location);
  return location === href || location.startsWith(`${href}/`);
}

function ItemBody({ item, expanded }: { item: SidebarItem; expanded: boolean }) {
  const icon = item.id === 'profile' ? null : ICONS[item.id];
  return (
    <>
      <span className="ds-sidebar__icon" aria-hidden="true">
        {icon ? <Icon source={icon as never} tone={item.disabled ? 'subdued' : 'base'} /> : null}
      </span>
      {expanded ? (
        <span className="ds-sidebar__label">
          <Text as="span" variant="bodyMd" tone={item.disabled ? 'subdued' : undefined} truncate>
            {item.label}
          </Text>
          {item.badge ? <Badge tone="success">{item.badge}</Badge> : null}
          {item.disabledReason ? (
            <Text as="span" variant="bodySm" tone="subdued">
              {item.disabledReason}
            </Text>
          ) : null}
        </span>
      ) : null}
    </>
  );
}

function SidebarEntry({
  item,
  expanded,
  location,
  onOpenTeamspaceDialog,
  email,
  onSisterSso,
}: {
  item: SidebarItem;
  expanded: boolean;
  location: string;
  onOpenTeamspaceDialog?: () => void;
  email: string | null;
  onSisterSso?: () => void;
}) {
  const openUpgrade = useSetAtom(upgradeModalAtom);
  const active = isActive(location, item.href, item.id);
  const cls = `ds-sidebar__item${active ? ' is-active' : ''}${item.disabled ? ' is-disabled' : ''}${item.id === 'profile' ? ' ds-sidebar__profile' : ''}`;
  const body =
    item.id === 'profile' ? (
      <>
        <span className="ds-sidebar__avatar" aria-hidden="true">
          {initials(email)}
        </span>
        {expanded ? (
          <span className="ds-sidebar__label">
            <Text as="span" variant="bodyMd" truncate>
              {email ?? 'Account'}
            </Text>
          </span>
        ) : null}
      </>
    ) : (
      <ItemBody item={item} expanded={expanded} />
    );
  let node: ReactNode;
  if (item.disabled) {
    node = (
      <span className={cls} aria-disabled="true" data-item={item.id} title={item.disabledReason}>
        {body}
      </span>
    );
  } else if (item.locked) {
    const feature = item.locked;
    node = (
      <button type="button" className={cls} data-item={item.id} data-locked="true" onClick={() => openUpgrade({ feature })}>
        {body}
      </button>
    );
  } else if (item.sisterSso && onSisterSso) {
    node = (
      <button type="button" className={cls} data-item={item.id} onClick={onSisterSso}>
        {body}
      </button>
    );
  } else if (item.opensTeamspaceDialog) {
    node = (
      <button type="button" className={cls} data-item={item.id} onClick={onOpenTeamspaceDialog}>
        {body}
      </button>
    );
  } else if (item.external) {
    node = (
      <a className={cls} data-item={item.id} href={item.href} target={item.href?.startsWith('mailto:') ? undefined : '_blank'} rel="noreferrer">
        {body}
      </a>
    );
  } else {
    node = (
      <Link className={cls} data-item={item.id} href={item.href ?? '/'} aria-current={active ? 'page' : undefined}>
        {body}
      </Link>
    );
  }
  return (
    <li>
      {expanded ? (
        node
      ) : (
        <Tooltip content={item.id === 'profile' ? (email ?? 'Account') : item.label} preferredPosition="mostSpace">
          {node}
        </Tooltip>
      )}
    </li>
  );
}

function BannerCard({ banner, onClose, onSisterSso }: { banner: SidebarBanner; onClose: () => void; onSisterSso?: () => void }) {
  return (
    <div className="ds-sidebar__banner" data-banner={banner.id}>
      <div className="ds-sidebar__banner-head">
        <Text as="span" variant="headingSm">
          {banner.title}
        </Text>
        <button type="button" className="ds-sidebar__banner-close" aria-label={`Close ${banner.title} banner`} onClick={onClose}>
          <Icon source={XSmallIcon} tone="subdued" />
        </button>
      </div>
      <Text as="p" variant="bodySm" tone="subdued">
        {banner.text}
      </Text>
      {banner.action.sisterSso && onSisterSso ? (
        <button type="button" className="ds-sidebar__banner-action" onClick={onSisterSso}>
          {banner.action.label}
        </button>
      ) : banner.action.external ? (
        <a className="ds-sidebar__banner-action" href={banner.action.href} target="_blank" rel="noreferrer">
          {banner.action.label}
        </a>
      ) : (
        <Link className="ds-sidebar__banner-action" href={banner.action.href}>
          {banner.action.label}
        </Link>
      )}
    </div>
  );
}

export function Sidebar({ items, banners, renderTop, onOpenTeamspaceDialog, email, whiteLabel, onSisterSso, balance }: SidebarProps) {
  const [locked, setLocked] = useAtom(sidebarLockedAtom);
  const [dismissed, setDismissed] = useAtom(dismissedBannersAtom);
  const [hovered, setHovered] = useState(false);
  const [location] = useLocation();
  const expanded = locked || hovered;
  const width = sidebarWidth(locked, hovered);
  const group = (g: SidebarItem['group']) => items.filter((i) => i.group === g);
  const entry = (item: SidebarItem) => (
    <SidebarEntry key={item.id} item={item} expanded={expanded} location={location} onOpenTeamspaceDialog={onOpenTeamspaceDialog} email={email} onSisterSso={onSisterSso} />
  );

  return (
    <nav
      className={`ds-sidebar${expanded ? ' is-expanded' : ''}${locked ? ' is-locked' : ''}`}
      aria-label="Main"
      data-testid="sidebar"
      data-locked={locked ? 'true' : 'false'}
      style={{ width }}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
    >
      <div className="ds-sidebar__group ds-sidebar__top" data-group="top">
        <div className="ds-sidebar__top-row">
          {!whiteLabel ? <Logo compact={!expanded} /> : null}
          <button
            type="button"
            className="ds-sidebar__lock"
            aria-pressed={locked}
            aria-label={locked ? 'Collapse sidebar' : 'Keep sidebar open'}
            onClick={() => {
              setLocked(!locked);
              setHovered(false);
            }}
          >
            <Icon source={locked ? PinFilledIcon : PinIcon} tone="subdued" />
          </button>
        </div>
        {renderTop ? renderTop(!expanded) : null}
        {expanded && balance ? balance : null}
      </div>
      <ul className="ds-sidebar__group" data-group="main">
        {group('main').map(entry)}
      </ul>
      <div className="ds-sidebar__spacer" />
      <div className="ds-sidebar__group" data-group="promo">
        {expanded
          ? banners
              .filter((b) => !dismissed.includes(b.id))
              .map((b) => (
                <BannerCard key={b.id} banner={b} onSisterSso={onSisterSso} onClose={() => setDismissed([...new Set([...dismissed, b.id])])} />
              ))
          : null}
        <ul>{group('promo').map(entry)}</ul>
      </div>
      <ul className="ds-sidebar__group" data-group="bottom">
        {group('bottom').map(entry)}
      </ul>
    </nav>
  );
}

/** The brand mark; compact shows only the symbol. */
export function Logo({ compact = false }: { compact?: boolean }) {
  return (
    <Link href="/" className="ds-logo" aria-label="Dubbing Studio home">
      <svg width="28" height="28" viewBox="0 0 28 28" aria-hidden="true">
        <rect width="28" height="28" rx="7" fill="#1f2a44" />
        <path d="M9 8.5v11l9-5.5z" fill="#fff" />
        <path d="M19.5 9.5c1.4 1.2 2.2 2.8 2.2 4.5s-.8 3.3-2.2 4.5" stroke="#5fa8ff" strokeWidth="1.6" fill="none" strokeLinecap="round" />
      </svg>
      {!compact ? (
        <Text as="span" variant="headingSm">
          Dubbing Studio
        </Text>
      ) : null}
    </Link>
  );
}

/** Tablet and mobile: a top bar with the same items in a menu (popover 186 px wide). */
export function MobileNav({
  items,
  onOpenTeamspaceDialog,
  whiteLabel,
  renderTop,
  balance,
}: Pick<SidebarProps, 'items' | 'onOpenTeamspaceDialog' | 'whiteLabel' | 'renderTop' | 'balance'>) {
  const [open, setOpen] = useState(false);
  const [, navigate] = useLocation();
  const openUpgrade = useSetAtom(upgradeModalAtom);
  return (
    <header className="ds-mobile-nav">
      <div className="ds-mobile-nav__start">
        {!whiteLabel ? <Logo compact /> : null}
        {renderTop ? renderTop(true) : null}
      </div>
      {balance}
      <Popover
        active={open}
        onClose={() => setOpen(false)}
        preferredAlignment="right"
        activator={
          <Button onClick={() => setOpen(!open)} accessibilityLabel="Menu" disclosure={open ? 'up' : 'down'}>
            Menu
          </Button>
        }
      >
        <div style={{ width: SIDEBAR_POPOVER_PX }}>
          <ActionList
            items={items.map((item) => ({
              content: item.label,
              disabled: item.disabled,
              helpText: item.disabledReason,
              suffix: item.badge ? <Badge tone="success">{item.badge}</Badge> : undefined,
              url: item.external ? item.href : undefined,
              external: item.external && !item.href?.startsWith('mailto:'),
              onAction: () => {
                setOpen(false);
                if (item.opensTeamspaceDialog) onOpenTeamspaceDialog?.();
                else if (item.locked) openUpgrade({ feature: item.locked });
                else if (!item.external && item.href) navigate(item.href);
              },
            }))}
          />
        </div>
      </Popover>
    </header>
  );
}
