// Webhooks of a space: endpoints (URL, events, Standard Webhooks secret) managed by the space owner; events
// written as deliveries in the transaction of the status change that causes them; a dispatcher that pushes due
// deliveries to the delivery queue; a worker that signs and sends each attempt, logs it, retries with
// exponential back-off, and disables an endpoint after repeated failures.
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { type WebhookDelivery, type WebhookEndpoint, type WebhookEndpointWithSecret, type WebhookEvent } from '../../../contract/schemas/api';
import { isFailure, type ProjectStatus } from '../../../contract/statuses';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/index';
import type { StatusChange } from '../projects/pipeline/stages';
import { requireFeature } from '../billing/entitlements';
import { notFound, unprocessable } from '../../errors';
import { isUuid } from '../spaces/guard';
import type { UserRow } from '../../caller';
import { BullDeliveryQueue, InProcessDeliveryQueue, type DeliveryJobData, type DeliveryQueue } from './queue';
import * as repo from './repository';
import { sendWebhook } from './send';
import { urlProblem } from './ssrf';

type Config = AppDeps['config'];
const iso = (d: Date | string) => new Date(d).toISOString();

function view(r: repo.EndpointRow): WebhookEndpoint {
  return {
    id: r.id, space_id: r.space_id, url: r.url, events: r.events as WebhookEvent[], description: r.description, enabled: r.enabled,
    disabled_reason: r.disabled_reason, created_at: iso(r.created_at),
  };
}
const withSecret = (r: repo.EndpointRow): WebhookEndpointWithSecret => ({ ...view(r), secret: r.secret });

function checkUrl(config: Config, url: string): void {
  const why = urlProblem(url, config.webhooks.allowPrivate);
  if (why) throw unprocessable([{ loc: ['body', 'url'], msg: why, type: 'url_not_allowed' }]);
}

// ------------------------------------------------------------------ endpoints (the space owner's)

export async function createEndpoint(deps: AppDeps, user: UserRow, spaceId: string, b: { url: string; events: string[]; description: string }): Promise<WebhookEndpointWithSecret> {
  if (!user.is_superuser) await requireFeature(deps.db, { spaceId }, 'api');
  checkUrl(deps.config, b.url);
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const row = await repo.insertEndpoint(deps.db, { spaceId, url: b.url, events: [...new Set(b.events)], secret, description: b.description, userId: user.id });
  return withSecret(row);
}

export async function listEndpoints(db: Db, spaceId: string): Promise<WebhookEndpoint[]> {
  return (await repo.listEndpoints(db, spaceId)).map(view);
}

async function endpointOf(db: Db, spaceId: string, id: string): Promise<repo.EndpointRow> {
  const r = isUuid(id) ? await repo.findEndpoint(db, spaceId, id) : null;
  if (!r) throw notFound('Webhook endpoint not found');
  return r;
}

export async function getEndpoint(db: Db, spaceId: string, id: string): Promise<WebhookEndpointWithSecret> {
  return withSecret(await endpointOf(db, spaceId, id));
}

export async function updateEndpoint(
  deps: AppDeps,
  spaceId: string,
  id: string,
  p: { url?: string; events?: string[]; description?: string; enabled?: boolean },
): Promise<WebhookEndpointWithSecret> {
  const cur = await endpointOf(deps.db, spaceId, id);
  if (p.url !== undefined) checkUrl(deps.config, p.url);
  if (p.enabled === true && !cur.enabled) await requireFeature(deps.db, { spaceId }, 'api');
  const r = await repo.updateEndpoint(deps.db, cur.id, { ...p, events: p.events ? [...new Set(p.events)] : undefined });
  return withSecret(r!);
}

export async function deleteEndpoint(db: Db, spaceId: string, id: string): Promise<void> {
  if (!isUuid(id) || !(await repo.deleteEndpoint(db, spaceId, id))) throw notFound('Webhook endpoint not found');
}

export async function listDeliveries(db: Db, spaceId: string, id: string): Promise<WebhookDelivery[]> {
  const e = await endpointOf(db, spaceId, id);
  return (await repo.listDeliveries(db, e.id)).map((d) => ({
    id: d.id, event_type: d.event_type as WebhookEvent, state: d.state, created_at: iso(d.created_at),
    next_attempt_at: d.state === 'pending' ? iso(d.next_attempt_at) : null,
    attempts: d.attempts.map((a) => ({ ...a, created_at: iso(a.created_at) })),
  }));
}

// ------------------------------------------------------------------ events

/** The events of one status change. */
export function eventsOf(status: ProjectStatus): WebhookEvent[] {
  const out: WebhookEvent[] = ['project.status_changed'];
  if (status === 'translation_done') out.push('transcript.ready');
  if (status === 'merging_done') out.push('dub.ready');
  if (isFailure(status)) out.push('job.failed');
  return out;
}

/** Registered with the pipeline's onStatusChange: writes a delivery per subscribed endpoint, in the same transaction. */
export async function webhooksOnStatus(db: Db, ch: StatusChange): Promise<void> {
  if (ch.status === ch.previous) return;
  const p = await repo.projectForEvent(db, ch.projectId);
  if (!p) return;
  const endpoints = await repo.subscribers(db, p.space_id);
  if (endpoints.length === 0) return;
  const timestamp = new Date().toISOString();
  for (const type of eventsOf(ch.status)) {
    const payload = {
      type,
      timestamp,
      data: {
        project_id: ch.projectId, space_id: p.space_id, name: p.name, dst_lang: p.dst_lang, status: ch.status, previous_status: ch.previous,
        error_code: isFailure(ch.status) ? p.error_code : null, error_message: isFailure(ch.status) ? p.error_message : null,
      },
    };
    for (const e of endpoints) if (e.events.includes(type)) await repo.insertDelivery(db, e.id, type, payload);
  }
}

// ------------------------------------------------------------------ delivery

/** Delay before retry number `attempts` (1 = the first retry): base * 2^(attempts-1), at most one hour. */
export function backoffMs(base: number, attempts: number): number {
  return Math.min(3600_000, base * 2 ** Math.max(0, attempts - 1));
}

/** One attempt of one delivery (the queue's job handler). */
export async function deliverOnce(deps: Pick<AppDeps, 'db' | 'config'>, job: DeliveryJobData): Promise<void> {
  const cfg = deps.config.webhooks;
  // Leased (not locked) while the attempt runs: no transaction is held during the HTTP call.
  const d = await repo.leasePending(deps.db, job.deliveryId, job.attempt, Math.ceil(cfg.timeoutMs / 1000) + 30);
  if (!d) return;
  const attempt = d.attempts + 1;
  if (!d.enabled) {
    await deps.db.tx(async (t) => {
      await repo.recordAttempt(t, { deliveryId: d.id, attempt, status: null, latencyMs: 0, error: 'the endpoint is disabled' });
      await repo.markAttemptFailed(t, d.id, d.endpoint_id, attempt, null);
    });
    return;
  }
  const body = JSON.stringify(d.payload);
  const msgId = `msg_${d.id}`;
  const at = new Date();
  const headers: Record<string, string> = {
    'webhook-id': msgId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(d.secret).sign(msgId, at, body),
  };
  const r = await sendWebhook(d.url, body, headers, { timeoutMs: cfg.timeoutMs, allowPrivate: cfg.allowPrivate });
  await deps.db.tx(async (t) => {
    await repo.recordAttempt(t, { deliveryId: d.id, attempt, status: r.status, latencyMs: r.latencyMs, error: r.error });
    if (r.ok) {
      await repo.markDelivered(t, d.id, d.endpoint_id, attempt);
      return;
    }
    const next = attempt < cfg.maxAttempts ? new Date(Date.now() + backoffMs(cfg.backoffMs, attempt)) : null;
    const inARow = await repo.markAttemptFailed(t, d.id, d.endpoint_id, attempt, next);
    if (inARow >= cfg.disableAfter) {
      await repo.disableEndpoint(t, d.endpoint_id, `Disabled after ${inARow} failed deliveries in a row (last: ${r.error ?? 'no answer'})`);
      await repo.failPendingOf(t, d.endpoint_id);
    }
  });
}

export interface WebhookWorker {
  /** Pushes the due deliveries now (the timer does it every WEBHOOK_POLL_MS). */
  dispatch(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts the dispatcher and the delivery worker of this process (`npm start` with its embedded worker, `npm run
 * worker`, tests). With REDIS_URL the deliveries go through BullMQ and any worker process sends them.
 */
export async function startWebhookWorker(deps: Pick<AppDeps, 'db' | 'config'>, o: { log?: (msg: string, meta?: Record<string, unknown>) => void; concurrency?: number } = {}): Promise<WebhookWorker> {
  const log = o.log ?? (() => {});
  const onError = (e: unknown) => log('webhook delivery error', { error: e instanceof Error ? e.message : String(e) });
  const queue: DeliveryQueue = deps.config.redisUrl
    ? new BullDeliveryQueue({ redisUrl: deps.config.redisUrl, prefix: deps.config.queuePrefix }, onError)
    : new InProcessDeliveryQueue(onError);
  await queue.start((j) => deliverOnce(deps, j), o.concurrency ?? 4);
  // A delivery queued but never sent (a worker died) is queued again after this long.
  const requeueAfterSec = Math.ceil((deps.config.webhooks.timeoutMs * 2) / 1000) + 30;
  let busy: Promise<number> | null = null;
  const dispatch = (): Promise<number> => {
    busy ??= (async () => {
      try {
        const due = await repo.takeDue(deps.db, requeueAfterSec);
        for (const d of due) await queue.push({ deliveryId: d.id, attempt: d.attempts });
        return due.length;
      } finally {
        busy = null;
      }
    })();
    return busy;
  };
  const timer = setInterval(() => void dispatch().catch(onError), deps.config.webhooks.pollMs);
  timer.unref();
  return {
    dispatch,
    async stop() {
      clearInterval(timer);
      await busy?.catch(() => {});
      await queue.close();
    },
  };
}

