import { verify } from '@node-rs/argon2';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TEXT } from '../../../contract/errors';
import { TokenResponse } from '../../../contract/schemas/auth';
import * as v from 'valibot';
import { signAccessToken } from '../../../server/domains/auth/tokens';
import { createHarness, type Harness } from '../harness';
import { api, signUp, signUpAndCreate, TEST_PASSWORD } from '../helpers';
import { issuesOf, typedClient } from '../typed-client';

// argon2's verify, spied on (the real one runs): shows which hash a sign-in verified against, without timing it.
vi.mock('@node-rs/argon2', async (importOriginal) => {
  const real = await importOriginal<typeof import('@node-rs/argon2')>();
  return { ...real, verify: vi.fn(real.verify) };
});

let h: Harness;
/** Requests without credentials. */
let anon: ReturnType<typeof typedClient>;
beforeAll(async () => {
  h = await createHarness();
  anon = typedClient(h);
});
afterAll(async () => {
  await h?.close();
});

describe('sign-up', () => {
  it('returns a bearer token pair and hashes the password with argon2id', async () => {
    const r = await anon.POST('/api/auth/sign-up', { body: { email: '  Ann@Example.com ', password: TEST_PASSWORD } });
    expect(r.response.status).toBe(201);
    expect(v.is(TokenResponse, r.data)).toBe(true);
    expect(r.data!.token_type).toBe('Bearer');
    expect(r.data!.expires_in).toBe(h.config.accessTokenTtl);
    expect(r.data!.refresh_token).not.toBe(r.data!.access_token);
    const row = await h.deps.db.one<{ email: string; password_hash: string }>(
      `SELECT email, password_hash FROM identities WHERE provider = 'password' AND subject = 'ann@example.com'`,
    );
    expect(row.email).toBe('ann@example.com');
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.password_hash).not.toContain(TEST_PASSWORD);
  });

  it('refuses an e-mail that already exists with 409', async () => {
    await signUp(h, 'dup@example.com');
    const r = await anon.POST('/api/auth/sign-up', { body: { email: 'DUP@example.com', password: 'other-pass' } });
    expect(r.response.status).toBe(409);
    expect(r.error).toEqual({ detail: 'An account with this email already exists' });
  });

  it('applies the password rules of the contract (422 with the texts)', async () => {
    const short = await anon.POST('/api/auth/sign-up', { body: { email: 'p1@example.com', password: 'abc' } });
    expect(short.response.status).toBe(422);
    expect(issuesOf(short.error)[0]).toMatchObject({ loc: ['body', 'password'], msg: TEXT.passwordTooShort });
    const spaced = await anon.POST('/api/auth/sign-up', { body: { email: 'p1@example.com', password: 'abc def ghi' } });
    expect(spaced.response.status).toBe(422);
    expect(issuesOf(spaced.error)[0]?.msg).toBe(TEXT.incorrectPassword);
    const cyr = await anon.POST('/api/auth/sign-up', { body: { email: 'p1@example.com', password: 'пароль123' } });
    expect(cyr.response.status).toBe(422);
    expect(issuesOf(cyr.error)[0]?.msg).toBe(TEXT.incorrectPassword);
  });

  it('answers malformed JSON and wrong field types with 422 detail lists', async () => {
    // Malformed on purpose: a raw body that is not JSON, and fields of the wrong types.
    const bad = await api(h, 'POST', '/api/auth/sign-up', { raw: '{"email": ', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(422);
    expect(bad.json.detail).toEqual([{ loc: ['body'], msg: 'Malformed JSON body', type: 'json_invalid' }]);
    const types = await api(h, 'POST', '/api/auth/sign-in', { body: { email: 42, password: ['x'] } });
    expect(types.status).toBe(422);
    const locs = types.json.detail.map((d: { loc: string[] }) => d.loc.join('.'));
    expect(locs).toEqual(expect.arrayContaining(['body.email', 'body.password']));
    for (const d of types.json.detail) expect(typeof d.msg).toBe('string');
    const email = await anon.POST('/api/auth/sign-up', { body: { email: 'not-an-email', password: TEST_PASSWORD } });
    expect(email.response.status).toBe(422);
    expect(issuesOf(email.error)[0]).toMatchObject({ loc: ['body', 'email'], msg: TEXT.incorrectEmail });
  });
});

describe('sign-in', () => {
  it('purges long-expired refresh tokens and old failures on a successful sign-in, at most hourly', async () => {
    const t = await signUp(h, 'purge@example.com');
    const stale = async () => {
      await h.deps.db.query(
        `INSERT INTO refresh_tokens (identity_id, family_id, token_hash, expires_at)
         SELECT id, gen_random_uuid(), md5(random()::text), now() - interval '2 days' FROM identities WHERE subject = 'purge@example.com'`,
      );
      await h.deps.db.query(`INSERT INTO auth_failures (key, at) VALUES ('ip:old', now() - interval '2 hours')`);
    };
    const counts = async () =>
      h.deps.db.one<{ r: number; f: number }>(
        `SELECT (SELECT count(*)::int FROM refresh_tokens WHERE expires_at < now() - interval '1 day') AS r,
                (SELECT count(*)::int FROM auth_failures WHERE key = 'ip:old') AS f`,
      );
    await stale();
    expect(await counts()).toEqual({ r: 1, f: 1 });
    expect((await anon.POST('/api/auth/sign-in', { body: { email: 'purge@example.com', password: TEST_PASSWORD } })).response.status).toBe(200);
    expect(await counts()).toEqual({ r: 0, f: 0 });
    await stale();
    expect((await anon.POST('/api/auth/sign-in', { body: { email: 'purge@example.com', password: TEST_PASSWORD } })).response.status).toBe(200);
    expect(await counts()).toEqual({ r: 1, f: 1 });
    // The live token is untouched.
    expect((await anon.POST('/api/auth/refresh', { body: { refresh_token: t.refresh_token } })).response.status).toBe(200);
    await h.deps.db.query(`DELETE FROM auth_failures WHERE key = 'ip:old'`);
  });

  it('signs in with the right password (e-mail case-insensitive)', async () => {
    await signUp(h, 'bob@example.com');
    const r = await anon.POST('/api/auth/sign-in', { body: { email: 'BOB@example.com', password: TEST_PASSWORD } });
    expect(r.response.status).toBe(200);
    expect(v.is(TokenResponse, r.data)).toBe(true);
    expect(r.response.headers.get('cache-control')).toBe('no-store');
  });

  it('gives the same generic 401 for a wrong password and an unknown e-mail', async () => {
    const wrong = await anon.POST('/api/auth/sign-in', { body: { email: 'bob@example.com', password: 'wrong-password' } });
    const unknown = await anon.POST('/api/auth/sign-in', { body: { email: 'nobody@example.com', password: 'wrong-password' } });
    expect(wrong.response.status).toBe(401);
    expect(unknown.response.status).toBe(401);
    expect(wrong.error).toEqual({ detail: TEXT.invalidCredentials });
    expect(unknown.error).toEqual({ detail: TEXT.invalidCredentials });
  });

  it('spends comparable time on unknown e-mails (dummy hash verification)', async () => {
    // Not timed (a loaded machine makes timings noise): an unknown e-mail runs one argon2 verification, against a
    // hash made with the same cost parameters as a stored one, so it costs what a known e-mail costs.
    const verifiedAgainst = async (email: string) => {
      vi.mocked(verify).mockClear();
      const r = await anon.POST('/api/auth/sign-in', { body: { email, password: 'wrong-password' } });
      expect(r.response.status).toBe(401);
      expect(verify).toHaveBeenCalledTimes(1);
      return String(vi.mocked(verify).mock.calls[0][0]);
    };
    const params = (hash: string) => hash.split('$').slice(1, 4).join('$'); // argon2id$v=19$m=..,t=..,p=..
    const stored = await h.deps.db.one<{ password_hash: string }>(`SELECT password_hash FROM identities WHERE subject = 'bob@example.com'`);
    expect(await verifiedAgainst('bob@example.com')).toBe(stored.password_hash);
    const dummy = await verifiedAgainst('ghost@example.com');
    expect(dummy).not.toBe(stored.password_hash);
    expect(params(dummy)).toBe(params(stored.password_hash));
    expect(params(dummy)).toMatch(/^argon2id\$v=19\$m=19456,t=2,p=1$/);
    await h.deps.db.query('DELETE FROM auth_failures');
  });
});

describe('access tokens', () => {
  it('rejects tampered, expired, wrong-audience and foreign-secret access tokens with 401', async () => {
    const { token } = await signUpAndCreate(h, 'carol@example.com');
    const me = (t: string) => typedClient(h, t).GET('/api/users/current');
    const ok = await me(token);
    expect(ok.response.status).toBe(200);

    const [hd, pl, sig] = token.split('.');
    const payload = JSON.parse(Buffer.from(pl, 'base64url').toString());
    const forged = `${hd}.${Buffer.from(JSON.stringify({ ...payload, sub: '00000000-0000-0000-0000-000000000000' })).toString('base64url')}.${sig}`;
    const sigFlip = `${hd}.${pl}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
    for (const bad of [forged, sigFlip, 'garbage', `${hd}.${pl}.`]) {
      const r = await me(bad);
      expect(r.response.status, bad).toBe(401);
      expect(r.error).toEqual({ detail: 'Invalid token' });
    }

    const expired = await signAccessToken(h.config.jwtSecret, -30, { sub: payload.sub, email: payload.email, provider: 'password' });
    const e = await me(expired);
    expect(e.response.status).toBe(401);
    expect(e.error).toEqual({ detail: 'Token expired' });

    const { SignJWT } = await import('jose');
    const key = new TextEncoder().encode(h.config.jwtSecret);
    const wrongAud = await new SignJWT({ email: payload.email, provider: 'password', typ: 'access' })
      .setProtectedHeader({ alg: 'HS256' }).setSubject(payload.sub).setIssuer('dubbing-studio')
      .setAudience('someone-else').setIssuedAt().setExpirationTime('5m').sign(key);
    expect((await me(wrongAud)).response.status).toBe(401);

    const foreign = await signAccessToken('another-secret-another-secret-another-1', 600, { sub: payload.sub, email: payload.email, provider: 'password' });
    expect((await me(foreign)).response.status).toBe(401);

    const none = await anon.GET('/api/users/current');
    expect(none.response.status).toBe(401);
    expect(none.response.headers.get('www-authenticate')).toBe('Bearer');
  });
});

describe('refresh tokens', () => {
  it('rotates: the new pair works, the old refresh token is consumed', async () => {
    const first = await signUp(h, 'dan@example.com');
    const r1 = await anon.POST('/api/auth/refresh', { body: { refresh_token: first.refresh_token } });
    expect(r1.response.status).toBe(200);
    expect(v.is(TokenResponse, r1.data)).toBe(true);
    expect(r1.data!.refresh_token).not.toBe(first.refresh_token);
    const r2 = await anon.POST('/api/auth/refresh', { body: { refresh_token: r1.data!.refresh_token } });
    expect(r2.response.status).toBe(200);
  });

  it('re-use of a consumed token revokes the whole family', async () => {
    const first = await signUp(h, 'eve@example.com');
    const r1 = await anon.POST('/api/auth/refresh', { body: { refresh_token: first.refresh_token } });
    expect(r1.response.status).toBe(200);
    const replay = await anon.POST('/api/auth/refresh', { body: { refresh_token: first.refresh_token } });
    expect(replay.response.status).toBe(401);
    expect(replay.error).toEqual({ detail: 'Refresh token already used' });
    // The legitimate successor is dead too.
    const successor = await anon.POST('/api/auth/refresh', { body: { refresh_token: r1.data!.refresh_token } });
    expect(successor.response.status).toBe(401);
    // Other sessions of the same person are untouched.
    const other = await anon.POST('/api/auth/sign-in', { body: { email: 'eve@example.com', password: TEST_PASSWORD } });
    expect((await anon.POST('/api/auth/refresh', { body: { refresh_token: other.data!.refresh_token } })).response.status).toBe(200);
  });

  it('rejects unknown and expired refresh tokens with 401', async () => {
    const unknown = await anon.POST('/api/auth/refresh', { body: { refresh_token: 'rt_thisTokenWasNeverIssued' } });
    expect(unknown.response.status).toBe(401);
    const t = await signUp(h, 'fay@example.com');
    await h.deps.db.query(
      `UPDATE refresh_tokens SET expires_at = now() - interval '1 second'
       WHERE identity_id = (SELECT id FROM identities WHERE subject = 'fay@example.com')`,
    );
    const expired = await anon.POST('/api/auth/refresh', { body: { refresh_token: t.refresh_token } });
    expect(expired.response.status).toBe(401);
    expect(expired.error).toEqual({ detail: 'Refresh token expired' });
    const short = await anon.POST('/api/auth/refresh', { body: { refresh_token: 'x' } });
    expect(short.response.status).toBe(422);
  });
});

describe('sign-out', () => {
  it('revokes the given refresh token family: refresh after sign-out is 401', async () => {
    const t = await signUp(h, 'gus@example.com');
    const rotated = await anon.POST('/api/auth/refresh', { body: { refresh_token: t.refresh_token } });
    const out = await anon.POST('/api/auth/sign-out', { body: { refresh_token: rotated.data!.refresh_token } });
    expect(out.response.status).toBe(204);
    const after = await anon.POST('/api/auth/refresh', { body: { refresh_token: rotated.data!.refresh_token } });
    expect(after.response.status).toBe(401);
  });

  it('with a bearer access token, revokes every refresh token of the identity', async () => {
    const a = await signUp(h, 'hal@example.com');
    const b = await anon.POST('/api/auth/sign-in', { body: { email: 'hal@example.com', password: TEST_PASSWORD } });
    const out = await typedClient(h, a.access_token).POST('/api/auth/sign-out', { body: {} });
    expect(out.response.status).toBe(204);
    expect((await anon.POST('/api/auth/refresh', { body: { refresh_token: a.refresh_token } })).response.status).toBe(401);
    expect((await anon.POST('/api/auth/refresh', { body: { refresh_token: b.data!.refresh_token } })).response.status).toBe(401);
  });

  it('is harmless without anything to revoke', async () => {
    const out = await anon.POST('/api/auth/sign-out', { body: {} });
    expect(out.response.status).toBe(204);
  });
});

describe('OIDC when not configured', () => {
  it('reports it disabled and refuses to start or complete a flow', async () => {
    const cfg = await anon.GET('/api/auth/oidc/config');
    expect(cfg.response.status).toBe(200);
    expect(cfg.data).toEqual({ enabled: false, providers: [] });
    const start = await anon.GET('/api/auth/oidc/start', { params: { query: { origin: '/' } } });
    expect(start.response.status).toBe(404);
    expect(start.error).toEqual({ detail: 'Social sign-in is not configured' });
    expect((await anon.GET('/api/auth/oidc/callback', { params: { query: { code: 'x', state: 'y' } } })).response.status).toBe(404);
  });
});
