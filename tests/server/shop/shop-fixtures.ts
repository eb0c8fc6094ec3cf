// What the shop tests share: a session token as the platform's admin mints it for a staff user of a shop, and
// that staff user signed in (their first request creates the account and joins the shop's Teamspace).
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { expect } from 'vitest';
import type { Harness } from '../harness';
import { typedClient } from '../typed-client';

export function shopSessionToken(
  app: { key: string; secret: string },
  shop: string,
  sub: string,
  o: { exp?: number; secret?: string; ttlSec?: number } = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ dest: `https://${shop}`, jti: randomUUID(), sid: `s-${sub}` })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setAudience(app.key)
    .setIssuer(`https://${shop}/admin`)
    .setSubject(sub)
    .setIssuedAt(now)
    .setNotBefore(now)
    .setExpirationTime(o.exp ?? now + (o.ttlSec ?? 600))
    .sign(new TextEncoder().encode(o.secret ?? app.secret));
}

/** A staff user of the shop opens the app: their session token and user id. */
export async function shopStaff(h: Harness, app: { key: string; secret: string }, shop: string, sub: string): Promise<{ token: string; id: string }> {
  const token = await shopSessionToken(app, shop, sub);
  const r = await typedClient(h, token).GET('/api/users/current');
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  return { token, id: r.data!.id };
}
