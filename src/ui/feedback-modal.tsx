// Feedback on a project: 'What went wrong?' (spec sections 2 and 5): submit enabled only when the form
// changed; every control disabled while submitting.
import { BlockStack, ChoiceList, Modal, TextField } from '@shopify/polaris';
import { useState } from 'react';

export const FEEDBACK_TITLE = 'What went wrong?';
export const FEEDBACK_OPTIONS = [
  'Transcription is wrong',
  'Translation is inaccurate',
  'Voices do not sound right',
  'Timing is off',
  'Speakers are mixed up',
  'Video or audio quality',
  'Other',
] as const;

export interface FeedbackValue {
  comment: string;
  options: string[];
}

export function feedbackChanged(v: FeedbackValue): boolean {
  return v.comment.trim().length > 0 || v.options.length > 0;
}

export function FeedbackModal({
  open,
  onClose,
  onSubmit,
}: {
  open: boolean;
  onClose: () => void;
  /** Resolves when sent; a rejection keeps the modal open with the form as it was. */
  onSubmit: (v: FeedbackValue) => Promise<void>;
}) {
  const [value, setValue] = useState<FeedbackValue>({ comment: '', options: [] });
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const close = () => {
    if (submitting) return;
    setValue({ comment: '', options: [] });
    setError(null);
    onClose();
  };
  const submit = async () => {
    if (!feedbackChanged(value) || submitting) return;
    setSubmitting(true);
    setError(null);
    try {
      await onSubmit({ comment: value.comment.trim(), options: value.options });
      setValue({ comment: '', options: [] });
      onClose();
    } catch (e) {
      setError((e as Error).message || 'Could not send the feedback');
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <Modal
      open={open}
      onClose={close}
      title={FEEDBACK_TITLE}
      primaryAction={{ content: 'Send feedback', onAction: submit, disabled: !feedbackChanged(value) || submitting, loading: submitting }}
      secondaryActions={[{ content: 'Cancel', onAction: close, disabled: submitting }]}
    >
      <Modal.Section>
        <BlockStack gap="400">
          <ChoiceList
            title="Select what was wrong"
            allowMultiple
            disabled={submitting}
            choices={FEEDBACK_OPTIONS.map((o) => ({ label: o, value: o }))}
            selected={value.options}
            onChange={(options) => setValue((v) => ({ ...v, options }))}
          />
          <TextField
            label="Tell us more"
            multiline={3}
            autoComplete="off"
            disabled={submitting}
            value={value.comment}
            onChange={(comment) => setValue((v) => ({ ...v, comment }))}
            error={error ?? undefined}
            maxLength={2000}
          />
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}
