import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setAuthProvider } from '../../src/lib/auth/active';
import { createIdentityProvider, safeOrigin } from '../../src/lib/auth/identity';
import { STORAGE_KEYS } from '../../src/lib/storage';
import { fakeJwt } from './helpers';
import { server } from './msw';

let now = 1_700_000_000_000;
const provider = () => createIdentityProvider({ now: () => now, refreshAheadMs: 60_000 });
const tokens = (n: number, ttl = 900) => ({
  access_token: fakeJwt({ sub: 'idn', email: 'ana@example.com', provider: 'password', n }),
  refresh_token: `refresh-token-${n}`,
  expires_in: ttl,
});

describe('identity auth provider', () => {
  beforeEach(() => {
    now = 1_700_000_000_000;
  });
  afterEach(() => setAuthProvider(null));

  it('signs up, stores {access_token, refresh_token, expires_at} and reports the e-mail', async () => {
    let body: unknown;
    server.use(
      http.post('*/api/auth/sign-up', async ({ request }) => {
        body = await request.json();
        return HttpResponse.json(tokens(1), { status: 201 });
      }),
    );
    const p = provider();
    setAuthProvider(p);
    let changes = 0;
    p.subscribe(() => changes++);
    expect(p.isAuthenticated()).toBe(false);
    await p.signUp('ana@example.com', 'secret-1');
    expect(body).toEqual({ email: 'ana@example.com', password: 'secret-1' });
    expect(JSON.parse(localStorage.getItem(STORAGE_KEYS.authSession)!)).toEqual({
      access_token: tokens(1).access_token,
      refresh_token: 'refresh-token-1',
      expires_at: now + 900_000,
    });
    expect(p.isAuthenticated()).toBe(true);
    expect(p.getEmail()).toBe('ana@example.com');
    expect(changes).toBe(1);
    await expect(p.getToken()).resolves.toBe(tokens(1).access_token);
  });

  it('a wrong password rejects with the server text and stores nothing', async () => {
    server.use(http.post('*/api/auth/sign-in', () => HttpResponse.json({ detail: 'Incorrect email or password' }, { status: 401 })));
    const p = provider();
    await expect(p.signIn('ana@example.com', 'nope')).rejects.toMatchObject({ status: 401, message: 'Incorrect email or password' });
    expect(p.isAuthenticated()).toBe(false);
  });

  it('refreshes ahead of expiry once for parallel callers (single flight) and stores the rotated tokens', async () => {
    let refreshes = 0;
    let sent: unknown;
    // The refresh answer is held until the test releases it, so all three callers are surely waiting on it.
    let release!: () => void;
    const answered = new Promise<void>((r) => (release = r));
    server.use(
      http.post('*/api/auth/sign-in', () => HttpResponse.json(tokens(1))),
      http.post('*/api/auth/refresh', async ({ request }) => {
        refreshes++;
        sent = await request.json();
        await answered;
        return HttpResponse.json(tokens(2));
      }),
    );
    const p = provider();
    await p.signIn('ana@example.com', 'secret-1');
    now += 900_000 - 30_000; // 30 s before expiry: inside the 60 s refresh window
    const all = Promise.all([p.getToken(), p.getToken(), p.getToken()]);
    await vi.waitFor(() => expect(refreshes).toBe(1));
    release();
    const got = await all;
    expect(refreshes).toBe(1);
    expect(sent).toEqual({ refresh_token: 'refresh-token-1' });
    expect(new Set(got)).toEqual(new Set([tokens(2).access_token]));
    expect(JSON.parse(localStorage.getItem(STORAGE_KEYS.authSession)!).refresh_token).toBe('refresh-token-2');
  });

  it('a rejected refresh ends the session', async () => {
    server.use(
      http.post('*/api/auth/sign-in', () => HttpResponse.json(tokens(1))),
      http.post('*/api/auth/refresh', () => HttpResponse.json({ detail: 'Invalid refresh token' }, { status: 401 })),
    );
    const p = provider();
    await p.signIn('ana@example.com', 'secret-1');
    now += 900_000;
    await expect(p.getToken()).resolves.toBeNull();
    expect(p.isAuthenticated()).toBe(false);
  });

  it('keeps a still-valid token when the refresh cannot reach the server', async () => {
    server.use(
      http.post('*/api/auth/sign-in', () => HttpResponse.json(tokens(1))),
      http.post('*/api/auth/refresh', () => HttpResponse.error()),
    );
    const p = provider();
    await p.signIn('ana@example.com', 'secret-1');
    now += 900_000 - 10_000;
    await expect(p.getToken()).resolves.toBe(tokens(1).access_token);
    expect(p.isAuthenticated()).toBe(true);
  });

  it('sign-out revokes the refresh token and clears the session even if the call fails', async () => {
    let body: unknown;
    let auth: string | null = null;
    server.use(
      http.post('*/api/auth/sign-in', () => HttpResponse.json(tokens(1))),
      http.post('*/api/auth/sign-out', async ({ request }) => {
        body = await request.json();
        auth = request.headers.get('authorization');
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const p = provider();
    await p.signIn('ana@example.com', 'secret-1');
    await p.signOut();
    expect(body).toEqual({ refresh_token: 'refresh-token-1' });
    expect(auth).toBe(`Bearer ${tokens(1).access_token}`);
    expect(p.isAuthenticated()).toBe(false);

    server.use(http.post('*/api/auth/sign-out', () => HttpResponse.error()));
    await p.signIn('ana@example.com', 'secret-1');
    await p.signOut();
    expect(p.isAuthenticated()).toBe(false);
  });

  it('completes the OIDC redirect from the URL fragment and returns a safe origin', () => {
    const p = provider();
    const t = tokens(5);
    const origin = p.completeOidcCallback(
      `#access_token=${t.access_token}&refresh_token=${t.refresh_token}&expires_in=900&origin=${encodeURIComponent('/spaces/s1?page=2')}`,
    );
    expect(origin).toBe('/spaces/s1?page=2');
    expect(p.isAuthenticated()).toBe(true);
    expect(() => p.completeOidcCallback('#error=Sign-in%20was%20cancelled&origin=%2F')).toThrow('Sign-in was cancelled');
    expect(() => p.completeOidcCallback('#access_token=x')).toThrow('incomplete');
    expect(p.oidcStartUrl('/spaces/s1', 'oidc')).toBe('http://localhost:3000/api/auth/oidc/start?origin=%2Fspaces%2Fs1&provider=oidc');
  });

  it('only accepts in-app paths as origins', () => {
    expect(safeOrigin('/spaces/a')).toBe('/spaces/a');
    expect(safeOrigin('//evil.example/x')).toBe('/');
    expect(safeOrigin('https://evil.example')).toBe('/');
    expect(safeOrigin('/\\evil')).toBe('/');
    expect(safeOrigin('/auth?origin=/x')).toBe('/');
    expect(safeOrigin(null)).toBe('/');
  });
});
