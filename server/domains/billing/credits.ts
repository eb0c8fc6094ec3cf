// Space minutes: available = total - used. Dubbing a project's material is charged once (its first
// generate), ceil(duration / 60) minutes; regenerating after edits and retries after a failure are free.
// This file is the minutes ledger: its SQL lives here with the rules it serves.
import { minutesNeeded } from '../../../contract/constants';
import type { Db } from '../../db/index';
import { ApiError } from '../../http/errors';

export interface SpaceMinutes {
  total: number;
  used: number;
  available: number;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** The space's minutes, locking its row until the end of the transaction (serialises charges). */
export async function lockSpaceMinutes(db: Db, spaceId: string): Promise<SpaceMinutes | null> {
  const r = await db.maybeOne<{ total: number; used: number }>(
    `SELECT minutes_total::float8 AS total, minutes_used::float8 AS used FROM spaces WHERE id = $1 FOR UPDATE`,
    [spaceId],
  );
  if (!r) return null;
  return { total: Number(r.total), used: Number(r.used), available: round3(Number(r.total) - Number(r.used)) };
}

export async function spaceMinutes(db: Db, spaceId: string): Promise<SpaceMinutes | null> {
  const r = await db.maybeOne<{ total: number; used: number }>(
    `SELECT minutes_total::float8 AS total, minutes_used::float8 AS used FROM spaces WHERE id = $1`,
    [spaceId],
  );
  if (!r) return null;
  return { total: Number(r.total), used: Number(r.used), available: round3(Number(r.total) - Number(r.used)) };
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
 * Inside a transaction: checks that the space has ceil(durationSec/60) minutes and deducts them.
 * Throws 402 when it has fewer. Returns the minutes charged.
 */
export async function chargeForDubbing(db: Db, spaceId: string, durationSec: number): Promise<number> {
  const need = minutesNeeded(durationSec);
  const m = await lockSpaceMinutes(db, spaceId);
  if (!m) throw new ApiError(404, 'Space not found');
  if (m.available < need) throw new ApiError(402, notEnoughMinutesText(need, m.available));
  await db.query(`UPDATE spaces SET minutes_used = minutes_used + $2 WHERE id = $1`, [spaceId, need]);
  return need;
}

/** Gives minutes back (a charged project that could not be generated at all). */
export async function refundMinutes(db: Db, spaceId: string, minutes: number): Promise<void> {
  await db.query(`UPDATE spaces SET minutes_used = GREATEST(0, minutes_used - $2) WHERE id = $1`, [spaceId, minutes]);
}
