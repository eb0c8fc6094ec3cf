// Outgoing e-mail over SMTP (config.smtp: SMTP_URL + SMTP_FROM). Without SMTP configured, sendMail is a
// no-op that resolves false, so callers can tell the user "invited, but no e-mail was sent". The SMTP
// connections (one pooled transport per SMTP_URL) are the app's: part of its state (Db.state), closed by its
// shutdown (shutdownDeps); two apps in one process never share one.
import nodemailer, { type Transporter } from 'nodemailer';
import { namespace } from './cache/index';
import type { Config } from './config';
import type { Db } from './db/index';

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

export function mailEnabled(config: Pick<Config, 'smtp'>): boolean {
  return config.smtp !== null;
}

/** One app's SMTP transports, one per server URL (mailerOf: the app's, in its state). */
export class Mailer {
  readonly #transports = new Map<string, Transporter>();

  #transportFor(url: string): Transporter {
    let t = this.#transports.get(url);
    if (!t) {
      t = nodemailer.createTransport(url, {});
      this.#transports.set(url, t);
    }
    return t;
  }

  /** Sends one message (see sendMail). */
  async send(config: Pick<Config, 'smtp'>, msg: MailMessage): Promise<boolean> {
    if (!config.smtp) return false;
    const to = Array.isArray(msg.to) ? msg.to : [msg.to];
    if (to.length === 0) throw new MailError('No recipient');
    try {
      await this.#transportFor(config.smtp.url).sendMail({
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

  /** The SMTP servers it holds connections to (tests). */
  get servers(): string[] {
    return [...this.#transports.keys()];
  }

  /** Closes its pooled SMTP connections. */
  close(): void {
    for (const t of this.#transports.values()) t.close();
    this.#transports.clear();
  }
}

const MAILER = namespace('mailer', () => new Mailer());

/** The app's mailer (its SMTP connections), made with its state. */
export function mailerOf(db: Db): Mailer {
  return db.state.of(MAILER);
}

/**
 * Sends one message with the app's connections. Resolves true when the SMTP server accepted it, false when SMTP
 * is not configured. Rejects with MailError when the server cannot be reached or refuses the message (callers
 * decide whether that fails their request or is only reported).
 */
export function sendMail(deps: { db: Db; config: Pick<Config, 'smtp'> }, msg: MailMessage): Promise<boolean> {
  return mailerOf(deps.db).send(deps.config, msg);
}
