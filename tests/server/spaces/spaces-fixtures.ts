// Fixtures for the Teamspaces tests: accounts made the way POST /api/users makes them (identity, user,
// default space, claimed invites) and plans written as subscriptions (what a superuser's grant writes).
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { signAccessToken } from '../../../server/domains/auth/tokens';
import { upsertSubscription } from '../../../server/domains/billing/repository';
import { claimInvites, ensureDefaultSpace } from '../../../server/domains/spaces/service';
import type { Harness } from '../harness';
import { typedClient } from '../typed-client';

export interface TestUser {
  id: string;
  email: string;
  token: string;
  defaultSpaceId: string;
  claimed: string[];
}

export async function makeUser(h: Harness, email: string, opts: { superuser?: boolean } = {}): Promise<TestUser> {
  const db = h.deps.db;
  const identity = await db.one<{ id: string }>(
    `INSERT INTO identities (provider, subject, email) VALUES ('password', $1, $1) RETURNING id`,
    [email.toLowerCase()],
  );
  const user = await db.one<{ id: string; email: string }>(
    `INSERT INTO users (identity_id, email, is_superuser) VALUES ($1, $2, $3) RETURNING id, email`,
    [identity.id, email.toLowerCase(), opts.superuser ?? false],
  );
  const space = await ensureDefaultSpace(db, user);
  const claimed = await claimInvites(db, user);
  const token = await signAccessToken(h.config.jwtSecret, 3600, { sub: identity.id, email: user.email, provider: 'password' });
  return { id: user.id, email: user.email, token, defaultSpaceId: space.id, claimed };
}

export async function grantPlan(
  h: Harness,
  userId: string,
  tier: string,
  opts: { status?: string; periodEnd?: Date | null } = {},
): Promise<void> {
  await upsertSubscription(h.deps.db, {
    id: `sub_${randomUUID()}`,
    userId,
    tier,
    status: opts.status ?? 'active',
    interval: 'month',
    currentPeriodEnd: opts.periodEnd === undefined ? new Date(Date.now() + 30 * 24 * 3600 * 1000) : opts.periodEnd,
  });
}

export async function createSpace(h: Harness, u: TestUser, name: string, color = 'ocean', emails: string[] = []) {
  const r = await typedClient(h, u.token).POST('/api/space/create', { body: { data: { name, color }, emails } });
  expect({ status: r.response.status, json: r.error }, 'POST /api/space/create').toMatchObject({ status: 201 });
  return r.data!;
}
