// Outgoing e-mail over SMTP (config.smtp: SMTP_URL + SMTP_FROM). Without SMTP configured, sendMail is a
// no-op that resolves false, so callers can tell the user "invited, but no e-mail was sent".
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from './config';

export interface MailMessage {
  to: string | string[];
  subject: string;
  text: string;
  html?: string;
  replyTo?: string;
}

export class MailError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
  }
}

const transports = new Map<string, Transporter>();

function transportFor(url: string): Transporter {
  let t = transports.get(url);
  if (!t) {
    t = nodemailer.createTransport(url, {});
    transports.set(url, t);
  }
  return t;
}

export function mailEnabled(config: Pick<Config, 'smtp'>): boolean {
  return config.smtp !== null;
}

/**
 * Sends one message. Resolves true when the SMTP server accepted it, false when SMTP is not configured.
 * Rejects with MailError when the server cannot be reached or refuses the message (callers decide whether
 * that fails their request or is only reported).
 */
export async function sendMail(config: Pick<Config, 'smtp'>, msg: MailMessage): Promise<boolean> {
  if (!config.smtp) return false;
  const to = Array.isArray(msg.to) ? msg.to : [msg.to];
  if (to.length === 0) throw new MailError('No recipient');
  try {
    await transportFor(config.smtp.url).sendMail({
      from: config.smtp.from,
      to,
      subject: msg.subject,
      text: msg.text,
      html: msg.html,
      replyTo: msg.replyTo,
    });
    return true;
  } catch (e) {
    throw new MailError(`E-mail not sent: ${e instanceof Error ? e.message : String(e)}`, e);
  }
}

/** Closes pooled SMTP connections (shutdown, tests). @internal */
export function closeMailer(): void {
  for (const t of transports.values()) t.close();
  transports.clear();
}
