// Discard-changes confirmation: 'You have unsaved changes' / 'If you exit now, your changes will be lost.'
import { Modal, Text } from '@shopify/polaris';
import { TEXT } from '../../contract/errors';

export interface DiscardChangesModalProps {
  open: boolean;
  onCancel: () => void;
  onDiscard: () => void;
}

export function DiscardChangesModal({ open, onCancel, onDiscard }: DiscardChangesModalProps) {
  return (
    <Modal
      open={open}
      onClose={onCancel}
      title={TEXT.discardTitle}
      primaryAction={{ content: TEXT.discardConfirm, destructive: true, onAction: onDiscard }}
      secondaryActions={[{ content: TEXT.discardCancel, onAction: onCancel }]}
    >
      <Modal.Section>
        <Text as="p">{TEXT.discardSubtitle}</Text>
      </Modal.Section>
    </Modal>
  );
}
