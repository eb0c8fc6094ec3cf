// Short-lived in-process caches of account lookups on the hot path of every request.
// Entries live ACCOUNT_CACHE_MS at most, so a change made by another instance (is_active=false, a new
// subscription...) is enforced within that time; writers in this process invalidate at once.
// The caches belong to the app of the database they cache (Db.state, server/cache: made with it and shared by its
// transaction handles): two apps in one process (tests, a worker beside the API) never share or leak entries.
import { namespace } from '../../cache/index';
import type { Db } from '../../db/index';
import type { UserRow } from '../../caller';
import type { SubscriptionRow } from '../billing/types';

export const ACCOUNT_CACHE_MS = 1500;
const MAX_ENTRIES = 10_000;

interface AccountCaches {
  /** identity id -> account */
  users: Map<string, { user: UserRow; at: number }>;
  /** user id -> subscription (null = none) */
  subs: Map<string, { sub: SubscriptionRow | null; at: number }>;
  /** embedded subject (shopHost|sub) -> identity id + e-mail, set once the account exists */
  embed: Map<string, { identityId: string; email: string; at: number }>;
}

const ACCOUNTS = namespace<AccountCaches>('accounts', () => ({ users: new Map(), subs: new Map(), embed: new Map() }));
const caches = (db: Db): AccountCaches => db.state.of(ACCOUNTS);

function put<K, V>(m: Map<K, V>, k: K, v: V): void {
  if (m.size >= MAX_ENTRIES && !m.has(k)) {
    const first = m.keys().next();
    if (!first.done) m.delete(first.value);
  }
  m.set(k, v);
}

export async function cachedUserByIdentity(db: Db, identityId: string, load: (identityId: string) => Promise<UserRow | null>): Promise<UserRow | null> {
  const { users } = caches(db);
  const hit = users.get(identityId);
  const now = Date.now();
  if (hit && now - hit.at < ACCOUNT_CACHE_MS) return hit.user;
  const user = await load(identityId);
  if (user) put(users, identityId, { user, at: now });
  else users.delete(identityId);
  return user;
}

export async function cachedSubscription(db: Db, userId: string, load: (userId: string) => Promise<SubscriptionRow | null>): Promise<SubscriptionRow | null> {
  const { subs } = caches(db);
  const hit = subs.get(userId);
  const now = Date.now();
  if (hit && now - hit.at < ACCOUNT_CACHE_MS) return hit.sub;
  const sub = await load(userId);
  put(subs, userId, { sub, at: now });
  return sub;
}

export function invalidateSubscription(db: Db, userId: string): void {
  caches(db).subs.delete(userId);
}

/** Forget one identity's cached account (and its embedded mapping), or every cached account. */
export function invalidateAccount(db: Db, identityId?: string): void {
  const { users, subs, embed } = caches(db);
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
export function cachedEmbedIdentity(db: Db, subject: string): { identityId: string; email: string } | null {
  const hit = caches(db).embed.get(subject);
  if (!hit || Date.now() - hit.at >= EMBED_CACHE_MS) return null;
  return hit;
}
export function rememberEmbedIdentity(db: Db, subject: string, v: { identityId: string; email: string }): void {
  put(caches(db).embed, subject, { ...v, at: Date.now() });
}
