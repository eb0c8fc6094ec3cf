// Shared helpers for server tests: accounts made through the real API (sign-up, then POST /api/users).
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import type { Db } from '../../server/db/index';
import type { User } from '../../contract/schemas/user';
import type { Harness } from './harness';
import { typedClient } from './typed-client';

export const TEST_PASSWORD = 'correct-horse-1';

export interface Json {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/**
 * One untyped request; the body parsed as JSON when it is JSON (text otherwise, null when empty). Only for what the
 * typed client (typed-client.ts) cannot send: bodies and queries the API document refuses (the 422s under test),
 * raw or signed bodies, and generic walks over every route; each server test that uses it says why in a comment.
 * The pipeline tests follow the same rule: their ordinary requests go through the typed client.
 */
export async function api(
  h: Harness,
  method: string,
  path: string,
  opts: { body?: unknown; token?: string | null; headers?: Record<string, string>; raw?: BodyInit } = {},
): Promise<Json> {
  const r = await h.request(method, path, opts);
  const text = await r.text();
  let json: unknown = null;
  if (text) {
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
  }
  return { status: r.status, headers: r.headers, json };
}

/** POST /api/auth/sign-up: the token pair. */
export async function signUp(h: Harness, email: string, password = TEST_PASSWORD) {
  const r = await typedClient(h).POST('/api/auth/sign-up', { body: { email, password } });
  expect(r.response.status, JSON.stringify(r.error)).toBe(201);
  return r.data!;
}

/**
 * Signs up `email` and creates its product account (default Teamspace included).
 * Returns the bearer token for `h.request(..., { token })`, the refresh token and the User.
 */
export async function signUpAndCreate(h: Harness, email: string, password = TEST_PASSWORD): Promise<{ token: string; refreshToken: string; user: User }> {
  const tokens = await signUp(h, email, password);
  const r = await typedClient(h, tokens.access_token).POST('/api/users', { body: { email, referral_id: null, token: null } });
  expect(r.response.status, JSON.stringify(r.error)).toBe(201);
  return { token: tokens.access_token, refreshToken: tokens.refresh_token, user: r.data! };
}

/**
 * Polls `fn` until `ok` holds: for a state that arrives by a timer (a cache entry expiring) or another process,
 * instead of sleeping for a guessed time. Fails with the last value after `timeoutMs`.
 */
export async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 15_000, what = 'the expected state'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last value: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** How many queries `db` was asked while `fn` ran. */
export async function queriesDuring(db: Db, fn: () => Promise<unknown>): Promise<number> {
  const spies = [vi.spyOn(db, 'query'), vi.spyOn(db, 'one'), vi.spyOn(db, 'maybeOne')];
  try {
    await fn();
    return spies.reduce((a, s) => a + s.mock.calls.length, 0);
  } finally {
    for (const s of spies) s.mockRestore();
  }
}

/** Every file under `dir`, recursively (none when it does not exist): what a refused upload must not leave. */
export function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
  } catch {
    return [];
  }
}
