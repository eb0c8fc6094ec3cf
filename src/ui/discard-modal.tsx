// Discard-changes confirmation: 'You have unsaved changes' / 'If you exit now, your changes will be lost.'
import { Modal, Text } from '@shopify/polaris';
import { TEXT } from '../../contract/errors';

export interface DiscardChangesModalProps {
  open: boolean;
  onCancel: () => void;
  onDiscard: () => void;
  /** When given, "Save and leave" is the main action and discarding a secondary one. */
  onSave?: () => void;
}

export function DiscardChangesModal({ open, onCancel, onDiscard, onSave }: DiscardChangesModalProps) {
  return (
    <Modal
      open={open}
      onClose={onCancel}
      title={TEXT.discardTitle}
      primaryAction={onSave ? { content: 'Save and leave', onAction: onSave } : { content: TEXT.discardConfirm, destructive: true, onAction: onDiscard }}
      secondaryActions={[
        ...(onSave ? [{ content: TEXT.discardConfirm, destructive: true, onAction: onDiscard }] : []),
        { content: TEXT.discardCancel, onAction: onCancel },
      ]}
    >
      <Modal.Section>
        <Text as="p">{TEXT.discardSubtitle}</Text>
      </Modal.Section>
    </Modal>
  );
}
