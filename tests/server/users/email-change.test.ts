// Changing the sign-in e-mail over HTTP: the new address typed twice (equal ignoring case), a confirmation link
// e-mailed to it through real SMTP (a local sink), the e-mail (and the password sign-in) changing only when the
// link is followed; used, expired, replaced and foreign links refused with a clear error; email_consent saved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../harness';
import { signUpAndCreate, TEST_PASSWORD } from '../helpers';
import { issuesOf, typedClient } from '../typed-client';
import { startSmtpSink, type SmtpSink } from '../smtp-sink';

let h: Harness;
let sink: SmtpSink;

beforeAll(async () => {
  sink = await startSmtpSink();
  h = await createHarness({ SMTP_URL: sink.url, PUBLIC_URL: 'https://studio.example' });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await sink?.close();
});

/** The token of the last link e-mailed to `to` (quoted-printable undone). */
function lastToken(to: string): string {
  const m = [...sink.messages].reverse().find((x) => x.to.includes(to));
  if (!m) throw new Error(`no mail to ${to}`);
  const body = m.data.replace(/=\r?\n/g, '').replace(/=3D/gi, '=');
  const link = /https:\/\/studio\.example\/account\?confirm_email=([\w-]+)/.exec(body);
  if (!link) throw new Error(`no link in ${body}`);
  return link[1]!;
}

const signIn = (email: string) => typedClient(h).POST('/api/auth/sign-in', { body: { email, password: TEST_PASSWORD } });

describe('the new e-mail', () => {
  it('must be typed twice, equal ignoring case, valid, new and not taken', async () => {
    const a = await signUpAndCreate(h, 'ana@example.com');
    await signUpAndCreate(h, 'taken@example.com');
    const post = (body: { email: string; confirm_email: string }, token: string | null = a.token) =>
      typedClient(h, token).POST('/api/users/current/email', { body });
    const mismatch = await post({ email: 'new@example.com', confirm_email: 'other@example.com' });
    expect(mismatch.response.status).toBe(422);
    expect(issuesOf(mismatch.error)[0]).toMatchObject({ loc: ['body', 'confirm_email'], msg: "Email addresses don't match" });
    const bad = await post({ email: 'not-an-email', confirm_email: 'not-an-email' });
    expect(bad.response.status).toBe(422);
    expect(issuesOf(bad.error)[0]?.msg).toBe('Incorrect email');
    const same = await post({ email: 'ANA@example.com', confirm_email: 'ana@example.com' });
    expect(same.response.status).toBe(400);
    expect(same.error!.detail).toBe('This is already your e-mail');
    const taken = await post({ email: 'taken@example.com', confirm_email: 'Taken@Example.com' });
    expect(taken.response.status).toBe(409);
    expect(sink.messages).toHaveLength(0);
    expect((await post({ email: 'x@example.com', confirm_email: 'x@example.com' }, null)).response.status).toBe(401);
  });
});

describe('the confirmation link', () => {
  it('changes the e-mail only when followed, once; the new e-mail signs in, the old one no more', async () => {
    const u = await signUpAndCreate(h, 'bea@example.com');
    const asU = typedClient(h, u.token);
    const r = await asU.POST('/api/users/current/email', { body: { email: 'Bea.New@example.com', confirm_email: 'bea.new@EXAMPLE.com' } });
    expect(r.response.status).toBe(202);
    expect(r.data).toMatchObject({ pending_email: 'bea.new@example.com', sent: true });
    const mail = sink.messages.find((m) => m.to.includes('bea.new@example.com'))!;
    expect(mail.data).toMatch(/Subject: Confirm your new e-mail address/);
    const token = lastToken('bea.new@example.com');

    // Nothing changed yet.
    expect((await asU.GET('/api/users/current')).data!.email).toBe('bea@example.com');
    expect((await asU.GET('/api/users/current/email')).data!.pending_email).toBe('bea.new@example.com');
    expect((await signIn('bea.new@example.com')).response.status).toBe(401);

    const ok = await asU.POST('/api/users/current/email/confirm', { body: { token } });
    expect(ok.response.status).toBe(200);
    expect(ok.data!.email).toBe('bea.new@example.com');
    expect((await asU.GET('/api/users/current')).data!.email).toBe('bea.new@example.com');
    expect((await asU.GET('/api/users/current/email')).data!.pending_email).toBeNull();
    expect((await signIn('bea.new@example.com')).response.status).toBe(200);
    expect((await signIn('bea@example.com')).response.status).toBe(401);

    const reused = await asU.POST('/api/users/current/email/confirm', { body: { token } });
    expect(reused.response.status).toBe(410);
    expect(reused.error!.detail).toBe('This confirmation link was already used');
  });

  it('an expired, replaced, unknown or foreign link is refused with a clear error', async () => {
    const u = await signUpAndCreate(h, 'cid@example.com');
    const other = await signUpAndCreate(h, 'dan@example.com');
    const ask = (email: string) => typedClient(h, u.token).POST('/api/users/current/email', { body: { email, confirm_email: email } });
    const confirm = (token: string, who = u.token) => typedClient(h, who).POST('/api/users/current/email/confirm', { body: { token } });

    expect((await ask('cid.1@example.com')).response.status).toBe(202);
    const first = lastToken('cid.1@example.com');
    expect((await ask('cid.2@example.com')).response.status).toBe(202);
    const second = lastToken('cid.2@example.com');
    // The newer link replaced the first one.
    const replaced = await confirm(first);
    expect(replaced.response.status).toBe(410);
    expect(replaced.error!.detail).toMatch(/expired/);

    // Another account cannot use it.
    const foreign = await confirm(second, other.token);
    expect(foreign.response.status).toBe(403);
    expect(foreign.error!.detail).toMatch(/another account/);

    await h.deps.db.query(`UPDATE email_changes SET expires_at = now() - interval '1 minute' WHERE new_email = 'cid.2@example.com'`);
    const expired = await confirm(second);
    expect(expired.response.status).toBe(410);
    expect(expired.error!.detail).toBe('This confirmation link has expired: change your e-mail again to get a new link');

    const unknown = await confirm('no-such-token');
    expect(unknown.response.status).toBe(404);
    expect(unknown.error!.detail).toBe('This confirmation link is not valid');
    expect((await confirm('')).response.status).toBe(422);
    expect((await typedClient(h, u.token).GET('/api/users/current')).data!.email).toBe('cid@example.com');
  });

  it('accounts signing in elsewhere change their e-mail there', async () => {
    const u = await signUpAndCreate(h, 'eve@example.com');
    await h.deps.db.query(`UPDATE users SET email_type = 'oidc' WHERE id = $1`, [u.user.id]);
    // The account cache holds rows briefly: the refusal is asserted once it reads the new type.
    const { invalidateAccount } = await import('../../../server/domains/users/cache');
    invalidateAccount(h.deps.db);
    const r = await typedClient(h, u.token).POST('/api/users/current/email', { body: { email: 'eve2@example.com', confirm_email: 'eve2@example.com' } });
    expect(r.response.status).toBe(409);
    expect(r.error!.detail).toMatch(/service you sign in with/);
  });

  it('email_consent is saved', async () => {
    const u = await signUpAndCreate(h, 'fay@example.com');
    const asU = typedClient(h, u.token);
    expect((await asU.PATCH('/api/users/current', { body: { email_consent: true } })).data!.email_consent).toBe(true);
    expect((await asU.GET('/api/users/current')).data!.email_consent).toBe(true);
  });
});

describe('without working SMTP', () => {
  it('no SMTP configured: 503 and nothing waits; SMTP refusing the address: 502 and nothing waits', async () => {
    const bare = await createHarness();
    try {
      const u = await signUpAndCreate(bare, 'gus@example.com');
      const r = await typedClient(bare, u.token).POST('/api/users/current/email', { body: { email: 'gus2@example.com', confirm_email: 'gus2@example.com' } });
      expect(r.response.status).toBe(503);
      expect(r.error!.detail).toMatch(/SMTP_URL/);
    } finally {
      await bare.close();
    }
    const refusing = await startSmtpSink({ rejectRcpt: true });
    const h2 = await createHarness({ SMTP_URL: refusing.url });
    try {
      const u = await signUpAndCreate(h2, 'hal@example.com');
      const asU = typedClient(h2, u.token);
      const r = await asU.POST('/api/users/current/email', { body: { email: 'hal2@example.com', confirm_email: 'hal2@example.com' } });
      expect(r.response.status).toBe(502);
      expect((await asU.GET('/api/users/current/email')).data!.pending_email).toBeNull();
    } finally {
      await h2.close();
      await refusing.close();
    }
  }, 60_000);
});
