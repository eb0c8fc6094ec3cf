import { useState } from 'react';
import { Modal, Text } from '@shopify/polaris';
import { TEXT } from '../../../../contract/errors';
import { errorMessage } from '../../../lib/http';
import { L } from '../texts';

export interface ConfirmModalProps {
  open: boolean;
  title: string;
  text: string;
  confirmLabel: string;
  cancelLabel?: string;
  destructive?: boolean;
  onConfirm(): Promise<unknown> | unknown;
  onCancel(): void;
}

/** A small confirmation; a failing confirm keeps it open and shows the error. */
export function ConfirmModal(p: ConfirmModalProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await p.onConfirm();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  const cancel = () => {
    setError(null);
    p.onCancel();
  };
  return (
    <Modal
      open={p.open}
      onClose={cancel}
      title={p.title}
      size="small"
      instant
      primaryAction={{ content: p.confirmLabel, destructive: p.destructive, loading: busy, onAction: confirm }}
      secondaryActions={[{ content: p.cancelLabel ?? L.cancel, onAction: cancel, disabled: busy }]}
    >
      <Modal.Section>
        <Text as="p">{p.text}</Text>
        {error ? (
          <div style={{ marginTop: 8 }} role="alert">
            <Text as="p" tone="critical">{error}</Text>
          </div>
        ) : null}
      </Modal.Section>
    </Modal>
  );
}

/** Discard-changes confirmation with the spec's exact texts. */
export function DiscardChangesModal(p: { open: boolean; onDiscard(): void; onCancel(): void }) {
  return (
    <ConfirmModal
      open={p.open}
      title={TEXT.discardTitle}
      text={TEXT.discardSubtitle}
      cancelLabel={TEXT.discardCancel}
      confirmLabel={TEXT.discardConfirm}
      destructive
      onConfirm={p.onDiscard}
      onCancel={p.onCancel}
    />
  );
}

export function RemoveMemberModal(p: { open: boolean; email: string; onConfirm(): Promise<unknown>; onCancel(): void }) {
  return (
    <ConfirmModal open={p.open} title={L.removeMemberTitle} text={L.removeMemberText(p.email)} confirmLabel={L.remove} destructive onConfirm={p.onConfirm} onCancel={p.onCancel} />
  );
}

export function DeleteTeamspaceModal(p: { open: boolean; name: string; onConfirm(): Promise<unknown>; onCancel(): void }) {
  return (
    <ConfirmModal open={p.open} title={L.deleteTitle} text={L.deleteText(p.name)} confirmLabel={L.delete} destructive onConfirm={p.onConfirm} onCancel={p.onCancel} />
  );
}

export function LeaveSpaceModal(p: { open: boolean; name: string; onConfirm(): Promise<unknown>; onCancel(): void }) {
  return (
    <ConfirmModal open={p.open} title={L.leaveTitle} text={L.leaveText(p.name)} confirmLabel={L.leave} destructive onConfirm={p.onConfirm} onCancel={p.onCancel} />
  );
}
