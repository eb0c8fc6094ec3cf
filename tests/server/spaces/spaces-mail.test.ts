// Invitation e-mails through a real SMTP client (nodemailer) into a tiny local SMTP sink.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendInviteMails } from '../../../server/domains/spaces/mail';
import { createHarness, type Harness } from '../harness';
import { startSmtpSink, type SmtpSink } from '../smtp-sink';
import { typedClient } from '../typed-client';
import { createSpace, grantPlan, makeUser } from './spaces-fixtures';

/** Decodes the raw message enough to match texts: unfolded headers with RFC 2047 words, quoted-printable body. */
function plain(data: string): string {
  const split = data.indexOf('\r\n\r\n');
  const head = data.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = data.slice(split + 4);
  const qp = (s: string) => Buffer.from(s.replace(/=([0-9A-F]{2})/gi, (_m, x) => `%${x}`).replace(/%(?![0-9A-F]{2})/gi, '%25'), 'utf8').toString();
  const words = head
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?([^?]*)\?=/gi, (_m, w: string) => decodeURIComponent(qp(w.replace(/_/g, ' '))));
  return `${words}\r\n\r\n${decodeURIComponent(qp(body.replace(/=\r\n/g, '')))}`;
}

async function waitFor<T>(fn: () => T | undefined, ms = 10_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() - t0 > ms) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('invitation e-mails with SMTP configured', () => {
  let h: Harness;
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
    h = await createHarness({ SMTP_URL: sink.url, SMTP_FROM: 'Studio <studio@example.com>', PUBLIC_URL: 'https://dub.example.com' });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  it('sends one e-mail per invited address after the invite is stored', async () => {
    const o = await makeUser(h, 'mail-owner@example.com');
    await grantPlan(h, o.id, 'business');
    const s = await createSpace(h, o, 'Mail Team', 'ocean', ['newbie@example.com']);
    const msg = await waitFor(() => sink.messages.find((m) => m.to.includes('newbie@example.com')));
    expect(msg.from).toContain('studio@example.com');
    expect(plain(msg.data)).toContain('Subject: mail-owner@example.com invited you to the Teamspace "Mail Team"');
    expect(plain(msg.data)).toContain('https://dub.example.com/auth');
    expect(s.invites.map((i: { email: string }) => i.email)).toEqual(['newbie@example.com']);

    const member = await makeUser(h, 'already@example.com');
    const invited = await typedClient(h, o.token).POST('/api/space/{id}/invite', { params: { path: { id: s.id } }, body: { emails: [member.email] } });
    expect(invited.response.status).toBe(200);
    const m2 = await waitFor(() => sink.messages.find((m) => m.to.includes('already@example.com')));
    expect(plain(m2.data)).toContain(`https://dub.example.com/spaces/${s.id}`);
  });
});

describe('invitation e-mails when sending fails', () => {
  let h: Harness;
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink({ rejectRcpt: true });
    h = await createHarness({ SMTP_URL: sink.url });
  });
  afterAll(async () => {
    await h?.close();
    await sink?.close();
  });

  it('keeps the invite and logs the failure', async () => {
    const o = await makeUser(h, 'fail-owner@example.com');
    await grantPlan(h, o.id, 'business');
    const s = await createSpace(h, o, 'No Mail', 'ocean');
    const r = await typedClient(h, o.token).POST('/api/space/{id}/invite', { params: { path: { id: s.id } }, body: { emails: ['bounce@example.com'] } });
    expect(r.response.status).toBe(200);
    expect(r.data!.invites.map((i) => i.email)).toEqual(['bounce@example.com']);
    const logged: { msg: string; meta?: Record<string, unknown> }[] = [];
    await sendInviteMails(
      h.deps,
      { inviter: o.email, spaceName: 'No Mail', spaceId: s.id, invites: [{ spaceId: s.id, email: 'bounce2@example.com', joined: false }] },
      (msg, meta) => logged.push({ msg, meta }),
    );
    expect(logged).toEqual([{ msg: 'invitation e-mail not sent', meta: expect.objectContaining({ to: 'bounce2@example.com', space_id: s.id }) }]);
    expect(String(logged[0].meta?.error)).toContain('550');
  });
});

describe('invitation e-mails without SMTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('invites without sending and without failing', async () => {
    const o = await makeUser(h, 'nosmtp@example.com');
    await grantPlan(h, o.id, 'business');
    const s = await createSpace(h, o, 'Quiet', 'ocean', ['quiet@example.com']);
    expect(s.invites).toHaveLength(1);
    const logged: string[] = [];
    await sendInviteMails(h.deps, { inviter: o.email, spaceName: 'Quiet', spaceId: s.id, invites: [{ spaceId: s.id, email: 'q@example.com', joined: false }] }, (m) => logged.push(m));
    expect(logged).toEqual([]);
  });
});
