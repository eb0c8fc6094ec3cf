// All SQL of webhooks: endpoints of a space, deliveries (the outbox written in the transaction of the event),
// and the log of each attempt.
import type { Db } from '../../db/index';

export interface EndpointRow {
  id: string;
  space_id: string;
  url: string;
  events: string[];
  secret: string;
  description: string;
  enabled: boolean;
  disabled_reason: string | null;
  consecutive_failures: number;
  created_at: Date | string;
}
const COLS = 'id, space_id, url, events, secret, description, enabled, disabled_reason, consecutive_failures, created_at';

export function insertEndpoint(db: Db, e: { spaceId: string; url: string; events: string[]; secret: string; description: string; userId: string }): Promise<EndpointRow> {
  return db.one<EndpointRow>(
    `INSERT INTO webhook_endpoints (space_id, url, events, secret, description, created_by) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLS}`,
    [e.spaceId, e.url, JSON.stringify(e.events), e.secret, e.description, e.userId],
  );
}

export function listEndpoints(db: Db, spaceId: string): Promise<EndpointRow[]> {
  return db.query<EndpointRow>(`SELECT ${COLS} FROM webhook_endpoints WHERE space_id = $1 ORDER BY created_at, id`, [spaceId]);
}

export function findEndpoint(db: Db, spaceId: string, id: string): Promise<EndpointRow | null> {
  return db.maybeOne<EndpointRow>(`SELECT ${COLS} FROM webhook_endpoints WHERE space_id = $1 AND id = $2`, [spaceId, id]);
}

export function updateEndpoint(
  db: Db,
  id: string,
  p: { url?: string; events?: string[]; description?: string; enabled?: boolean },
): Promise<EndpointRow | null> {
  return db.maybeOne<EndpointRow>(
    `UPDATE webhook_endpoints SET
       url = COALESCE($2, url), events = COALESCE($3::jsonb, events), description = COALESCE($4, description),
       enabled = COALESCE($5, enabled),
       disabled_reason = CASE WHEN $5 IS TRUE THEN NULL ELSE disabled_reason END,
       consecutive_failures = CASE WHEN $5 IS TRUE THEN 0 ELSE consecutive_failures END,
       updated_at = now()
     WHERE id = $1 RETURNING ${COLS}`,
    [id, p.url ?? null, p.events ? JSON.stringify(p.events) : null, p.description ?? null, p.enabled ?? null],
  );
}

export async function deleteEndpoint(db: Db, spaceId: string, id: string): Promise<boolean> {
  return (await db.query(`DELETE FROM webhook_endpoints WHERE space_id = $1 AND id = $2 RETURNING id`, [spaceId, id])).length > 0;
}

/** The enabled endpoints of a space subscribed to any of `events`. */
export function subscribers(db: Db, spaceId: string): Promise<Array<{ id: string; events: string[] }>> {
  return db.query(`SELECT id, events FROM webhook_endpoints WHERE space_id = $1 AND enabled ORDER BY created_at, id`, [spaceId]);
}

export async function insertDelivery(db: Db, endpointId: string, eventType: string, payload: object): Promise<void> {
  await db.query(`INSERT INTO webhook_deliveries (endpoint_id, event_type, payload, state) VALUES ($1, $2, $3, 'pending')`, [endpointId, eventType, payload]);
}

/** Due deliveries not queued recently: marked queued and returned (the dispatcher pushes them to the queue). */
export function takeDue(db: Db, requeueAfterSec: number, limit = 100): Promise<Array<{ id: string; attempts: number }>> {
  return db.query(
    `UPDATE webhook_deliveries SET queued_at = now()
     WHERE id IN (
       SELECT id FROM webhook_deliveries
       WHERE state = 'pending' AND next_attempt_at <= now()
         AND (queued_at IS NULL OR queued_at < now() - make_interval(secs => $1))
       ORDER BY next_attempt_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING id, attempts`,
    [requeueAfterSec, limit],
  );
}

export interface DeliveryJob {
  id: string;
  endpoint_id: string;
  event_type: string;
  payload: Record<string, unknown>;
  attempts: number;
  url: string;
  secret: string;
  enabled: boolean;
}

/**
 * Takes attempt `attempts + 1` of a pending delivery for `leaseSec` (null when another worker has it, the attempt
 * was made already, or it is no longer pending). No transaction is held while the attempt is sent.
 */
export function leasePending(db: Db, id: string, attempts: number, leaseSec: number): Promise<DeliveryJob | null> {
  return db.maybeOne<DeliveryJob>(
    `WITH d AS (
       UPDATE webhook_deliveries SET locked_until = now() + make_interval(secs => $3)
       WHERE id = $1 AND state = 'pending' AND attempts = $2 AND (locked_until IS NULL OR locked_until < now())
       RETURNING id, endpoint_id, event_type, payload, attempts)
     SELECT d.id, d.endpoint_id, d.event_type, d.payload, d.attempts, e.url, e.secret, e.enabled
     FROM d JOIN webhook_endpoints e ON e.id = d.endpoint_id`,
    [id, attempts, leaseSec],
  );
}

export async function recordAttempt(db: Db, a: { deliveryId: string; attempt: number; status: number | null; latencyMs: number; error: string | null }): Promise<void> {
  await db.query(
    `INSERT INTO webhook_attempts (delivery_id, attempt, status_code, latency_ms, error) VALUES ($1, $2, $3, $4, $5)`,
    [a.deliveryId, a.attempt, a.status, Math.round(a.latencyMs), a.error ? a.error.slice(0, 500) : null],
  );
}

export async function markDelivered(db: Db, id: string, endpointId: string, attempts: number): Promise<void> {
  await db.query(`UPDATE webhook_deliveries SET state = 'delivered', attempts = $2, finished_at = now(), queued_at = NULL, locked_until = NULL WHERE id = $1`, [id, attempts]);
  await db.query(`UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE id = $1`, [endpointId]);
}

/** A failed attempt: retried at `nextAt`, or failed for good (nextAt null). Returns the endpoint's failures in a row. */
export async function markAttemptFailed(db: Db, id: string, endpointId: string, attempts: number, nextAt: Date | null): Promise<number> {
  if (nextAt) {
    await db.query(`UPDATE webhook_deliveries SET attempts = $2, next_attempt_at = $3, queued_at = NULL, locked_until = NULL WHERE id = $1`, [id, attempts, nextAt]);
  } else {
    await db.query(`UPDATE webhook_deliveries SET state = 'failed', attempts = $2, finished_at = now(), queued_at = NULL, locked_until = NULL WHERE id = $1`, [id, attempts]);
  }
  const r = await db.one<{ n: number }>(
    `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1 WHERE id = $1 RETURNING consecutive_failures AS n`,
    [endpointId],
  );
  return Number(r.n);
}

export async function disableEndpoint(db: Db, endpointId: string, reason: string): Promise<void> {
  await db.query(`UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2, updated_at = now() WHERE id = $1`, [endpointId, reason]);
}

/** Deliveries of a disabled endpoint stop: they fail with the reason. */
export async function failPendingOf(db: Db, endpointId: string): Promise<void> {
  await db.query(`UPDATE webhook_deliveries SET state = 'failed', finished_at = now(), queued_at = NULL WHERE endpoint_id = $1 AND state = 'pending'`, [endpointId]);
}

export interface DeliveryRow {
  id: string;
  event_type: string;
  state: 'pending' | 'delivered' | 'failed';
  created_at: Date | string;
  next_attempt_at: Date | string;
  attempts: Array<{ attempt: number; status_code: number | null; latency_ms: number; error: string | null; created_at: string }>;
}

export function listDeliveries(db: Db, endpointId: string, limit = 50): Promise<DeliveryRow[]> {
  return db.query<DeliveryRow>(
    `SELECT d.id, d.event_type, d.state, d.created_at, d.next_attempt_at,
       COALESCE((SELECT jsonb_agg(jsonb_build_object('attempt', a.attempt, 'status_code', a.status_code, 'latency_ms', a.latency_ms,
         'error', a.error, 'created_at', a.created_at) ORDER BY a.attempt, a.id) FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::jsonb) AS attempts
     FROM webhook_deliveries d WHERE d.endpoint_id = $1 ORDER BY d.created_at DESC, d.id DESC LIMIT $2`,
    [endpointId, limit],
  );
}
