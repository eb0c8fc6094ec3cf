// All SQL of webhooks: endpoints of a space, deliveries (the outbox written in the transaction of the event),
// and the log of each attempt.
import type { Db } from '../../db/index';
import type { JsonObject } from '../../db/schema';
import { all, first, json, one, q, run, sql } from '../../db/sql';

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
const COLS = ['id', 'space_id', 'url', 'events', 'secret', 'description', 'enabled', 'disabled_reason', 'consecutive_failures', 'created_at'] as const;

export function insertEndpoint(db: Db, e: { spaceId: string; url: string; events: string[]; secret: string; description: string; userId: string }): Promise<EndpointRow> {
  return one(
    db,
    q
      .insertInto('webhook_endpoints')
      .values({ space_id: e.spaceId, url: e.url, events: json(e.events), secret: e.secret, description: e.description, created_by: e.userId })
      .returning(COLS)
      .$narrowType<{ events: string[] }>(),
  );
}

export function listEndpoints(db: Db, spaceId: string): Promise<EndpointRow[]> {
  return all(
    db,
    q.selectFrom('webhook_endpoints').select(COLS).where('space_id', '=', spaceId).orderBy('created_at').orderBy('id').$narrowType<{ events: string[] }>(),
  );
}

export function findEndpoint(db: Db, spaceId: string, id: string): Promise<EndpointRow | null> {
  return first(db, q.selectFrom('webhook_endpoints').select(COLS).where('space_id', '=', spaceId).where('id', '=', id).$narrowType<{ events: string[] }>());
}

/** Fields left undefined stay as they are; enabling an endpoint again clears its disabled reason and failures in a row. */
export function updateEndpoint(
  db: Db,
  id: string,
  p: { url?: string; events?: string[]; description?: string; enabled?: boolean },
): Promise<EndpointRow | null> {
  return first(
    db,
    q
      .updateTable('webhook_endpoints')
      .set({
        ...(p.url !== undefined ? { url: p.url } : {}),
        ...(p.events ? { events: json(p.events) } : {}),
        ...(p.description !== undefined ? { description: p.description } : {}),
        ...(p.enabled !== undefined ? { enabled: p.enabled } : {}),
        ...(p.enabled === true ? { disabled_reason: null, consecutive_failures: 0 } : {}),
        updated_at: sql<Date>`now()`,
      })
      .where('id', '=', id)
      .returning(COLS)
      .$narrowType<{ events: string[] }>(),
  );
}

export async function deleteEndpoint(db: Db, spaceId: string, id: string): Promise<boolean> {
  return (await all(db, q.deleteFrom('webhook_endpoints').where('space_id', '=', spaceId).where('id', '=', id).returning('id'))).length > 0;
}

/** The enabled endpoints of a space subscribed to any of `events`. */
export function subscribers(db: Db, spaceId: string): Promise<Array<{ id: string; events: string[] }>> {
  return all(
    db,
    q
      .selectFrom('webhook_endpoints')
      .select(['id', 'events'])
      .where('space_id', '=', spaceId)
      .where('enabled', '=', true)
      .orderBy('created_at')
      .orderBy('id')
      .$narrowType<{ events: string[] }>(),
  );
}

export async function insertDelivery(db: Db, endpointId: string, eventType: string, payload: object): Promise<void> {
  await run(db, q.insertInto('webhook_deliveries').values({ endpoint_id: endpointId, event_type: eventType, payload: json(payload), state: 'pending' }));
}

const secsFromNow = (secs: number) => sql<Date>`make_interval(secs => ${secs})`;

/** Due deliveries not queued recently: marked queued and returned (the dispatcher pushes them to the queue). */
export function takeDue(db: Db, requeueAfterSec: number, limit = 100): Promise<Array<{ id: string; attempts: number }>> {
  return all(
    db,
    q
      .updateTable('webhook_deliveries')
      .set({ queued_at: sql<Date>`now()` })
      .where('id', 'in', (e) =>
        e
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('state', '=', 'pending')
          .where('next_attempt_at', '<=', sql<Date>`now()`)
          .where((w) => w.or([w('queued_at', 'is', null), w('queued_at', '<', sql<Date>`now() - ${secsFromNow(requeueAfterSec)}`)]))
          .orderBy('next_attempt_at')
          .orderBy('id')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .returning(['id', 'attempts']),
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
  return first(
    db,
    q
      .with('d', (w) =>
        w
          .updateTable('webhook_deliveries')
          .set({ locked_until: sql<Date>`now() + ${secsFromNow(leaseSec)}` })
          .where('id', '=', id)
          .where('state', '=', 'pending')
          .where('attempts', '=', attempts)
          .where((e) => e.or([e('locked_until', 'is', null), e('locked_until', '<', sql<Date>`now()`)]))
          .returning(['id', 'endpoint_id', 'event_type', 'payload', 'attempts']),
      )
      .selectFrom('d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', 'd.endpoint_id', 'd.event_type', 'd.payload', 'd.attempts', 'e.url', 'e.secret', 'e.enabled'])
      .$narrowType<{ payload: JsonObject }>(),
  );
}

export async function recordAttempt(db: Db, a: { deliveryId: string; attempt: number; status: number | null; latencyMs: number; error: string | null }): Promise<void> {
  await run(
    db,
    q.insertInto('webhook_attempts').values({
      delivery_id: a.deliveryId,
      attempt: a.attempt,
      status_code: a.status,
      latency_ms: Math.round(a.latencyMs),
      error: a.error ? a.error.slice(0, 500) : null,
    }),
  );
}

export async function markDelivered(db: Db, id: string, endpointId: string, attempts: number): Promise<void> {
  await run(
    db,
    q
      .updateTable('webhook_deliveries')
      .set({ state: 'delivered', attempts, finished_at: sql<Date>`now()`, queued_at: null, locked_until: null })
      .where('id', '=', id),
  );
  await run(db, q.updateTable('webhook_endpoints').set({ consecutive_failures: 0 }).where('id', '=', endpointId));
}

/** A failed attempt: retried at `nextAt`, or failed for good (nextAt null). Returns the endpoint's failures in a row. */
export async function markAttemptFailed(db: Db, id: string, endpointId: string, attempts: number, nextAt: Date | null): Promise<number> {
  if (nextAt) {
    await run(db, q.updateTable('webhook_deliveries').set({ attempts, next_attempt_at: nextAt, queued_at: null, locked_until: null }).where('id', '=', id));
  } else {
    await run(
      db,
      q
        .updateTable('webhook_deliveries')
        .set({ state: 'failed', attempts, finished_at: sql<Date>`now()`, queued_at: null, locked_until: null })
        .where('id', '=', id),
    );
  }
  const r = await one(
    db,
    q
      .updateTable('webhook_endpoints')
      .set((e) => ({ consecutive_failures: e('consecutive_failures', '+', 1) }))
      .where('id', '=', endpointId)
      .returning('consecutive_failures as n'),
  );
  return Number(r.n);
}

export async function disableEndpoint(db: Db, endpointId: string, reason: string): Promise<void> {
  await run(db, q.updateTable('webhook_endpoints').set({ enabled: false, disabled_reason: reason, updated_at: sql<Date>`now()` }).where('id', '=', endpointId));
}

/** Deliveries of a disabled endpoint stop: they fail with the reason. */
export async function failPendingOf(db: Db, endpointId: string): Promise<void> {
  await run(
    db,
    q
      .updateTable('webhook_deliveries')
      .set({ state: 'failed', finished_at: sql<Date>`now()`, queued_at: null })
      .where('endpoint_id', '=', endpointId)
      .where('state', '=', 'pending'),
  );
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
  return all(
    db,
    q
      .selectFrom('webhook_deliveries as d')
      .select([
        'd.id',
        'd.event_type',
        'd.state',
        'd.created_at',
        'd.next_attempt_at',
        sql<DeliveryRow['attempts']>`COALESCE((SELECT jsonb_agg(jsonb_build_object('attempt', a.attempt, 'status_code', a.status_code, 'latency_ms', a.latency_ms,
          'error', a.error, 'created_at', a.created_at) ORDER BY a.attempt, a.id) FROM webhook_attempts a WHERE a.delivery_id = d.id), '[]'::jsonb)`.as('attempts'),
      ])
      .where('d.endpoint_id', '=', endpointId)
      .orderBy('d.created_at', 'desc')
      .orderBy('d.id', 'desc')
      .limit(limit)
      .$narrowType<{ state: DeliveryRow['state'] }>(),
  );
}

/** What a project's status change tells the webhooks of its space. */
export function projectForEvent(
  db: Db,
  projectId: string,
): Promise<{ space_id: string; name: string; error_code: string | null; error_message: string | null; dst_lang: string } | null> {
  return first(db, q.selectFrom('projects').select(['space_id', 'name', 'error_code', 'error_message', 'dst_lang']).where('id', '=', projectId));
}
