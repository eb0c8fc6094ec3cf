// Account calls: creation of the product account (POST /api/users), deletion of the current one, and the
// change of its e-mail (a confirmation link to the new address).
// The current user itself (hook, key, profile update) is shared: src/lib/api/use-current-user.ts.
import type { ScopedMutator } from 'swr';
import type * as v from 'valibot';
import type { EmailChange } from '../../../contract/schemas/onboarding';
import type { CreateUserRequest, User } from '../../../contract/schemas/user';
import { CURRENT_USER_KEY } from '../../lib/api/use-current-user';
import { call, client, clientWith } from '../../lib/api/client';
import { apiKey, useApiGet } from '../../lib/api/use-api-get';

const noSpace = () => clientWith({ spaceId: false });

export type CreateAccountBody = v.InferInput<typeof CreateUserRequest>;

/** Creates the product account of a new identity (and its default Teamspace). 409 when it exists. */
export function createAccount(body: CreateAccountBody): Promise<User> {
  return call(noSpace().POST('/api/users', { body }));
}

export async function deleteCurrentUser(): Promise<void> {
  await call(client.DELETE('/api/users/current'));
}

// ------------------------------------------------------------------ e-mail change

export const EMAIL_CHANGE_KEY = apiKey('/api/users/current/email');

/** The e-mail change waiting for its confirmation link. */
export function useEmailChange(enabled = true) {
  return useApiGet('/api/users/current/email', enabled ? {} : null);
}

/** Asks for the change: the server e-mails a confirmation link to the new address. */
export async function requestEmailChange(email: string, confirmEmail: string, mutate: ScopedMutator): Promise<EmailChange> {
  const r = await call(noSpace().POST('/api/users/current/email', { body: { email, confirm_email: confirmEmail } }));
  await mutate(EMAIL_CHANGE_KEY, r, { revalidate: false });
  return r;
}

/** Follows a confirmation link: the account's e-mail becomes the new one. */
export async function confirmEmailChange(token: string, mutate: ScopedMutator): Promise<User> {
  const user = await call(noSpace().POST('/api/users/current/email/confirm', { body: { token } }));
  await mutate(CURRENT_USER_KEY, user, { revalidate: false });
  await mutate(EMAIL_CHANGE_KEY);
  return user;
}
