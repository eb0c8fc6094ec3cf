// Short-lived in-process caches of account lookups on the hot path of every request.
// Entries live ACCOUNT_CACHE_MS at most, so a change made by another instance (is_active=false, a new
// subscription...) is enforced within that time; writers in this process invalidate at once.
// Keys are ids (UUIDs, unique across databases), so one module-wide cache serves every Db handle, including
// transaction handles.
import type { Db } from '../../db/index';
import type { UserRow } from '../../http/env';
import type { SubscriptionRow } from '../billing/repository';

export const ACCOUNT_CACHE_MS = 1500;
const MAX_ENTRIES = 10_000;

/** identity id -> account */
const users = new Map<string, { user: UserRow; at: number }>();
/** user id -> subscription (null = none) */
const subs = new Map<string, { sub: SubscriptionRow | null; at: number }>();
/** embedded subject (shopHost|sub) -> identity id + e-mail, set once the account exists */
const embed = new Map<string, { identityId: string; email: string; at: number }>();

function put<K, V>(m: Map<K, V>, k: K, v: V): void {
  if (m.size >= MAX_ENTRIES && !m.has(k)) {
    const first = m.keys().next();
    if (!first.done) m.delete(first.value);
  }
  m.set(k, v);
}

export async function cachedUserByIdentity(identityId: string, load: (identityId: string) => Promise<UserRow | null>): Promise<UserRow | null> {
  const hit = users.get(identityId);
  const now = Date.now();
  if (hit && now - hit.at < ACCOUNT_CACHE_MS) return hit.user;
  const user = await load(identityId);
  if (user) put(users, identityId, { user, at: now });
  else users.delete(identityId);
  return user;
}

export async function cachedSubscription(userId: string, load: (userId: string) => Promise<SubscriptionRow | null>): Promise<SubscriptionRow | null> {
  const hit = subs.get(userId);
  const now = Date.now();
  if (hit && now - hit.at < ACCOUNT_CACHE_MS) return hit.sub;
  const sub = await load(userId);
  put(subs, userId, { sub, at: now });
  return sub;
}

export function invalidateSubscription(userId: string): void {
  subs.delete(userId);
}

/**
 * Forget one identity's cached account (and its embedded mapping), or every cached account.
 * The Db-first form is accepted too (the caches are module-wide, so the handle does not matter).
 */
export function invalidateAccount(identityId?: string): void;
export function invalidateAccount(db: Db, identityId?: string): void;
export function invalidateAccount(a?: string | Db, b?: string): void {
  const identityId = typeof a === 'string' ? a : b;
  if (identityId === undefined) {
    users.clear();
    subs.clear();
    embed.clear();
    return;
  }
  const hit = users.get(identityId);
  if (hit) subs.delete(hit.user.id);
  users.delete(identityId);
  for (const [k, v] of embed) if (v.identityId === identityId) embed.delete(k);
}

export const EMBED_CACHE_MS = 5 * 60 * 1000;
export function cachedEmbedIdentity(subject: string): { identityId: string; email: string } | null {
  const hit = embed.get(subject);
  if (!hit || Date.now() - hit.at >= EMBED_CACHE_MS) return null;
  return hit;
}
export function rememberEmbedIdentity(subject: string, v: { identityId: string; email: string }): void {
  put(embed, subject, { ...v, at: Date.now() });
}
