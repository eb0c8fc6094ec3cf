// The minutes ledger: every grant, purchase, monthly refill, debit, refund and expiry of a space is one row of
// minutes_ledger, written in the transaction of what caused it and idempotent by (space, bucket, kind, ref).
// Balances are sums over the rows; nothing is updated in place. Debits lock the space row first, so two
// debits at once are serialised and cannot overdraw.
import type { Credits } from '../../../contract/schemas/space';
import type { Db } from '../../db/index';
import { all, first, one, q, sql } from '../../db/sql';
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
  created_at: Date | string;
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
  const rows = await all(
    db,
    q
      .insertInto('minutes_ledger')
      .values({
        space_id: e.spaceId, bucket: e.bucket ?? 'minutes', kind: e.kind, minutes: signed, ref: e.ref, project_id: e.projectId ?? null,
        user_id: e.userId ?? null, note: e.note ?? null,
      })
      .onConflict((c) => c.columns(['space_id', 'bucket', 'kind', 'ref']).doNothing())
      .returning('id'),
  );
  return rows.length > 0;
}

export interface Balances {
  /** total = everything credited (grants, purchases, refills); used = debits - refunds + expiries. */
  minutes: { total: number; used: number; available: number };
  lipsync_free_minutes: number;
}

type SumRow = { space_id: string; bucket: string; credited: number; used: number };

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

const sums = () =>
  q
    .selectFrom('minutes_ledger')
    .select([
      'space_id',
      'bucket',
      sql<number>`COALESCE(SUM(minutes) FILTER (WHERE kind IN ('grant', 'purchase', 'refill')), 0)::float8`.as('credited'),
      sql<number>`COALESCE(-SUM(minutes) FILTER (WHERE kind IN ('debit', 'refund', 'expire')), 0)::float8`.as('used'),
    ]);

/** The balances of one space. */
export async function balances(db: Db, spaceId: string): Promise<Balances> {
  return toBalances(await all(db, sums().where('space_id', '=', spaceId).groupBy(['space_id', 'bucket'])));
}

/** The balances of several spaces at once (space lists). */
export async function balancesOf(db: Db, spaceIds: string[]): Promise<Map<string, Balances>> {
  const out = new Map<string, Balances>();
  if (spaceIds.length === 0) return out;
  const rows = await all(
    db,
    sums()
      .where(sql<boolean>`space_id::text IN (SELECT jsonb_array_elements_text(${JSON.stringify(spaceIds)}::jsonb))`)
      .groupBy(['space_id', 'bucket']),
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
  const r = await first(db, q.selectFrom('spaces').select('id').where('id', '=', spaceId).forUpdate());
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
  const existing = await debitsOf(db, d.spaceId, d.ref);
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

/** The debits written with `ref` (each bucket), as positive minutes. */
function debitsOf(db: Db, spaceId: string, ref: string) {
  return all(
    db,
    q
      .selectFrom('minutes_ledger')
      .select(['bucket', sql<number>`(-minutes)::float8`.as('minutes'), 'project_id', 'user_id'])
      .where('space_id', '=', spaceId)
      .where('kind', '=', 'debit')
      .where('ref', '=', ref)
      .$narrowType<{ bucket: Bucket }>(),
  );
}

/**
 * Gives back every debit written with `ref` (each bucket), once: a second refund of the same ref writes
 * nothing. Returns the minutes given back by this call.
 */
export async function refund(db: Db, spaceId: string, ref: string, note?: string): Promise<number> {
  const debits = await debitsOf(db, spaceId, ref);
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
  return all(
    db,
    q
      .selectFrom('minutes_ledger')
      .select([
        sql<string>`id::text`.as('id'), 'space_id', 'bucket', 'kind', sql<number>`minutes::float8`.as('minutes'), 'ref', 'project_id',
        'user_id', 'note', 'created_at',
      ])
      .where('space_id', '=', spaceId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(o.limit ?? 50)
      .offset(o.offset ?? 0)
      .$narrowType<{ bucket: Bucket; kind: EntryKind }>(),
  );
}

/** One page of a space's minute history for its owner: newest first, with the project's name, and the row count. */
export async function history(db: Db, spaceId: string, o: { limit: number; offset: number }): Promise<{ total: number; rows: (LedgerEntry & { project_name: string | null })[] }> {
  const [count, rows] = await Promise.all([
    one(
      db,
      q.selectFrom('minutes_ledger').select(sql<number>`count(*)::int`.as('n')).where('space_id', '=', spaceId).where('bucket', '=', 'minutes'),
    ),
    all(
      db,
      q
        .selectFrom('minutes_ledger as l')
        .leftJoin('projects as p', 'p.id', 'l.project_id')
        .select([
          sql<string>`l.id::text`.as('id'), 'l.space_id', 'l.bucket', 'l.kind', sql<number>`l.minutes::float8`.as('minutes'), 'l.ref',
          'l.project_id', 'l.user_id', 'l.note', 'l.created_at', 'p.name as project_name',
        ])
        .where('l.space_id', '=', spaceId)
        .where('l.bucket', '=', 'minutes')
        .orderBy('l.created_at', 'desc')
        .orderBy('l.id', 'desc')
        .limit(o.limit)
        .offset(o.offset)
        .$narrowType<{ bucket: Bucket; kind: EntryKind }>(),
    ),
  ]);
  return { total: count.n, rows };
}

/** The plan minutes already refilled in a space's bucket for the month `base` (ref `base` or `base:<tier>`). */
export async function refilled(db: Db, spaceId: string, bucket: Bucket, base: string): Promise<number> {
  const r = await one(
    db,
    q
      .selectFrom('minutes_ledger')
      .select(sql<number>`COALESCE(SUM(minutes), 0)::float8`.as('m'))
      .where('space_id', '=', spaceId)
      .where('bucket', '=', bucket)
      .where('kind', '=', 'refill')
      .where((e) => e.or([e('ref', '=', base), e('ref', 'like', `${base}:%`)])),
  );
  return Number(r.m);
}

/** Of a space's bucket: the plan minutes refilled, those that expired and those used (debits less refunds). */
export async function planSums(db: Db, spaceId: string, bucket: Bucket): Promise<{ refills: number; expired: number; used: number }> {
  return one(
    db,
    q
      .selectFrom('minutes_ledger')
      .select([
        sql<number>`COALESCE(SUM(minutes) FILTER (WHERE kind = 'refill'), 0)::float8`.as('refills'),
        sql<number>`COALESCE(-SUM(minutes) FILTER (WHERE kind = 'expire'), 0)::float8`.as('expired'),
        sql<number>`COALESCE(-SUM(minutes) FILTER (WHERE kind IN ('debit', 'refund')), 0)::float8`.as('used'),
      ])
      .where('space_id', '=', spaceId)
      .where('bucket', '=', bucket),
  );
}

/** The ledger reference of one generation of a project's dub (its debit and its refund). */
export const generationRef = (projectId: string, generation: number) => `project:${projectId}:gen:${generation}`;

/** The ledger reference of one lip-sync run of a project (its debit and its refund). */
export const lipsyncRef = (projectId: string, run: number) => `project:${projectId}:lipsync:${run}`;
