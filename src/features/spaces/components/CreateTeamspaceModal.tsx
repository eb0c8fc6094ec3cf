import { useState } from 'react';
import { Banner, BlockStack, Modal, Text, TextField } from '@shopify/polaris';
import { CREATE_FORM_DEFAULT_COLOR, SPACE_NAME_MAX } from '../../../../contract/constants';
import { TEXT } from '../../../../contract/errors';
import type { Space } from '../../../../contract/schemas/space';
import { errorMessage } from '../../../lib/http';
import { useCurrentUser } from '../../../lib/api/use-current-user';
import { useSpaceActions, useSpaceLimits } from '../api';
import { L } from '../texts';
import { ColorPicker } from './ColorPicker';
import { DiscardChangesModal } from './ConfirmDialogs';
import { InviteForm } from './InviteForm';
import { MemberList, type MemberItem } from './MemberList';

export interface CreateTeamspaceModalProps {
  open: boolean;
  onClose(): void;
  /** Called with the new space after the server created it. */
  onCreated?(space: Space): void;
}

/** Create Teamspace: name and colour required; members are held locally as editors until submit. */
export function CreateTeamspaceModal(props: CreateTeamspaceModalProps) {
  // Mounted only while open, so every opening starts from an empty form.
  return props.open ? <CreateTeamspaceForm {...props} /> : null;
}

function CreateTeamspaceForm({ onClose, onCreated }: CreateTeamspaceModalProps) {
  const { data: me } = useCurrentUser();
  const { data: limits } = useSpaceLimits();
  const actions = useSpaceActions();
  const [name, setName] = useState('');
  const [color, setColor] = useState<string | null>(CREATE_FORM_DEFAULT_COLOR);
  const [editors, setEditors] = useState<string[]>([]);
  const [touched, setTouched] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const [serverError, setServerError] = useState<string | null>(null);
  const [confirmDiscard, setConfirmDiscard] = useState(false);

  const nameError = touched && name.trim() === '' ? TEXT.fieldRequired : null;
  const colorError = touched && !color ? TEXT.fieldRequired : null;
  const dirty = name !== '' || editors.length > 0;

  const members: MemberItem[] = [
    ...(me ? [{ user_id: me.id, email: me.email, role: 'owner' as const }] : []),
    ...editors.map((email) => ({ user_id: `local:${email}`, email, role: 'editor' as const })),
  ];
  const userLimit = limits?.spaces_enabled ? limits.user_limit : null;
  const atLimit = userLimit !== null && members.length >= userLimit;

  const requestClose = () => {
    if (submitting) return;
    if (dirty) setConfirmDiscard(true);
    else onClose();
  };

  const submit = async () => {
    setTouched(true);
    setServerError(null);
    if (name.trim() === '' || !color) return;
    setSubmitting(true);
    try {
      const space = await actions.create({ data: { name: name.trim(), color }, emails: editors });
      onCreated?.(space);
      onClose();
    } catch (e) {
      setServerError(errorMessage(e));
      setSubmitting(false);
    }
  };

  return (
    <>
      <Modal
        open
        instant
        title={L.createTitle}
        onClose={requestClose}
        primaryAction={{ content: L.create, onAction: submit, loading: submitting }}
        secondaryActions={[{ content: L.cancel, onAction: requestClose, disabled: submitting }]}
      >
        <Modal.Section>
          <form
            aria-label={L.createTitle}
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              void submit();
            }}
          >
            <BlockStack gap="400">
              {serverError ? (
                <Banner tone="critical" onDismiss={() => setServerError(null)}>
                  {serverError}
                </Banner>
              ) : null}
              <TextField
                label={L.nameLabel}
                placeholder={L.namePlaceholder}
                autoComplete="off"
                value={name}
                maxLength={SPACE_NAME_MAX}
                onChange={setName}
                onBlur={() => setTouched(true)}
                error={nameError ?? undefined}
              />
              <ColorPicker value={color} onChange={setColor} error={colorError} />
            </BlockStack>
          </form>
        </Modal.Section>
        <Modal.Section>
          <BlockStack gap="300">
            <Text as="h3" variant="headingSm">{L.membersTitle}</Text>
            <InviteForm
              taken={members.map((m) => m.email)}
              disabled={atLimit || submitting || (limits !== undefined && !limits.spaces_enabled)}
              note={atLimit && userLimit !== null ? L.memberLimitReached(userLimit) : null}
              onInvite={(email) => setEditors((list) => [...list, email])}
            />
            <MemberList
              members={members}
              currentUserId={me?.id}
              canManage
              onRemoveMember={(m) => setEditors((list) => list.filter((e) => e !== m.email))}
            />
          </BlockStack>
        </Modal.Section>
      </Modal>
      <DiscardChangesModal
        open={confirmDiscard}
        onCancel={() => setConfirmDiscard(false)}
        onDiscard={() => {
          setConfirmDiscard(false);
          onClose();
        }}
      />
    </>
  );
}
