// Embedded-app session tokens: verification (HS256, aud, exp/nbf, iss/dest/sub) and first-sight accounts.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from '../harness';
import { signUpAndCreate } from '../helpers';
import { typedClient } from '../typed-client';

const KEY = 'embed-app-key-123';
const SECRET = 'embed-app-secret-abcdefghijklmnop';
const SHOP = 'https://demo-shop.myshopify.com';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ EMBED_APP_KEY: KEY, EMBED_APP_SECRET: SECRET, EMBED_ADMIN_ORIGINS: 'https://admin.example.com' });
});
afterAll(async () => {
  await h?.close();
});

interface Opts {
  sub?: string | null;
  dest?: string | null;
  iss?: string | null;
  aud?: string;
  secret?: string;
  exp?: number;
  nbf?: number;
  email?: string;
}
async function sessionToken(o: Opts = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const dest = o.dest === undefined ? SHOP : o.dest;
  const claims: Record<string, unknown> = { jti: crypto.randomUUID(), sid: 'session-1' };
  if (dest !== null) claims.dest = dest;
  if (o.email) claims.email = o.email;
  let jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(o.aud ?? KEY)
    .setIssuedAt(now)
    .setNotBefore(o.nbf ?? now)
    .setExpirationTime(o.exp ?? now + 60);
  const iss = o.iss === undefined ? (dest === null ? `${SHOP}/admin` : `${dest}/admin`) : o.iss;
  if (iss !== null) jwt = jwt.setIssuer(iss);
  const sub = o.sub === undefined ? '42' : o.sub;
  if (sub !== null) jwt = jwt.setSubject(sub);
  return jwt.sign(new TextEncoder().encode(o.secret ?? SECRET));
}

/** GET /api/users/current with a session token (the account is made on first sight). */
const current = (token: string, hh = h) => typedClient(hh, token).GET('/api/users/current');

describe('embedded session tokens', () => {
  it('creates the account (and default space) on first sight and maps shop + sub to one identity', async () => {
    const token = await sessionToken({ sub: '42' });
    const r = await current(token);
    expect(r.response.status).toBe(200);
    const user = r.data!;
    expect(user.email).toBe('42@demo-shop.myshopify.com');
    expect(user.email_type).toBe('embed');
    const identity = await h.deps.db.one<{ id: string; provider: string; subject: string }>(
      'SELECT id, provider, subject FROM identities WHERE id = $1',
      [user.cognitoId],
    );
    expect(identity).toMatchObject({ provider: 'embed', subject: 'demo-shop.myshopify.com|42' });
    const spaces = await h.deps.db.query('SELECT id FROM spaces WHERE owner_id = $1 AND is_default', [user.id]);
    expect(spaces).toHaveLength(1);
    // Same user, fresh token: same account.
    const again = await current(await sessionToken({ sub: '42' }));
    expect(again.data!.id).toBe(user.id);
  });

  it('is idempotent under concurrent first requests', async () => {
    const tokens = await Promise.all(Array.from({ length: 6 }, () => sessionToken({ sub: '777' })));
    const rs = await Promise.all(tokens.map((token) => current(token)));
    for (const r of rs) expect(r.response.status).toBe(200);
    expect(new Set(rs.map((r) => r.data!.id)).size).toBe(1);
    const n = await h.deps.db.one<{ i: number; u: number; s: number }>(
      `SELECT (SELECT count(*)::int FROM identities WHERE subject = 'demo-shop.myshopify.com|777') AS i,
              (SELECT count(*)::int FROM users WHERE email = '777@demo-shop.myshopify.com') AS u,
              (SELECT count(*)::int FROM spaces s JOIN users u ON u.id = s.owner_id WHERE u.email = '777@demo-shop.myshopify.com') AS s`,
    );
    expect(n).toEqual({ i: 1, u: 1, s: 1 });
  });

  it('uses the email claim when present, and falls back to the shop address when it belongs to someone else', async () => {
    const a = await current(await sessionToken({ sub: '100', email: 'Owner@Shop.example' }));
    expect(a.data!.email).toBe('owner@shop.example');
    await signUpAndCreate(h, 'taken@example.com');
    const b = await current(await sessionToken({ sub: '101', email: 'taken@example.com' }));
    expect(b.response.status).toBe(200);
    expect(b.data!.email).toBe('101@demo-shop.myshopify.com');
  });

  it('keeps shops apart: the same sub in two shops is two accounts', async () => {
    const a = await current(await sessionToken({ sub: '5' }));
    const b = await current(await sessionToken({ sub: '5', dest: 'https://other-shop.myshopify.com' }));
    expect(a.response.status).toBe(200);
    expect(b.response.status).toBe(200);
    expect(a.data!.id).not.toBe(b.data!.id);
  });

  it('accepts a token within the 5 s clock tolerance', async () => {
    // The clock stands still (only Date is faked) so the token is exactly as old as written here when the server
    // checks it: on a loaded machine the seconds between signing and checking ate into the tolerance.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const now = Math.floor(Date.now() / 1000);
      const r = await current(await sessionToken({ exp: now - 2, nbf: now - 60 }));
      expect(r.response.status).toBe(200);
      const early = await current(await sessionToken({ nbf: now + 2 }));
      expect(early.response.status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects tampered, expired, wrong-audience, not-yet-valid and malformed session tokens with 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = await sessionToken({ sub: '900' });
    const [hd, pl, sig] = good.split('.');
    const body = JSON.parse(Buffer.from(pl, 'base64url').toString());
    const tampered = `${hd}.${Buffer.from(JSON.stringify({ ...body, sub: '901' })).toString('base64url')}.${sig}`;
    const cases: Record<string, string> = {
      tampered,
      expired: await sessionToken({ exp: now - 30, nbf: now - 120 }),
      wrongAudience: await sessionToken({ aud: 'another-app' }),
      notYetValid: await sessionToken({ nbf: now + 60, exp: now + 120 }),
      wrongSecret: await sessionToken({ secret: 'not-the-app-secret-not-the-app-secret' }),
      noSub: await sessionToken({ sub: null }),
      noDest: await sessionToken({ dest: null }),
      httpDest: await sessionToken({ dest: 'http://demo-shop.myshopify.com' }),
      destWithPath: await sessionToken({ dest: `${SHOP}/admin`, iss: `${SHOP}/admin` }),
      issMismatch: await sessionToken({ iss: 'https://evil.example/admin' }),
      noIss: await sessionToken({ iss: null }),
    };
    for (const [name, token] of Object.entries(cases)) {
      const r = await current(token);
      expect(r.response.status, name).toBe(401);
      expect(typeof r.error?.detail, name).toBe('string');
    }
    const expired = await current(cases.expired);
    expect(expired.error).toEqual({ detail: 'Token expired' });
    // Nothing was created for the rejected tokens.
    const n = await h.deps.db.one<{ n: number }>(`SELECT count(*)::int AS n FROM identities WHERE subject LIKE '%|90_'`);
    expect(n.n).toBe(0);
  });

  it('after the account is deleted, the next session token starts a fresh account', async () => {
    const token = await sessionToken({ sub: '555' });
    const first = await current(token);
    expect((await typedClient(h, token).DELETE('/api/users/current')).response.status).toBe(204);
    const next = await current(await sessionToken({ sub: '555' }));
    expect(next.response.status).toBe(200);
    expect(next.data!.id).not.toBe(first.data!.id);
  });
});

describe('without embedded configuration', () => {
  let plain: Harness;
  beforeAll(async () => {
    plain = await createHarness();
  });
  afterAll(async () => {
    await plain?.close();
  });
  it('session tokens are not accepted at all', async () => {
    const r = await current(await sessionToken(), plain);
    expect(r.response.status).toBe(401);
    expect(await plain.deps.db.query(`SELECT id FROM identities WHERE provider = 'embed'`)).toEqual([]);
  });
});
