// Changing the sign-in e-mail (spec sections 2 and 5, the confirm-email dialog): the new address, typed twice,
// gets a link by e-mail (SMTP); the account's e-mail (and its password sign-in) changes only when that link is
// followed. A link works once, for EMAIL_CHANGE_TTL_SEC, and only the latest one of a user works.
import { createHash, randomBytes } from 'node:crypto';
import type { EmailChange } from '../../../contract/schemas/onboarding';
import type { Config } from '../../config';
import type { Db } from '../../db/index';
import { MailError, mailEnabled, sendMail } from '../../mailer';
import { conflict, DomainError, forbidden } from '../../errors';
import { invalidateAccount } from './cache';
import * as repo from './repository';
import type { UserRow } from '../../caller';

export const EMAIL_CHANGE_TTL_SEC = 24 * 3600;

export const EMAIL_TEXTS = {
  sameEmail: 'This is already your e-mail',
  taken: 'An account with this email already exists',
  notPassword: 'Your e-mail comes from the service you sign in with: change it there',
  noSmtp: 'E-mail is not configured on this server (SMTP_URL), so the confirmation link cannot be sent',
  invalidLink: 'This confirmation link is not valid',
  otherAccount: 'This confirmation link is for another account: sign in with the account that asked for the change',
  usedLink: 'This confirmation link was already used',
  expiredLink: 'This confirmation link has expired: change your e-mail again to get a new link',
} as const;

const hashToken = (t: string) => createHash('sha256').update(t).digest('hex');

function view(row: repo.EmailChangeRow | null, sent: boolean): EmailChange {
  return {
    pending_email: row?.new_email ?? null,
    expires_at: row ? new Date(row.expires_at).toISOString() : null,
    sent,
  };
}

export function confirmLink(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/account?confirm_email=${encodeURIComponent(token)}`;
}

/** POST /api/users/current/email: records the change and e-mails the link to the new address. */
export async function requestEmailChange(
  deps: { db: Db; config: Pick<Config, 'smtp' | 'publicUrl'> },
  user: UserRow,
  newEmail: string,
  origin: string,
): Promise<EmailChange> {
  const email = newEmail.trim().toLowerCase();
  if (user.email_type !== 'password') throw conflict(EMAIL_TEXTS.notPassword);
  if (email === user.email.toLowerCase()) throw new DomainError('bad_request', EMAIL_TEXTS.sameEmail);
  if (await repo.emailTaken(deps.db, email, user.id)) throw conflict(EMAIL_TEXTS.taken);
  if (!mailEnabled(deps.config)) throw new DomainError('unavailable', EMAIL_TEXTS.noSmtp);
  const token = randomBytes(32).toString('base64url');
  const row = await deps.db.tx((t) => repo.insertEmailChange(t, { userId: user.id, newEmail: email, tokenHash: hashToken(token), ttlSec: EMAIL_CHANGE_TTL_SEC }));
  const link = confirmLink(deps.config.publicUrl ?? origin, token);
  try {
    await sendMail(deps, {
      to: email,
      subject: 'Confirm your new e-mail address',
      text: [
        `Someone (hopefully you) asked to change the e-mail of the account ${user.email} to this address.`,
        '',
        `Confirm the change: ${link}`,
        '',
        `The link works once, for ${EMAIL_CHANGE_TTL_SEC / 3600} hours. Until it is followed, you keep signing in with ${user.email}.`,
        'If you did not ask for this, ignore this e-mail.',
      ].join('\n'),
    });
  } catch (e) {
    // No link went out: nothing waits for one.
    await repo.deleteEmailChange(deps.db, row.id);
    throw new DomainError('upstream_failed', e instanceof MailError ? e.message : 'The confirmation e-mail could not be sent');
  }
  return view(row, true);
}

/** GET /api/users/current/email: the change waiting for its link, if any. */
export async function currentEmailChange(db: Db, user: UserRow): Promise<EmailChange> {
  return view(await repo.pendingEmailChange(db, user.id), false);
}

/** POST /api/users/current/email/confirm {token}: applies the change of a valid, unused, unexpired link. */
export async function confirmEmailChange(db: Db, user: UserRow, token: string): Promise<UserRow> {
  const changed = await db.tx(async (t) => {
    const c = await repo.lockEmailChangeByToken(t, hashToken(token.trim()));
    if (!c) throw new DomainError('not_found', EMAIL_TEXTS.invalidLink);
    if (c.user_id !== user.id) throw forbidden(EMAIL_TEXTS.otherAccount);
    if (c.confirmed_at) throw new DomainError('gone', EMAIL_TEXTS.usedLink);
    if (c.expired) throw new DomainError('gone', EMAIL_TEXTS.expiredLink);
    if (await repo.emailTaken(t, c.new_email, user.id)) throw conflict(EMAIL_TEXTS.taken);
    return repo.applyEmailChange(t, { id: c.id, userId: user.id, newEmail: c.new_email });
  });
  invalidateAccount(db, changed.identity_id);
  return changed;
}
