// Invitation e-mails. Sent after the invite is committed; a failure to send never fails the invite, it is
// logged. Without SMTP configured nothing is sent and nothing breaks.
import type { AppDeps } from '../../deps';
import { mailEnabled, sendMail, type MailMessage } from '../../mailer';
import type { NewInvite } from './service';

export type MailLog = (msg: string, meta?: Record<string, unknown>) => void;
const defaultLog: MailLog = (msg, meta) => console.error(`[spaces] ${msg}`, meta ?? '');

export function inviteMessage(opts: { inviter: string; spaceName: string; spaceId: string; invite: NewInvite; publicUrl: string | null }): MailMessage {
  const base = (opts.publicUrl ?? '').replace(/\/+$/, '');
  const link = opts.invite.joined ? `${base}/spaces/${opts.spaceId}` : `${base}/auth`;
  const action = opts.invite.joined
    ? `Open the Teamspace: ${link}`
    : `Sign up with this e-mail address (${opts.invite.email}) to join as an editor: ${link}`;
  return {
    to: opts.invite.email,
    subject: `${opts.inviter} invited you to the Teamspace "${opts.spaceName}"`,
    text: [
      `Hello,`,
      ``,
      `${opts.inviter} invited you to the Teamspace "${opts.spaceName}" as an editor.`,
      action,
      ``,
      `If you did not expect this invitation, you can ignore this e-mail.`,
    ].join('\n'),
    replyTo: opts.inviter,
  };
}

/**
 * Sends one e-mail per new invite, in the background. Returns the promise of all sends (already
 * guarded: it never rejects) so callers and tests may await it; request handlers do not.
 */
export function sendInviteMails(
  deps: AppDeps,
  opts: { inviter: string; spaceName: string; spaceId: string; invites: NewInvite[] },
  log: MailLog = defaultLog,
): Promise<void> {
  if (!mailEnabled(deps.config) || opts.invites.length === 0) return Promise.resolve();
  const jobs = opts.invites.map(async (invite) => {
    const msg = inviteMessage({ ...opts, invite, publicUrl: deps.config.publicUrl });
    try {
      await sendMail(deps, msg);
    } catch (e) {
      log('invitation e-mail not sent', { to: invite.email, space_id: opts.spaceId, error: e instanceof Error ? e.message : String(e) });
    }
  });
  return Promise.all(jobs).then(() => undefined);
}
