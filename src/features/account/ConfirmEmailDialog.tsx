// The confirm-email dialog (spec sections 2 and 5): the new e-mail typed twice; the second must equal the first
// ignoring case ('Email addresses don't match'); submit stays disabled until the form is valid. Submitting asks
// the server to e-mail a confirmation link to the new address; the e-mail changes only when it is followed.
import { Banner, BlockStack, FormLayout, Modal, Text, TextField } from '@shopify/polaris';
import { useState } from 'react';
import { useSWRConfig } from 'swr';
import * as v from 'valibot';
import { TEXT } from '../../../contract/errors';
import { Email } from '../../../contract/schemas/common';
import { errorMessage } from '../../lib/http';
import { requestEmailChange } from './api';

export interface EmailFormState {
  email: string;
  confirm: string;
}

/** Field errors of the form (null: none to show) and whether it may be submitted. */
export function validateEmailForm(s: EmailFormState, current?: string): { email: string | null; confirm: string | null; valid: boolean } {
  const emailOk = v.safeParse(Email, s.email).success;
  const email = s.email.trim() === '' ? null : emailOk ? null : TEXT.incorrectEmail;
  const same = s.email.trim().toLowerCase() === s.confirm.trim().toLowerCase();
  const confirm = s.confirm.trim() === '' ? null : same ? null : TEXT.emailsDontMatch;
  const unchanged = !!current && s.email.trim().toLowerCase() === current.toLowerCase();
  return { email, confirm, valid: emailOk && s.confirm.trim() !== '' && same && !unchanged };
}

export function ConfirmEmailDialog({
  open,
  currentEmail,
  onClose,
  onSent,
}: {
  open: boolean;
  currentEmail: string;
  onClose: () => void;
  onSent: (email: string) => void;
}) {
  const [form, setForm] = useState<EmailFormState>({ email: '', confirm: '' });
  const [touched, setTouched] = useState({ email: false, confirm: false });
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { mutate } = useSWRConfig();
  const check = validateEmailForm(form, currentEmail);

  function close() {
    if (sending) return;
    setForm({ email: '', confirm: '' });
    setTouched({ email: false, confirm: false });
    setError(null);
    onClose();
  }

  async function submit() {
    if (!check.valid || sending) return;
    setSending(true);
    setError(null);
    try {
      const r = await requestEmailChange(form.email.trim(), form.confirm.trim(), mutate);
      setForm({ email: '', confirm: '' });
      setTouched({ email: false, confirm: false });
      onSent(r.pending_email ?? form.email.trim().toLowerCase());
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setSending(false);
    }
  }

  return (
    <Modal
      open={open}
      onClose={close}
      title="Change your e-mail"
      primaryAction={{ content: 'Send confirmation link', onAction: () => void submit(), disabled: !check.valid, loading: sending }}
      secondaryActions={[{ content: 'Cancel', onAction: close, disabled: sending }]}
    >
      <Modal.Section>
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <BlockStack gap="300">
            <Text as="p">
              We will send a link to the new address. Your e-mail changes when you follow it; until then you keep signing in with{' '}
              <Text as="span" fontWeight="semibold">
                {currentEmail}
              </Text>
              .
            </Text>
            {error ? (
              <Banner tone="critical" onDismiss={() => setError(null)}>
                {error}
              </Banner>
            ) : null}
            <FormLayout>
              <TextField
                label="New e-mail"
                type="email"
                autoComplete="email"
                value={form.email}
                disabled={sending}
                onChange={(email) => setForm((f) => ({ ...f, email }))}
                onBlur={() => setTouched((t) => ({ ...t, email: true }))}
                error={touched.email ? (check.email ?? undefined) : undefined}
              />
              <TextField
                label="Confirm new e-mail"
                type="email"
                autoComplete="off"
                value={form.confirm}
                disabled={sending}
                onChange={(confirm) => {
                  setForm((f) => ({ ...f, confirm }));
                  setTouched((t) => ({ ...t, confirm: true }));
                }}
                error={touched.confirm ? (check.confirm ?? undefined) : undefined}
              />
            </FormLayout>
            {/* Enter submits (only when valid: the handler checks). */}
            <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
          </BlockStack>
        </form>
      </Modal.Section>
    </Modal>
  );
}
