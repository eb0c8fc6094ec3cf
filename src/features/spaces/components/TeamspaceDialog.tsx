import { useEffect, useState } from 'react';
import { Banner, BlockStack, Box, Button, Divider, InlineStack, Modal, ProgressBar, Spinner, Text, TextField } from '@shopify/polaris';
import { SPACE_NAME_MAX, TEAMSPACE_DIALOG_SIZE } from '../../../../contract/constants';
import { TEXT } from '../../../../contract/errors';
import type { Space } from '../../../../contract/schemas/space';
import { errorMessage } from '../../../lib/http';
import { formatDate } from '../../../lib/format';
import { useCredits } from '../../../lib/api/use-credits';
import { useCurrentUser } from '../../../lib/api/use-current-user';
import { useSpace, useSpaceActions, useSpaceLimits, useSpaceSettings } from '../api';
import { canDelete, canLeave, capacityOf, isOwner } from '../lib/rules';
import type { TeamspaceTab } from '../state';
import { L } from '../texts';
import { ColorPicker } from './ColorPicker';
import { DeleteTeamspaceModal, DiscardChangesModal, LeaveSpaceModal, RemoveMemberModal } from './ConfirmDialogs';
import { InviteForm } from './InviteForm';
import { MemberList, type MemberItem } from './MemberList';
import { WebhooksTab } from './WebhooksTab';
import { LoudnessSetting } from './LoudnessSetting';
import { SubtitleLimitsSetting } from './SubtitleLimitsSetting';

export interface TeamspaceDialogProps {
  spaceId: string;
  open: boolean;
  initialTab?: TeamspaceTab;
  onClose(): void;
  /** After the owner deleted the space: go home. */
  onDeleted?(defaultSpaceId: string): void;
  /** After a member left the space: go to their default space. */
  onLeft?(defaultSpaceId: string): void;
  /** Manage subscription (owners): opens pricing. */
  onManageSubscription?(): void;
}

const SIZE_CSS = `@media (min-width: 48em) {
  .Polaris-Modal-Dialog__Modal:has([data-teamspace-dialog]) {
    max-width: ${TEAMSPACE_DIALOG_SIZE.width}px; width: ${TEAMSPACE_DIALOG_SIZE.width}px;
    height: ${TEAMSPACE_DIALOG_SIZE.height}px; max-height: calc(100vh - 2rem);
  }
}
.Polaris-Modal-Dialog__Modal:has([data-teamspace-dialog]) .Polaris-Modal__Body { flex: 1 1 auto; }`;

const TABS: { id: TeamspaceTab; content: string }[] = [
  { id: 'settings', content: L.settingsTab },
  { id: 'usage', content: L.usageTab },
  { id: 'webhooks', content: L.webhooksTab },
];

/** The Teamspace dialog (540 x 600): tabs Settings and Usage; read-only for non-owners. */
export function TeamspaceDialog(props: TeamspaceDialogProps) {
  return props.open ? <TeamspaceDialogBody {...props} /> : null;
}

function TeamspaceDialogBody(props: TeamspaceDialogProps) {
  const { data: space, error, mutate: refresh } = useSpace(props.spaceId);
  const { data: me } = useCurrentUser();
  const [tab, setTab] = useState<TeamspaceTab>(props.initialTab ?? 'settings');
  const [name, setName] = useState<string | null>(null);
  const [color, setColor] = useState<string | null>(null);
  const [confirmDiscard, setConfirmDiscard] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<string | null>(null);
  // Confirmations render after the dialog (as siblings), so they stack above it.
  const [removing, setRemoving] = useState<MemberItem | null>(null);
  const [confirm, setConfirm] = useState<'delete' | 'leave' | null>(null);
  const actions = useSpaceActions();

  // Opening the dialog shows the members as they are now (the space cache is otherwise kept 5 minutes).
  useEffect(() => {
    void refresh();
  }, [refresh]);

  // The form starts from the server copy; it tracks unsaved changes against it.
  useEffect(() => {
    if (space && name === null) {
      setName(space.name);
      setColor(space.color);
    }
  }, [space, name]);

  const owner = !!space && isOwner(space, me?.id);
  const formName = name ?? space?.name ?? '';
  const formColor = color ?? space?.color ?? null;
  const dirty = !!space && owner && (formName !== space.name || formColor !== space.color);
  const nameError = formName.trim() === '' ? TEXT.fieldRequired : null;
  // The usage belongs to the owner (spec section 6); members see Settings only.
  const tabs = owner ? TABS : TABS.filter((t) => t.id === 'settings');

  const requestClose = () => {
    if (dirty) setConfirmDiscard(true);
    else props.onClose();
  };

  const save = async () => {
    if (!space || !dirty || nameError || !formColor) return;
    setSaving(true);
    setSaveError(null);
    try {
      const next = await actions.update(space.id, { name: formName.trim(), color: formColor });
      setName(next.name);
      setColor(next.color);
    } catch (e) {
      setSaveError(errorMessage(e));
    } finally {
      setSaving(false);
    }
  };

  return (
    <>
      <style>{SIZE_CSS}</style>
      <Modal
        open
        instant
        title={space ? space.name : L.dialogTitle}
        onClose={requestClose}
        primaryAction={owner && tab === 'settings' ? { content: L.save, onAction: save, loading: saving, disabled: !dirty || !!nameError } : undefined}
        secondaryActions={[{ content: L.close, onAction: requestClose }]}
      >
        <div data-teamspace-dialog="" style={{ minHeight: 0 }}>
          <TabBar tabs={tabs} selected={owner ? tab : 'settings'} onSelect={setTab} />
          <Box padding="400">
            {error ? (
              <Banner tone="critical">{errorMessage(error)}</Banner>
            ) : !space ? (
              <InlineStack align="center"><Spinner accessibilityLabel="Loading" size="small" /></InlineStack>
            ) : tab === 'settings' || !owner ? (
              <SettingsTab
                space={space}
                meId={me?.id ?? null}
                owner={owner}
                name={formName}
                color={formColor}
                nameError={nameError}
                saveError={saveError}
                onName={setName}
                onColor={setColor}
                onAskRemove={setRemoving}
                onAskConfirm={setConfirm}
              />
            ) : tab === 'webhooks' ? (
              <WebhooksTab spaceId={space.id} />
            ) : (
              <UsageTab space={space} owner={owner} onManageSubscription={props.onManageSubscription} />
            )}
          </Box>
        </div>
      </Modal>
      <DiscardChangesModal
        open={confirmDiscard}
        onCancel={() => setConfirmDiscard(false)}
        onDiscard={() => {
          setConfirmDiscard(false);
          props.onClose();
        }}
      />
      <RemoveMemberModal
        open={removing !== null}
        email={removing?.email ?? ''}
        onCancel={() => setRemoving(null)}
        onConfirm={async () => {
          if (!removing) return;
          await actions.removeMember(props.spaceId, removing.user_id);
          setRemoving(null);
        }}
      />
      <DeleteTeamspaceModal
        open={confirm === 'delete'}
        name={space?.name ?? ''}
        onCancel={() => setConfirm(null)}
        onConfirm={async () => {
          const r = await actions.remove(props.spaceId);
          setConfirm(null);
          props.onClose();
          props.onDeleted?.(r.default_space_id);
        }}
      />
      <LeaveSpaceModal
        open={confirm === 'leave'}
        name={space?.name ?? ''}
        onCancel={() => setConfirm(null)}
        onConfirm={async () => {
          const r = await actions.leave(props.spaceId);
          setConfirm(null);
          props.onClose();
          props.onLeft?.(r.default_space_id);
        }}
      />
    </>
  );
}

/** Fitted tabs (a plain tablist: Polaris Tabs measure widths and fold tabs away in narrow dialogs). */
function TabBar(p: { tabs: { id: TeamspaceTab; content: string }[]; selected: TeamspaceTab; onSelect(id: TeamspaceTab): void }) {
  return (
    <div role="tablist" style={{ display: 'flex', borderBottom: '1px solid var(--p-color-border, #e3e3e3)' }}>
      {p.tabs.map((t) => {
        const active = t.id === p.selected;
        return (
          <button
            key={t.id}
            type="button"
            role="tab"
            id={`teamspace-tab-${t.id}`}
            aria-selected={active}
            onClick={() => p.onSelect(t.id)}
            style={{
              flex: 1,
              padding: '10px 12px',
              background: 'transparent',
              border: 0,
              borderBottom: active ? '2px solid var(--p-color-text, #303030)' : '2px solid transparent',
              fontWeight: active ? 600 : 450,
              color: active ? 'var(--p-color-text, #303030)' : 'var(--p-color-text-secondary, #616161)',
              cursor: 'pointer',
              font: 'inherit',
            }}
          >
            {t.content}
          </button>
        );
      })}
    </div>
  );
}

function SettingsTab(p: {
  space: Space;
  meId: string | null;
  owner: boolean;
  name: string;
  color: string | null;
  nameError: string | null;
  saveError: string | null;
  onName(v: string): void;
  onColor(v: string): void;
  onAskRemove(m: MemberItem): void;
  onAskConfirm(kind: 'delete' | 'leave'): void;
}) {
  const { space, owner } = p;
  const actions = useSpaceActions();
  const { data: settings } = useSpaceSettings(space.id);
  const { data: limits } = useSpaceLimits();
  const [listError, setListError] = useState<string | null>(null);

  const feature = settings?.scope_settings.available_features.spaces;
  const capacity = capacityOf(space.members.length + space.invites.length, feature, true);
  const invitesInPlan = feature ? feature.enabled : true;
  const deletable = owner && limits ? canDelete(space, p.meId, limits.owned_spaces, limits.spaces_limit) : false;
  const leavable = canLeave(space, p.meId);
  const mailEnabled = settings?.mail_enabled !== false;
  const [link, setLink] = useState<{ email: string; url: string; expires: string } | null>(null);
  const [copied, setCopied] = useState(false);
  const memberCount = space.members.length + space.invites.length;
  // Without e-mail on this server the invitee learns of the invite only through the owner: a link to hand over.
  const invite = async (email: string) => {
    const updated = await actions.invite(space.id, [email]);
    setLink(null);
    setCopied(false);
    if (mailEnabled) return;
    const pending = updated.invites.find((i) => i.email === email);
    if (!pending) return;
    const made = await actions.inviteLink(space.id, pending.id);
    setLink({ email, url: `${window.location.origin}/join/${made.token}`, expires: formatDate(made.expires_at) });
  };

  return (
    <BlockStack gap="400">
      {!owner ? <Banner tone="info">{L.readOnly}</Banner> : null}
      {p.saveError ? <Banner tone="critical">{p.saveError}</Banner> : null}
      <TextField
        label={L.nameLabel}
        autoComplete="off"
        value={p.name}
        maxLength={SPACE_NAME_MAX}
        onChange={p.onName}
        readOnly={!owner}
        disabled={!owner}
        error={owner && p.nameError ? p.nameError : undefined}
      />
      <ColorPicker value={p.color} onChange={p.onColor} disabled={!owner} />
      <LoudnessSetting space={space} owner={owner} />
      <SubtitleLimitsSetting space={space} owner={owner} />
      <Divider />
      <InlineStack align="space-between" blockAlign="center">
        <Text as="h3" variant="headingSm">{L.membersTitle}</Text>
        <Text as="span" tone="subdued" variant="bodySm">
          {capacity.limit !== null ? `${memberCount} of ${capacity.limit} members` : `${memberCount} ${memberCount === 1 ? 'member' : 'members'}`}
        </Text>
      </InlineStack>
      {owner ? (
        <InviteForm
          taken={[...space.members.map((m) => m.email), ...space.invites.map((i) => i.email)]}
          disabled={!invitesInPlan || capacity.atLimit}
          note={!invitesInPlan ? L.invitesNotInPlan : capacity.atLimit && capacity.limit !== null ? L.memberLimitReached(capacity.limit) : null}
          onInvite={invite}
        />
      ) : null}
      {owner && !mailEnabled && !link ? (
        <Text as="p" tone="subdued" variant="bodySm">This server sends no e-mail: after inviting, you get a link to send yourself.</Text>
      ) : null}
      {link ? (
        <Banner tone="warning" title="No e-mail was sent" onDismiss={() => setLink(null)}>
          <BlockStack gap="200">
            <Text as="p">{`This server sends no e-mail. Send this link to ${link.email} yourself: it works once, until ${link.expires}.`}</Text>
            <InlineStack gap="200" blockAlign="end" wrap={false}>
              <div style={{ flex: 1, minWidth: 0 }}>
                <TextField label="Invite link" value={link.url} readOnly autoComplete="off" selectTextOnFocus />
              </div>
              <Button
                onClick={() => {
                  void navigator.clipboard?.writeText(link.url).then(() => setCopied(true), () => setCopied(false));
                }}
              >
                {copied ? 'Copied' : 'Copy link'}
              </Button>
            </InlineStack>
          </BlockStack>
        </Banner>
      ) : null}
      {listError ? <Banner tone="critical" onDismiss={() => setListError(null)}>{listError}</Banner> : null}
      <MemberList
        members={space.members}
        invites={space.invites}
        currentUserId={p.meId}
        canManage={owner}
        onRemoveMember={p.onAskRemove}
        onRemoveInvite={(i) => {
          setListError(null);
          actions.removeInvite(space.id, i.id).catch((e: unknown) => setListError(errorMessage(e)));
        }}
      />
      {deletable || leavable ? (
        <>
          <Divider />
          <InlineStack align="start">
            {deletable ? (
              <Button tone="critical" onClick={() => p.onAskConfirm('delete')}>{L.deleteTeamspace}</Button>
            ) : (
              <Button tone="critical" onClick={() => p.onAskConfirm('leave')}>{L.leaveSpace}</Button>
            )}
          </InlineStack>
        </>
      ) : null}
    </BlockStack>
  );
}

function UsageTab(p: { space: Space; owner: boolean; onManageSubscription?(): void }) {
  const { data: fresh } = useCredits(p.space.id);
  const credits = fresh ?? p.space.credits;
  const { total, used } = credits.minutes;
  const pct = total > 0 ? Math.min(100, Math.round((used / total) * 100)) : used > 0 ? 100 : 0;
  return (
    <BlockStack gap="400">
      <BlockStack gap="200">
        <Text as="h3" variant="headingSm">{L.minutes}</Text>
        <Text as="p" variant="bodyMd">{L.minutesUsed(used, total)}</Text>
        <ProgressBar progress={pct} size="small" tone={pct >= 100 ? 'critical' : 'primary'} />
      </BlockStack>
      {p.owner ? (
        <InlineStack align="start">
          <Button onClick={p.onManageSubscription}>{L.manageSubscription}</Button>
        </InlineStack>
      ) : null}
    </BlockStack>
  );
}
