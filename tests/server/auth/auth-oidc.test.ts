// OIDC social sign-in against a local fake provider (discovery, JWKS, token endpoint; RSA keys from jose).
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../harness';
import { typedClient } from '../typed-client';

const CLIENT_ID = 'studio-client';
const CLIENT_SECRET = 'studio-secret';

interface PendingCode {
  challenge: string;
  redirectUri: string;
  nonce: string;
  sub: string;
  email: string;
  claims: Record<string, unknown>;
  signWithOtherKey: boolean;
}

let provider: Server;
let issuer: string;
let signKey: CryptoKey;
let otherKey: CryptoKey;
let jwk: JWK;
const codes = new Map<string, PendingCode>();
const hits = { discovery: 0, token: 0, jwks: 0 };
let lastTokenRequest: { auth: string | undefined; body: URLSearchParams } | null = null;

async function startProvider(): Promise<void> {
  const kp = await generateKeyPair('RS256', { extractable: true });
  signKey = kp.privateKey as CryptoKey;
  otherKey = (await generateKeyPair('RS256')).privateKey as CryptoKey;
  jwk = { ...(await exportJWK(kp.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  provider = createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      hits.discovery++;
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
    }
    if (req.method === 'GET' && url.pathname === '/jwks') {
      hits.jwks++;
      return json(200, { keys: [jwk] });
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      hits.token++;
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', async () => {
        const body = new URLSearchParams(raw);
        lastTokenRequest = { auth: req.headers.authorization, body };
        // client_secret_basic: id and secret form-urlencoded, then base64 (RFC 6749 section 2.3.1).
        const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
        const [id, secret] = Buffer.from(basic ?? '', 'base64').toString().split(':').map((x) => decodeURIComponent(x.replace(/\+/g, ' ')));
        if (id !== CLIENT_ID || secret !== CLIENT_SECRET) return json(401, { error: 'invalid_client' });
        const code = body.get('code') ?? '';
        const pending = codes.get(code);
        codes.delete(code); // single use
        if (body.get('grant_type') !== 'authorization_code' || !pending) return json(400, { error: 'invalid_grant' });
        const verifier = body.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (challenge !== pending.challenge) return json(400, { error: 'invalid_grant', error_description: 'PKCE' });
        if (body.get('redirect_uri') !== pending.redirectUri) return json(400, { error: 'invalid_grant' });
        const idToken = await new SignJWT({ nonce: pending.nonce, email: pending.email, email_verified: true, ...pending.claims })
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setIssuer((pending.claims.iss as string) ?? issuer)
          .setAudience((pending.claims.aud as string) ?? CLIENT_ID)
          .setSubject(pending.sub)
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(pending.signWithOtherKey ? otherKey : signKey);
        return json(200, { access_token: 'provider-at', token_type: 'Bearer', id_token: idToken });
      });
      return;
    }
    json(404, { error: 'not_found' });
  });
  await new Promise<void>((r) => provider.listen(0, '127.0.0.1', () => r()));
  issuer = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
}

let h: Harness;
beforeAll(async () => {
  await startProvider();
  h = await createHarness({
    OIDC_ISSUER: issuer,
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_CLIENT_SECRET: CLIENT_SECRET,
    OIDC_NAME: 'Acme ID',
    PUBLIC_URL: 'https://studio.example',
  });
});
afterAll(async () => {
  await h?.close();
  await new Promise((r) => provider?.close(r));
});
beforeEach(() => {
  codes.clear();
});

/** GET /start; returns the authorization request parameters and the flow cookie. */
async function start(origin = '/projects?tab=all') {
  const r = (await typedClient(h).GET('/api/auth/oidc/start', { params: { query: { origin } } })).response;
  expect(r.status).toBe(302);
  const location = new URL(r.headers.get('location') ?? '');
  const setCookie = r.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0];
  return { location, params: location.searchParams, cookie, setCookie };
}

/** The provider's side of /authorize: remembers the request and hands back a code. */
function authorize(
  params: URLSearchParams,
  who: { sub: string; email: string; claims?: Record<string, unknown>; signWithOtherKey?: boolean; nonce?: string },
) {
  const code = randomUUID();
  codes.set(code, {
    challenge: params.get('code_challenge') ?? '',
    redirectUri: params.get('redirect_uri') ?? '',
    nonce: who.nonce ?? params.get('nonce') ?? '',
    sub: who.sub,
    email: who.email,
    claims: who.claims ?? {},
    signWithOtherKey: who.signWithOtherKey ?? false,
  });
  return code;
}

async function callback(query: { code?: string; state?: string; error?: string }, cookie: string | null) {
  const r = (await typedClient(h, null, cookie ? { cookie } : {}).GET('/api/auth/oidc/callback', { params: { query } })).response;
  expect(r.status).toBe(302);
  const location = r.headers.get('location') ?? '';
  const [path, fragment] = location.split('#');
  return { path, fragment: new URLSearchParams(fragment ?? ''), setCookie: r.headers.get('set-cookie') ?? '' };
}

describe('OIDC sign-in', () => {
  it('publishes its configuration', async () => {
    const r = await typedClient(h).GET('/api/auth/oidc/config');
    expect(r.response.status).toBe(200);
    expect(r.data).toEqual({ enabled: true, providers: [{ id: 'oidc', name: 'Acme ID' }] });
  });

  it('redirects to the authorization endpoint with PKCE, state and nonce, in a sealed browser-bound cookie', async () => {
    const { location, params, setCookie } = await start();
    expect(`${location.origin}${location.pathname}`).toBe(`${issuer}/authorize`);
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe(CLIENT_ID);
    expect(params.get('redirect_uri')).toBe('https://studio.example/api/auth/oidc/callback');
    expect(params.get('scope')).toBe('openid email profile');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(setCookie).toMatch(/^ds_oidc=/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('Secure');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).toContain('Path=/api/auth/oidc');
    // The cookie is encrypted: neither the state nor the verifier can be read from it.
    expect(setCookie).not.toContain(params.get('state') ?? '@@');
  });

  it('completes the flow: tokens in the fragment, identity oidc:<issuer host>, account creation works', async () => {
    const before = hits.discovery;
    const { params, cookie } = await start('/projects?tab=all');
    const code = authorize(params, { sub: 'user-1', email: 'Olga@Example.com' });
    const cb = await callback({ code, state: params.get('state') ?? '' }, cookie);
    expect(cb.path).toBe('https://studio.example/auth/callback');
    expect(cb.fragment.get('error')).toBeNull();
    expect(cb.fragment.get('origin')).toBe('/projects?tab=all');
    expect(cb.fragment.get('expires_in')).toBe(String(h.config.accessTokenTtl));
    expect(cb.setCookie).toMatch(/^ds_oidc=;/); // flow cookie cleared
    // The server sent the PKCE verifier and authenticated as the client.
    expect(lastTokenRequest?.body.get('code_verifier')).toBeTruthy();
    const access = cb.fragment.get('access_token') ?? '';
    const created = await typedClient(h, access).POST('/api/users', { body: { email: 'olga@example.com' } });
    expect(created.response.status).toBe(201);
    const olga = created.data!;
    expect(olga.email_type).toBe('oidc');
    const identity = await h.deps.db.one<{ provider: string; subject: string; email: string }>(
      'SELECT provider, subject, email FROM identities WHERE id = $1',
      [olga.cognitoId],
    );
    expect(identity).toEqual({ provider: `oidc:${new URL(issuer).host}`, subject: 'user-1', email: 'olga@example.com' });
    const refreshed = await typedClient(h).POST('/api/auth/refresh', { body: { refresh_token: cb.fragment.get('refresh_token') ?? '' } });
    expect(refreshed.response.status).toBe(200);
    // Signing in again maps to the same identity and account; discovery was fetched once and cached.
    const again = await start('/');
    const code2 = authorize(again.params, { sub: 'user-1', email: 'olga@example.com' });
    const cb2 = await callback({ code: code2, state: again.params.get('state') ?? '' }, again.cookie);
    const me = await typedClient(h, cb2.fragment.get('access_token')).GET('/api/users/current');
    expect(me.data!.id).toBe(olga.id);
    expect(hits.discovery - before).toBeLessThanOrEqual(1);
  });

  it('refuses absolute or scheme-relative origins (no open redirect)', async () => {
    for (const origin of ['https://evil.example/', '//evil.example', '/\\evil.example', 'javascript:alert(1)', 'projects']) {
      const r = await typedClient(h).GET('/api/auth/oidc/start', { params: { query: { origin } } });
      expect(r.response.status, origin).toBe(400);
      expect(r.error).toEqual({ detail: 'Invalid origin' });
    }
    const { params } = await start('/');
    expect(params.get('state')).toBeTruthy();
  });

  it('rejects a state that does not match the browser cookie, or a missing cookie', async () => {
    const a = await start('/a');
    const b = await start('/b');
    const code = authorize(a.params, { sub: 'user-2', email: 'p@example.com' });
    const crossed = await callback({ code, state: a.params.get('state') ?? '' }, b.cookie);
    expect(crossed.fragment.get('error')).toBe('Sign-in state mismatch. Please try again');
    expect(crossed.fragment.get('access_token')).toBeNull();
    const noCookie = await callback({ code, state: a.params.get('state') ?? '' }, null);
    expect(noCookie.fragment.get('error')).toBe('Sign-in session expired. Please try again');
    const forged = await callback({ code, state: a.params.get('state') ?? '' }, 'ds_oidc=eyJhbGciOiJkaXIifQ..x.y.z');
    expect(forged.fragment.get('error')).toBe('Sign-in session expired. Please try again');
  });

  it('reports a denial from the provider', async () => {
    const { params, cookie } = await start('/x');
    const r = await callback({ error: 'access_denied', state: params.get('state') ?? '' }, cookie);
    expect(r.fragment.get('error')).toBe('Sign-in was cancelled or denied');
    expect(r.fragment.get('origin')).toBe('/x');
  });

  it('rejects id_tokens with a wrong nonce, audience, issuer, signature or an unverified e-mail', async () => {
    const cases: Array<[string, Parameters<typeof authorize>[1], string]> = [
      ['nonce', { sub: 'u', email: 'n@example.com', nonce: 'not-the-nonce' }, 'Sign-in failed: invalid identity token'],
      ['audience', { sub: 'u', email: 'n@example.com', claims: { aud: 'someone-else' } }, 'Sign-in failed: invalid identity token'],
      ['issuer', { sub: 'u', email: 'n@example.com', claims: { iss: 'https://evil.example' } }, 'Sign-in failed: invalid identity token'],
      ['signature', { sub: 'u', email: 'n@example.com', signWithOtherKey: true }, 'Sign-in failed: invalid identity token'],
      ['unverified', { sub: 'u', email: 'n@example.com', claims: { email_verified: false } }, 'Sign-in failed: the provider did not share a verified email'],
    ];
    for (const [name, who, msg] of cases) {
      const { params, cookie } = await start('/');
      const code = authorize(params, who);
      const r = await callback({ code, state: params.get('state') ?? '' }, cookie);
      expect(r.fragment.get('error'), name).toBe(msg);
      expect(r.fragment.get('access_token'), name).toBeNull();
    }
    expect(await h.deps.db.query(`SELECT id FROM identities WHERE subject = 'u'`)).toEqual([]);
  });

  it('fails a replayed authorization code', async () => {
    const { params, cookie } = await start('/');
    const code = authorize(params, { sub: 'user-3', email: 'q@example.com' });
    const first = await callback({ code, state: params.get('state') ?? '' }, cookie);
    expect(first.fragment.get('access_token')).toBeTruthy();
    const replay = await callback({ code, state: params.get('state') ?? '' }, cookie);
    expect(replay.fragment.get('error')).toBe('Sign-in failed at the provider');
  });
});
