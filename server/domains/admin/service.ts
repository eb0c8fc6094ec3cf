// Admin rules: user search/export, plan grants, activation and superuser flags (superusers only).
import { ADMIN_LIST_LIMIT } from '../../../contract/constants';
import type { PlanTier } from '../../../contract/features';
import type { AdminUser } from '../../../contract/schemas/user';
import type { Db } from '../../db/index';
import { DomainError, notFound } from '../../errors';
import type { UserRow } from '../../caller';
import { planNameOf, planTierOf, subscriptionView } from '../billing/plan';
import { applyPlan, removeSubscription } from '../billing/subscriptions';
import { invalidateAccount } from '../users/cache';
import { updateUserFlags } from '../users/repository';
import * as repo from './repository';

export const TEXTS = {
  userNotFound: 'User not found',
  selfChange: 'You cannot remove your own admin access or deactivate yourself',
} as const;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface UserQuery {
  email?: string;
  date_gt?: string;
  date_lt?: string;
  subscription_type?: PlanTier;
  limit?: number;
}

export function adminUserView(r: repo.AdminUserRow): AdminUser {
  return {
    id: r.id,
    email: r.email,
    email_type: r.email_type,
    is_active: r.is_active,
    is_superuser: r.is_superuser,
    created_date: new Date(r.created_date).toISOString(),
    plan: planTierOf(r.sub),
    plan_name: planNameOf(r.sub),
    subscription: subscriptionView(r.sub),
    minutes: { total: r.minutes_total, used: r.minutes_used },
  };
}

function filterOf(q: UserQuery, limit: number | null): repo.AdminUserFilter {
  return {
    email: q.email || undefined,
    dateGt: q.date_gt,
    dateLt: q.date_lt,
    subscriptionType: q.subscription_type,
    limit,
  };
}

export async function listUsers(db: Db, q: UserQuery): Promise<AdminUser[]> {
  const rows = await repo.searchUsers(db, filterOf(q, q.limit ?? ADMIN_LIST_LIMIT));
  return rows.map(adminUserView);
}

export const CSV_COLUMNS = [
  'id', 'email', 'email_type', 'created_date', 'is_active', 'is_superuser', 'plan', 'plan_name',
  'subscription_id', 'subscription_status', 'current_period_end', 'minutes_total', 'minutes_used',
] as const;

/** One page of the CSV export of the same search (every match unless a limit is given), streamed by the route. */
export async function usersCsvPage(
  db: Db,
  q: UserQuery,
  cursor: { createdDate: string; id: string; left: number | null } | null,
  pageRows: number,
): Promise<{ rows: unknown[][]; next: { createdDate: string; id: string; left: number | null } | null }> {
  const left = cursor ? cursor.left : (q.limit ?? null);
  const take = left === null ? pageRows : Math.min(pageRows, left);
  if (take <= 0) return { rows: [], next: null };
  const raw = await repo.searchUsers(db, { ...filterOf(q, take), after: cursor ? { createdDate: cursor.createdDate, id: cursor.id } : undefined });
  const rows = raw.map(adminUserView).map((u) => [
    u.id, u.email, u.email_type, u.created_date, u.is_active, u.is_superuser, u.plan, u.plan_name,
    u.subscription?.id ?? '', u.subscription?.status ?? '', u.subscription?.current_period_end ?? '',
    u.minutes.total, u.minutes.used,
  ]);
  const last = raw[raw.length - 1];
  const remaining = left === null ? null : left - raw.length;
  const next = raw.length < take || !last || remaining === 0
    ? null
    : { createdDate: last.created_key, id: last.id, left: remaining };
  return { rows, next };
}

/**
 * PATCH /api/admin/users/{id}: plan -> subscription (active, one month) plus the plan's monthly minutes on the
 * user's default space ('trial' removes the subscription); is_active; is_superuser.
 */
export async function updateUser(
  db: Db,
  actor: UserRow,
  id: string,
  p: { plan?: PlanTier; is_active?: boolean; is_superuser?: boolean },
  now: Date = new Date(),
): Promise<AdminUser> {
  if (!UUID_RE.test(id)) throw notFound(TEXTS.userNotFound);
  if (id === actor.id && (p.is_active === false || p.is_superuser === false)) throw new DomainError('bad_request', TEXTS.selfChange);
  await db.tx(async (t) => {
    const target = await repo.lockUser(t, id);
    if (!target) throw notFound(TEXTS.userNotFound);
    if (p.plan === 'trial') {
      await removeSubscription(t, id);
    } else if (p.plan !== undefined) {
      // The local provider: a one-month plan, renewed each month by the billing clock, its minutes credited.
      await applyPlan(t, { userId: id, tier: p.plan, interval: 'month', provider: 'local', now });
    }
    if (p.is_active !== undefined || p.is_superuser !== undefined) {
      await updateUserFlags(t, id, { isActive: p.is_active, isSuperuser: p.is_superuser });
    }
  });
  invalidateAccount(db);
  const row = await repo.findAdminUser(db, id);
  if (!row) throw notFound(TEXTS.userNotFound);
  return adminUserView(row);
}
