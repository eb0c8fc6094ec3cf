// Sign-in throttling, stored in auth_failures (shared by every instance): per address (any account), per account
// from one address (so strangers cannot lock the owner out of their own address), and a slower per-account limit
// from all addresses together.
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TEXT } from '../../../contract/errors';
import { createApp } from '../../../server/app/app';
import { createHarness, type Harness } from '../harness';
import { signUp, TEST_PASSWORD } from '../helpers';
import { typedClient } from '../typed-client';

const signIn = (h: Harness, email: string, password: string, ip?: string) =>
  typedClient(h, null, ip ? { 'x-forwarded-for': ip } : {}).POST('/api/auth/sign-in', { body: { email, password } });

describe('behind a trusted proxy', () => {
  let h: Harness;
  beforeAll(async () => {
    // The defaults (20 per address, 5 per account and address, 50 per account from all addresses), a 600 s window.
    h = await createHarness({ LOGIN_WINDOW_SECONDS: '600', TRUST_PROXY: '1' });
    await signUp(h, 'ivy@example.com');
    await signUp(h, 'jon@example.com');
  });
  afterAll(async () => {
    await h?.close();
  });
  beforeEach(async () => {
    await h.deps.db.query('DELETE FROM auth_failures');
  });

  it('5 failures from address A lock the account out from A only: the owner signs in from address B', async () => {
    for (let i = 0; i < 5; i++) expect((await signIn(h, 'ivy@example.com', 'bad-pass', '203.0.113.10')).response.status).toBe(401);
    const blocked = await signIn(h, 'ivy@example.com', TEST_PASSWORD, '203.0.113.10');
    expect(blocked.response.status).toBe(429);
    expect(blocked.error).toEqual({ detail: TEXT.tooManyAttempts });
    const wait = Number(blocked.response.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(500);
    expect(wait).toBeLessThanOrEqual(600);
    // The owner, from their usual address, is not locked out by the stranger...
    expect((await signIn(h, 'ivy@example.com', TEST_PASSWORD, '198.51.100.20')).response.status).toBe(200);
    // ...and the stranger's address still is (a success elsewhere does not lift it).
    expect((await signIn(h, 'ivy@example.com', TEST_PASSWORD, '203.0.113.10')).response.status).toBe(429);
    // Another account from address A is not affected.
    expect((await signIn(h, 'jon@example.com', TEST_PASSWORD, '203.0.113.10')).response.status).toBe(200);
  });

  /** Runs `fn` with a global per-account limit of 12 (the default, 50, checked first: fewer argon2 checks). */
  async function withGlobalLimit12(fn: () => Promise<void>): Promise<void> {
    const l = h.deps.config.loginLimits;
    expect(l.accountGlobal).toBe(50);
    l.accountGlobal = 12;
    try {
      await fn();
    } finally {
      l.accountGlobal = 50;
    }
  }

  it('the slower global limit: failures of an account from many addresses (none reaching 5) lock it out everywhere', () => withGlobalLimit12(async () => {
    for (let i = 0; i < 12; i++) {
      expect((await signIn(h, 'ivy@example.com', 'bad-pass', `10.9.${Math.floor(i / 4)}.${i % 4}`)).response.status, `failure ${i + 1}`).toBe(401);
    }
    const blocked = await signIn(h, 'ivy@example.com', TEST_PASSWORD, '198.51.100.20');
    expect(blocked.response.status).toBe(429);
    expect(blocked.error).toEqual({ detail: TEXT.tooManyAttempts });
    expect(Number(blocked.response.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other accounts, from the same addresses, are not.
    expect((await signIn(h, 'jon@example.com', TEST_PASSWORD, '10.9.0.1')).response.status).toBe(200);
  }));

  it('one failure fewer than the global limit, from many addresses, still lets the owner in', () => withGlobalLimit12(async () => {
    for (let i = 0; i < 11; i++) expect((await signIn(h, 'ivy@example.com', 'bad-pass', `10.8.${i}.1`)).response.status).toBe(401);
    expect((await signIn(h, 'ivy@example.com', TEST_PASSWORD, '198.51.100.20')).response.status).toBe(200);
  }));

  it('blocks an address after too many failures across accounts, using the proxy-appended X-Forwarded-For entry', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await signIn(h, `nobody${i}@example.com`, 'bad-pass', `1.2.3.${i}, 192.0.2.7`)).response.status).toBe(401);
    }
    const blocked = await signIn(h, 'jon@example.com', TEST_PASSWORD, '6.6.6.6, 192.0.2.7');
    expect(blocked.response.status).toBe(429);
    // The client-controlled left-most entry does not matter; a different proxy-seen address is fine.
    expect((await signIn(h, 'jon@example.com', TEST_PASSWORD, '1.2.3.4, 192.0.2.8')).response.status).toBe(200);
    const keys = (await h.deps.db.query<{ key: string }>('SELECT DISTINCT key FROM auth_failures')).map((r) => r.key);
    expect(keys).toContain('ip:192.0.2.7');
    expect(keys).toContain('acctip:192.0.2.7/nobody0@example.com');
    expect(keys.filter((k) => k.includes('1.2.3.'))).toEqual([]);
  });

  it('a successful sign-in clears the failures of the account from that address', async () => {
    for (let i = 0; i < 4; i++) expect((await signIn(h, 'ivy@example.com', 'bad-pass', '10.1.0.1')).response.status).toBe(401);
    expect((await signIn(h, 'ivy@example.com', TEST_PASSWORD, '10.1.0.1')).response.status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await signIn(h, 'ivy@example.com', 'bad-pass', '10.1.0.1')).response.status).toBe(401);
    expect((await signIn(h, 'ivy@example.com', TEST_PASSWORD, '10.1.0.1')).response.status).toBe(200);
  });

  it('failures recorded by one instance block sign-ins on another instance', async () => {
    const other = createApp(h.deps, { distDir: null, log: () => {} });
    for (let i = 0; i < 5; i++) expect((await signIn(h, 'ivy@example.com', 'bad-pass', '10.3.0.1')).response.status).toBe(401);
    const r = await other.request('/api/auth/sign-in', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '10.3.0.1' },
      body: JSON.stringify({ email: 'ivy@example.com', password: TEST_PASSWORD }),
    });
    expect(r.status).toBe(429);
  });

  it('lets the account in again once the failures leave the window', async () => {
    for (let i = 0; i < 5; i++) expect((await signIn(h, 'ivy@example.com', 'bad-pass', '10.4.0.1')).response.status).toBe(401);
    expect((await signIn(h, 'ivy@example.com', TEST_PASSWORD, '10.4.0.1')).response.status).toBe(429);
    await h.deps.db.query(`UPDATE auth_failures SET at = at - interval '601 seconds'`);
    expect((await signIn(h, 'ivy@example.com', TEST_PASSWORD, '10.4.0.1')).response.status).toBe(200);
  });
});

describe('without a trusted proxy', () => {
  let h: Harness;
  let server: ReturnType<typeof serve>;
  let base: string;
  beforeAll(async () => {
    h = await createHarness({ LOGIN_MAX_FAILURES_IP: '3', LOGIN_MAX_FAILURES_ACCOUNT: '50' });
    await signUp(h, 'kim@example.com');
    await new Promise<void>((resolve) => {
      server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => server?.close(r));
    await h?.close();
  });

  it('keys failures on the socket address and ignores a spoofed X-Forwarded-For', async () => {
    const post = (email: string, password: string, xff: string) =>
      fetch(`${base}/api/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': xff },
        body: JSON.stringify({ email, password }),
      });
    for (let i = 0; i < 3; i++) expect((await post(`x${i}@example.com`, 'bad-pass', `203.0.113.${i}`)).status).toBe(401);
    const keys = (await h.deps.db.query<{ key: string }>('SELECT DISTINCT key FROM auth_failures WHERE key LIKE $1', ['ip:%'])).map((r) => r.key);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^ip:(::ffff:)?127\.0\.0\.1$/);
    const blocked = await post('kim@example.com', TEST_PASSWORD, '198.51.100.1');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
