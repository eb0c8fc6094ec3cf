import { useState, type FormEvent } from 'react';
import { Button, InlineStack, Text, TextField } from '@shopify/polaris';
import { errorMessage } from '../../../lib/http';
import { inviteEmailError } from '../lib/rules';
import { L } from '../texts';

export interface InviteFormProps {
  /** E-mails already in the space (members and invites): 'This email is already added'. */
  taken: string[];
  /** Called with a valid, new e-mail (trimmed, lower-case). Rejecting shows the error under the input. */
  onInvite(email: string): Promise<unknown> | unknown;
  /** The whole form is disabled (read-only, or the member limit is reached). */
  disabled?: boolean;
  /** Why the form is disabled, shown under it. */
  note?: string | null;
}

/** Space member invite form: e-mail input and Invite button (spec section 5). */
export function InviteForm({ taken, onInvite, disabled = false, note }: InviteFormProps) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const onChange = (next: string) => {
    setValue(next);
    // An empty value clears the error; a shown error follows the input until it is fixed.
    if (next.trim() === '') setError(null);
    else if (error !== null) setError(inviteEmailError(next, taken));
  };

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (disabled || loading || value.trim() === '') return;
    const err = inviteEmailError(value, taken);
    setError(err);
    if (err) return;
    setLoading(true);
    try {
      await onInvite(value.trim().toLowerCase());
      setValue('');
      setError(null);
    } catch (ex) {
      setError(errorMessage(ex));
    } finally {
      setLoading(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Invite member">
      <InlineStack gap="200" wrap={false} blockAlign="start">
        <div style={{ flex: 1 }}>
          <TextField
            label={L.emailLabel}
            labelHidden
            type="email"
            autoComplete="off"
            placeholder={L.emailPlaceholder}
            value={value}
            onChange={onChange}
            error={error ?? undefined}
            disabled={disabled}
          />
        </div>
        <Button submit variant="primary" loading={loading} disabled={disabled || loading || value.trim() === ''}>
          {L.invite}
        </Button>
      </InlineStack>
      {note ? (
        <div style={{ marginTop: 6 }}>
          <Text as="p" variant="bodySm" tone="subdued">{note}</Text>
        </div>
      ) : null}
    </form>
  );
}
