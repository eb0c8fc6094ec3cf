// All SQL of the admin area: user search over users + subscriptions + default-space minutes.
import type { Db, SqlParam } from '../../db/index';
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

interface Flat {
  id: string;
  email: string;
  email_type: string;
  is_active: boolean;
  is_superuser: boolean;
  created_date: Date | string;
  created_key: string;
  minutes_total: number | string;
  minutes_used: number | string;
  s_id: string | null;
  s_tier: string | null;
  s_status: string | null;
  s_interval: string | null;
  s_price_id: string | null;
  s_product_id: string | null;
  s_period_end: Date | string | null;
  s_paused: boolean | null;
  s_cancel: boolean | null;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

export async function searchUsers(db: Db, f: AdminUserFilter): Promise<AdminUserRow[]> {
  const params: SqlParam[] = [];
  const where: string[] = [];
  const p = (x: SqlParam) => {
    params.push(x);
    return `$${params.length}`;
  };
  if (f.id) where.push(`u.id = ${p(f.id)}::uuid`);
  if (f.email) where.push(`u.email ILIKE ${p(`%${likeEscape(f.email.toLowerCase())}%`)} ESCAPE '\\'`);
  if (f.dateGt) where.push(`u.created_date > ${p(f.dateGt)}::timestamptz`);
  if (f.dateLt) where.push(`u.created_date < ${p(f.dateLt)}::timestamptz`);
  if (f.subscriptionType === 'trial') where.push('s.id IS NULL');
  else if (f.subscriptionType === 'free') where.push(`(s.tier = 'free' OR s.id LIKE '%free\\_sub%' ESCAPE '\\')`);
  else if (f.subscriptionType) where.push(`s.tier = ${p(f.subscriptionType)} AND s.id NOT LIKE '%free\\_sub%' ESCAPE '\\'`);
  if (f.after) where.push(`(u.created_date, u.id) < (${p(f.after.createdDate)}::timestamptz, ${p(f.after.id)}::uuid)`);
  const limit = f.limit === null ? '' : `LIMIT ${p(f.limit)}`;
  const rows = await db.query<Flat>(
    `SELECT u.id, u.email, u.email_type, u.is_active, u.is_superuser, u.created_date, u.created_date::text AS created_key,
            COALESCE(bal.credited, 0) AS minutes_total, COALESCE(bal.used, 0) AS minutes_used,
            s.id AS s_id, s.tier AS s_tier, s.status AS s_status, s.interval AS s_interval, s.price_id AS s_price_id,
            s.product_id AS s_product_id, s.current_period_end AS s_period_end,
            s.payments_collection_paused AS s_paused, s.cancel_at_period_end AS s_cancel
     FROM users u
     LEFT JOIN subscriptions s ON s.user_id = u.id
     LEFT JOIN spaces sp ON sp.owner_id = u.id AND sp.is_default
     LEFT JOIN LATERAL (
       SELECT COALESCE(SUM(l.minutes) FILTER (WHERE l.kind IN ('grant', 'purchase', 'refill')), 0)::float8 AS credited,
              COALESCE(-SUM(l.minutes) FILTER (WHERE l.kind IN ('debit', 'refund', 'expire')), 0)::float8 AS used
       FROM minutes_ledger l WHERE l.space_id = sp.id AND l.bucket = 'minutes'
     ) bal ON true
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY u.created_date DESC, u.id DESC
     ${limit}`,
    params,
  );
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
  return db.maybeOne('SELECT id, identity_id FROM users WHERE id = $1 FOR UPDATE', [id]);
}
