// All SQL of the admin area: user search over users + subscriptions + default-space minutes.
import type { Db } from '../../db/index';
import { all, first, q, sql } from '../../db/sql';
import type { SubscriptionRow } from '../billing/repository';

export interface AdminUserFilter {
  id?: string;
  email?: string;
  dateGt?: string;
  dateLt?: string;
  subscriptionType?: string;
  limit: number | null;
  /** Keyset cursor: rows after this one in the list order (created_date DESC, id DESC). */
  after?: { createdDate: string; id: string };
}

export interface AdminUserRow {
  id: string;
  email: string;
  email_type: string;
  is_active: boolean;
  is_superuser: boolean;
  created_date: Date | string;
  /** created_date as exact text (microseconds kept): the keyset cursor of streamed exports. */
  created_key: string;
  minutes_total: number;
  minutes_used: number;
  sub: SubscriptionRow | null;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

export async function searchUsers(db: Db, f: AdminUserFilter): Promise<AdminUserRow[]> {
  let query = q
    .selectFrom('users as u')
    .leftJoin('subscriptions as s', 's.user_id', 'u.id')
    .leftJoin('spaces as sp', (j) => j.onRef('sp.owner_id', '=', 'u.id').on('sp.is_default', '=', true))
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('minutes_ledger as l')
          .select([
            sql<number>`COALESCE(SUM(l.minutes) FILTER (WHERE l.kind IN ('grant', 'purchase', 'refill')), 0)::float8`.as('credited'),
            sql<number>`COALESCE(-SUM(l.minutes) FILTER (WHERE l.kind IN ('debit', 'refund', 'expire')), 0)::float8`.as('used'),
          ])
          .whereRef('l.space_id', '=', 'sp.id')
          .where('l.bucket', '=', 'minutes')
          .as('bal'),
      (j) => j.onTrue(),
    )
    .select([
      'u.id',
      'u.email',
      'u.email_type',
      'u.is_active',
      'u.is_superuser',
      'u.created_date',
      sql<string>`u.created_date::text`.as('created_key'),
      sql<number>`COALESCE(bal.credited, 0)`.as('minutes_total'),
      sql<number>`COALESCE(bal.used, 0)`.as('minutes_used'),
      's.id as s_id',
      's.tier as s_tier',
      's.status as s_status',
      's.interval as s_interval',
      's.price_id as s_price_id',
      's.product_id as s_product_id',
      's.current_period_end as s_period_end',
      's.payments_collection_paused as s_paused',
      's.cancel_at_period_end as s_cancel',
    ]);
  if (f.id) query = query.where('u.id', '=', sql<string>`${f.id}::uuid`);
  if (f.email) query = query.where(sql<boolean>`u.email ILIKE ${`%${likeEscape(f.email.toLowerCase())}%`} ESCAPE '\\'`);
  if (f.dateGt) query = query.where('u.created_date', '>', sql<Date>`${f.dateGt}::timestamptz`);
  if (f.dateLt) query = query.where('u.created_date', '<', sql<Date>`${f.dateLt}::timestamptz`);
  if (f.subscriptionType === 'trial') query = query.where('s.id', 'is', null);
  else if (f.subscriptionType === 'free') query = query.where(sql<boolean>`(s.tier = 'free' OR s.id LIKE '%free\\_sub%' ESCAPE '\\')`);
  else if (f.subscriptionType) query = query.where('s.tier', '=', f.subscriptionType).where(sql<boolean>`s.id NOT LIKE '%free\\_sub%' ESCAPE '\\'`);
  if (f.after) query = query.where(sql<boolean>`(u.created_date, u.id) < (${f.after.createdDate}::timestamptz, ${f.after.id}::uuid)`);
  query = query.orderBy('u.created_date', 'desc').orderBy('u.id', 'desc');
  if (f.limit !== null) query = query.limit(f.limit);
  const rows = await all(db, query);
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    email_type: r.email_type,
    is_active: r.is_active,
    is_superuser: r.is_superuser,
    created_date: r.created_date,
    created_key: r.created_key,
    minutes_total: Number(r.minutes_total),
    minutes_used: Number(r.minutes_used),
    sub: r.s_id
      ? {
          id: r.s_id,
          user_id: r.id,
          tier: r.s_tier ?? 'free',
          status: r.s_status ?? 'canceled',
          interval: r.s_interval ?? 'month',
          price_id: r.s_price_id,
          product_id: r.s_product_id,
          current_period_end: r.s_period_end,
          payments_collection_paused: r.s_paused ?? false,
          cancel_at_period_end: r.s_cancel ?? false,
        }
      : null,
  }));
}

export async function findAdminUser(db: Db, id: string): Promise<AdminUserRow | null> {
  const rows = await searchUsers(db, { id, limit: 1 });
  return rows[0] ?? null;
}

/** Locks the user row for the rest of the transaction; null when missing. */
export function lockUser(db: Db, id: string): Promise<{ id: string; identity_id: string } | null> {
  return first(db, q.selectFrom('users').select(['id', 'identity_id']).where('id', '=', id).forUpdate());
}
