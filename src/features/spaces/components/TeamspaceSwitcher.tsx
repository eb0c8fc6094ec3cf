import { useState } from 'react';
import { ActionList, Box, Popover, Text } from '@shopify/polaris';
import { CheckIcon, ChevronDownIcon, PlusIcon, SettingsIcon } from '@shopify/polaris-icons';
import { Icon } from '@shopify/polaris';
import { SIDEBAR_POPOVER_PX } from '../../../../contract/constants';
import { useCurrentUser } from '../../../lib/api/use-current-user';
import { firstSpace, useSpaces } from '../../../lib/api/use-spaces';
import { useSpaceLimits } from '../api';
import { isSpaceDisabledFor } from '../lib/rules';
import { useCurrentSpaceId, useOpenCreateTeamspace, useOpenTeamspaceDialog, useSpaceNavigation } from '../state';
import { L } from '../texts';
import { SpaceAvatar } from './SpaceAvatar';
import { UpgradeBanner } from './UpgradeBanner';

const SWITCHER_Z_INDEX = 450;

/** "Owner: you" or "Owner: ann@example.com" under a space in the switcher. */
export function ownerLine(space: { owner_id: string; members: { user_id: string; email: string; role: string }[] }, meId: string | undefined): string {
  if (space.owner_id === meId) return 'Owner: you';
  const owner = space.members.find((m) => m.user_id === space.owner_id) ?? space.members.find((m) => m.role === 'owner');
  return owner ? `Owner: ${owner.email}` : 'Shared with you';
}

/** The Teamspace switcher of the sidebar (top group). Collapsed: the current space's avatar only. */
export function TeamspaceSwitcher({ collapsed }: { collapsed: boolean }) {
  const { data: spaces } = useSpaces();
  const { data: me } = useCurrentUser();
  const { data: limits } = useSpaceLimits();
  const currentId = useCurrentSpaceId();
  const openDialog = useOpenTeamspaceDialog();
  const openCreate = useOpenCreateTeamspace();
  const nav = useSpaceNavigation();
  const [open, setOpen] = useState(false);

  const current = spaces?.find((s) => s.id === currentId) ?? firstSpace(spaces);
  const close = () => setOpen(false);

  const activator = (
    <button
      type="button"
      className="ds-space-switcher"
      aria-label={`${L.switcherLabel}: ${current?.name ?? ''}`}
      aria-expanded={open}
      onClick={() => setOpen((o) => !o)}
      style={{
        display: 'flex',
        alignItems: 'center',
        gap: 8,
        width: '100%',
        padding: collapsed ? 4 : '6px 8px',
        justifyContent: collapsed ? 'center' : 'flex-start',
        background: 'transparent',
        border: 0,
        borderRadius: 8,
        cursor: 'pointer',
        textAlign: 'left',
      }}
    >
      <SpaceAvatar name={current?.name ?? '?'} color={current?.color ?? 'midnight'} size={28} />
      {!collapsed ? (
        <>
          <span style={{ flex: 1, minWidth: 0 }}>
            <Text as="span" variant="bodyMd" fontWeight="semibold" truncate>{current?.name ?? ''}</Text>
          </span>
          <span style={{ flex: '0 0 20px' }}><Icon source={ChevronDownIcon} tone="subdued" /></span>
        </>
      ) : null}
    </button>
  );

  return (
    <Popover
      active={open}
      activator={activator}
      onClose={close}
      preferredAlignment="left"
      autofocusTarget="first-node"
      // Above the fixed sidebar (z-index 410 in src/app/app.css), below modals.
      zIndexOverride={SWITCHER_Z_INDEX}
    >
      <div style={{ width: SIDEBAR_POPOVER_PX }} data-testid="space-switcher-menu">
        <ActionList
          actionRole="menuitem"
          sections={[
            {
              title: 'Teamspaces',
              items: (spaces ?? []).map((s) => {
                const disabled = isSpaceDisabledFor(s, me?.id);
                return {
                  id: s.id,
                  content: s.name,
                  truncate: true,
                  active: s.id === current?.id,
                  disabled,
                  // Two spaces can share a name: the owner tells them apart.
                  helpText: disabled ? L.disabled : ownerLine(s, me?.id),
                  prefix: <SpaceAvatar name={s.name} color={s.color} size={20} />,
                  suffix: s.id === current?.id ? <Icon source={CheckIcon} /> : undefined,
                  onAction: () => {
                    close();
                    nav.toSpace(s.id);
                  },
                };
              }),
            },
            {
              items: [
                ...(current
                  ? [{ content: L.settingsAndMembers, icon: SettingsIcon, onAction: () => { close(); openDialog(current.id); } }]
                  : []),
                ...(limits?.can_create ? [{ content: L.createTitle, icon: PlusIcon, onAction: () => { close(); openCreate(); } }] : []),
              ],
            },
          ]}
        />
        {limits && !limits.can_create ? (
          <Box padding="200">
            <UpgradeBanner reason={limits.spaces_enabled ? 'limit' : 'plan'} onUpgrade={() => { close(); nav.toPricing(); }} />
          </Box>
        ) : null}
      </div>
    </Popover>
  );
}
