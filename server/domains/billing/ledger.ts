// The minutes ledger: every grant, purchase, monthly refill, debit, refund and expiry of a space is one row of
// minutes_ledger, written in the transaction of what caused it and idempotent by (space, bucket, kind, ref).
// Balances are sums over the rows; nothing is updated in place. Debits lock the space row first, so two
// debits at once are serialised and cannot overdraw.
import type { Credits } from '../../../contract/schemas/space';
import type { Db } from '../../db/index';
import { namespace } from '../../cache/index';
import { DomainError } from '../../errors';

export type Bucket = 'minutes' | 'lipsync_free';
export type EntryKind = 'grant' | 'purchase' | 'refill' | 'debit' | 'refund' | 'expire';
const NEGATIVE: ReadonlySet<EntryKind> = new Set(['debit', 'expire']);

export interface LedgerEntry {
  id: string;
  space_id: string;
  bucket: Bucket;
  kind: EntryKind;
  minutes: number;
  ref: string;
  project_id: string | null;
  user_id: string | null;
  note: string | null;
  created_at: string;
}

export interface EntryInput {
  spaceId: string;
  bucket?: Bucket;
  kind: EntryKind;
  /** The magnitude (>= 0); the sign follows the kind (debit and expire are negative). */
  minutes: number;
  /** What caused it; unique per (space, bucket, kind): the same ref twice writes one row. */
  ref: string;
  projectId?: string | null;
  userId?: string | null;
  note?: string | null;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** Appends one row unless the same (space, bucket, kind, ref) exists. Returns whether it was written. */
export async function post(db: Db, e: EntryInput): Promise<boolean> {
  if (!Number.isFinite(e.minutes) || e.minutes < 0) throw new Error(`ledger: bad minutes ${e.minutes}`);
  const signed = NEGATIVE.has(e.kind) ? -round3(e.minutes) : round3(e.minutes);
  const rows = await db.query(
    `INSERT INTO minutes_ledger (space_id, bucket, kind, minutes, ref, project_id, user_id, note)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (space_id, bucket, kind, ref) DO NOTHING RETURNING id`,
    [e.spaceId, e.bucket ?? 'minutes', e.kind, signed, e.ref, e.projectId ?? null, e.userId ?? null, e.note ?? null],
  );
  return rows.length > 0;
}

export interface Balances {
  /** total = everything credited (grants, purchases, refills); used = debits - refunds + expiries. */
  minutes: { total: number; used: number; available: number };
  lipsync_free_minutes: number;
}

type SumRow = { space_id: string; bucket: Bucket; credited: number; used: number };

function toBalances(rows: SumRow[]): Balances {
  const b: Balances = { minutes: { total: 0, used: 0, available: 0 }, lipsync_free_minutes: 0 };
  for (const r of rows) {
    const credited = Number(r.credited);
    const used = Number(r.used);
    if (r.bucket === 'minutes') b.minutes = { total: round3(credited), used: round3(used), available: round3(credited - used) };
    else b.lipsync_free_minutes = round3(Math.max(0, credited - used));
  }
  return b;
}

const SUMS = `SELECT space_id, bucket,
    COALESCE(SUM(minutes) FILTER (WHERE kind IN ('grant', 'purchase', 'refill')), 0)::float8 AS credited,
    COALESCE(-SUM(minutes) FILTER (WHERE kind IN ('debit', 'refund', 'expire')), 0)::float8 AS used
  FROM minutes_ledger`;

/** The balances of one space. */
export async function balances(db: Db, spaceId: string): Promise<Balances> {
  return toBalances(await db.query<SumRow>(`${SUMS} WHERE space_id = $1 GROUP BY space_id, bucket`, [spaceId]));
}

/** The balances of several spaces at once (space lists). */
export async function balancesOf(db: Db, spaceIds: string[]): Promise<Map<string, Balances>> {
  const out = new Map<string, Balances>();
  if (spaceIds.length === 0) return out;
  const rows = await db.query<SumRow>(
    `${SUMS} WHERE space_id::text IN (SELECT jsonb_array_elements_text($1::jsonb)) GROUP BY space_id, bucket`,
    [JSON.stringify(spaceIds)],
  );
  for (const id of spaceIds) out.set(id, toBalances(rows.filter((r) => r.space_id === id)));
  return out;
}

/** The Credits view of the contract (spaces, settings). */
export function creditsView(b: Balances, video: { total: number; used: number } = { total: 0, used: 0 }): Credits {
  return { minutes: { total: b.minutes.total, used: b.minutes.used }, video, lipsync_free_minutes: b.lipsync_free_minutes };
}

function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, '').replace(/\.$/, '');
}

/**
 * The 402 detail when minutes are short. It deliberately does not end with 'credits available.', so the
 * client treats it as "payment required" (buy-minutes modal or pricing), as spec section 8 describes.
 */
export function notEnoughMinutesText(needed: number, available: number): string {
  const a = Math.max(0, available);
  return `Not enough minutes: ${fmt(needed)} ${needed === 1 ? 'minute' : 'minutes'} needed, ${fmt(a)} available`;
}

/**
 * The 402 detail of a lip-sync run asked on free lip-sync minutes only (is_free_lipsync) when they are short: it
 * names the free lip-sync minutes, and offers the plan's minutes when they would cover the run.
 */
export function notEnoughFreeLipsyncText(needed: number, available: number, b: Balances): string {
  const a = Math.max(0, available);
  const head = a <= 0
    ? `No free lip-sync minutes left: ${fmt(needed)} needed, 0 available.`
    : `Not enough free lip-sync minutes: ${fmt(needed)} needed, ${fmt(a)} available.`;
  return b.minutes.available + 1e-9 >= needed ? `${head} Run it on your plan minutes instead.` : head;
}

/** Locks the space row until the end of the transaction: serialises the debits of one space. */
async function lockSpace(db: Db, spaceId: string): Promise<void> {
  const r = await db.maybeOne(`SELECT id FROM spaces WHERE id = $1 FOR UPDATE`, [spaceId]);
  if (!r) throw new DomainError('not_found', 'Teamspace not found');
}

export interface DebitInput {
  spaceId: string;
  minutes: number;
  ref: string;
  projectId?: string | null;
  userId?: string | null;
  note?: string | null;
  /** Buckets to draw from, in order (lip-sync: ['lipsync_free', 'minutes']). Default ['minutes']. */
  from?: Bucket[];
  /** The 402 detail when the buckets hold too little (default notEnoughMinutesText); gets the balances too. */
  shortText?: (needed: number, available: number, b: Balances) => string;
}

export interface DebitResult {
  /** Minutes taken from each bucket (nothing when the same ref was already debited). */
  taken: { bucket: Bucket; minutes: number }[];
  /** false when this ref had been debited before (idempotent retry). */
  fresh: boolean;
}

/**
 * Inside a transaction: takes `minutes` from the space, drawing from the buckets in order, or throws 402 with
 * notEnoughMinutesText when they hold fewer. A ref already debited takes nothing again.
 */
type DebitListener = (e: { spaceId: string; bucket: Bucket; minutes: number }) => void;
const DEBIT_LISTENERS = namespace('billing.debit-listeners', (): DebitListener[] => []);
/** Called for every fresh debit row of the app over `db` (metrics); registered once by its composition root. */
export function onDebit(db: Db, l: DebitListener): void {
  const listeners = db.state.of(DEBIT_LISTENERS);
  if (!listeners.includes(l)) listeners.push(l);
}

export async function debit(db: Db, d: DebitInput): Promise<DebitResult> {
  const need = round3(d.minutes);
  const from = d.from ?? ['minutes'];
  await lockSpace(db, d.spaceId);
  const existing = await db.query<{ bucket: Bucket; minutes: number }>(
    `SELECT bucket, (-minutes)::float8 AS minutes FROM minutes_ledger WHERE space_id = $1 AND kind = 'debit' AND ref = $2`,
    [d.spaceId, d.ref],
  );
  if (existing.length > 0) return { taken: existing.map((e) => ({ bucket: e.bucket, minutes: Number(e.minutes) })), fresh: false };
  if (need <= 0) return { taken: [], fresh: true };
  const b = await balances(db, d.spaceId);
  const avail = (k: Bucket) => Math.max(0, k === 'minutes' ? b.minutes.available : b.lipsync_free_minutes);
  const total = from.reduce((s, k) => s + avail(k), 0);
  if (total + 1e-9 < need) {
    throw new DomainError('payment_required', (d.shortText ?? notEnoughMinutesText)(need, round3(total), b));
  }
  const taken: DebitResult['taken'] = [];
  let left = need;
  for (const k of from) {
    const t = round3(Math.min(left, avail(k)));
    if (t <= 0) continue;
    await post(db, { spaceId: d.spaceId, bucket: k, kind: 'debit', minutes: t, ref: d.ref, projectId: d.projectId, userId: d.userId, note: d.note });
    taken.push({ bucket: k, minutes: t });
    for (const l of db.state.of(DEBIT_LISTENERS)) l({ spaceId: d.spaceId, bucket: k, minutes: t });
    left = round3(left - t);
    if (left <= 0) break;
  }
  return { taken, fresh: true };
}

/**
 * Gives back every debit written with `ref` (each bucket), once: a second refund of the same ref writes
 * nothing. Returns the minutes given back by this call.
 */
export async function refund(db: Db, spaceId: string, ref: string, note?: string): Promise<number> {
  const debits = await db.query<{ bucket: Bucket; minutes: number; project_id: string | null; user_id: string | null }>(
    `SELECT bucket, (-minutes)::float8 AS minutes, project_id, user_id FROM minutes_ledger
     WHERE space_id = $1 AND kind = 'debit' AND ref = $2`,
    [spaceId, ref],
  );
  let back = 0;
  for (const d of debits) {
    const wrote = await post(db, {
      spaceId, bucket: d.bucket, kind: 'refund', minutes: Number(d.minutes), ref, projectId: d.project_id, userId: d.user_id,
      note: note ?? 'refund',
    });
    if (wrote) back += Number(d.minutes);
  }
  return round3(back);
}

/** The rows of a space, newest first (usage views, admin). @public */
export function entries(db: Db, spaceId: string, o: { limit?: number; offset?: number } = {}): Promise<LedgerEntry[]> {
  return db.query<LedgerEntry>(
    `SELECT id::text, space_id, bucket, kind, minutes::float8 AS minutes, ref, project_id, user_id, note, created_at
     FROM minutes_ledger WHERE space_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
    [spaceId, o.limit ?? 50, o.offset ?? 0],
  );
}

/** One page of a space's minute history for its owner: newest first, with the project's name, and the row count. */
export async function history(db: Db, spaceId: string, o: { limit: number; offset: number }): Promise<{ total: number; rows: (LedgerEntry & { project_name: string | null })[] }> {
  const [count, rows] = await Promise.all([
    db.one<{ n: number }>(`SELECT count(*)::int AS n FROM minutes_ledger WHERE space_id = $1 AND bucket = 'minutes'`, [spaceId]),
    db.query<LedgerEntry & { project_name: string | null }>(
      `SELECT l.id::text, l.space_id, l.bucket, l.kind, l.minutes::float8 AS minutes, l.ref, l.project_id, l.user_id, l.note, l.created_at,
              p.name AS project_name
       FROM minutes_ledger l LEFT JOIN projects p ON p.id = l.project_id
       WHERE l.space_id = $1 AND l.bucket = 'minutes' ORDER BY l.created_at DESC, l.id DESC LIMIT $2 OFFSET $3`,
      [spaceId, o.limit, o.offset],
    ),
  ]);
  return { total: count.n, rows };
}

/** The ledger reference of one generation of a project's dub (its debit and its refund). */
export const generationRef = (projectId: string, generation: number) => `project:${projectId}:gen:${generation}`;

/** The ledger reference of one lip-sync run of a project (its debit and its refund). */
export const lipsyncRef = (projectId: string, run: number) => `project:${projectId}:lipsync:${run}`;
