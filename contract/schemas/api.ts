// The public API's own resources: API credentials (keys) and the webhook endpoints of a space.
import * as v from 'valibot';

/** An API key as listed: never the secret, only its visible prefix. */
export const ApiCredential = v.object({
  id: v.string(),
  name: v.string(),
  prefix: v.string(),
  created_at: v.string(),
  last_used_at: v.nullable(v.string()),
  revoked_at: v.nullable(v.string()),
});
export type ApiCredential = v.InferOutput<typeof ApiCredential>;

export const CreateApiCredentialRequest = v.object({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'Field is required'), v.maxLength(100, 'At most 100 characters')),
});

/** The answer of POST settings/api/credentials: the only time the whole key is shown. */
export const CreatedApiCredential = v.object({ ...ApiCredential.entries, key: v.string() });
export type CreatedApiCredential = v.InferOutput<typeof CreatedApiCredential>;

/** The user's keys, and whether their plan includes the API now (keys work only then). */
export const ApiCredentialList = v.object({ data: v.array(ApiCredential), enabled: v.boolean() });
export type ApiCredentialList = v.InferOutput<typeof ApiCredentialList>;

// ------------------------------------------------------------------ webhooks

export const WEBHOOK_EVENTS = ['project.status_changed', 'transcript.ready', 'dub.ready', 'job.failed', 'batch.completed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** @public */
export const WEBHOOK_EVENT_LABELS: Record<WebhookEvent, string> = {
  'project.status_changed': 'Project status changed',
  'transcript.ready': 'Transcript ready',
  'dub.ready': 'Dub ready',
  'job.failed': 'Job failed',
  'batch.completed': 'Batch completed',
};

const WebhookUrl = v.pipe(v.string(), v.trim(), v.maxLength(2000), v.url('Please provide correct link'), v.regex(/^https?:\/\//i, 'The URL must start with http:// or https://'));
const Events = v.pipe(v.array(v.picklist(WEBHOOK_EVENTS, `Events are ${WEBHOOK_EVENTS.join(', ')}`)), v.minLength(1, 'Choose at least one event'));

export const WebhookEndpoint = v.object({
  id: v.string(),
  space_id: v.string(),
  url: v.string(),
  events: v.array(v.picklist(WEBHOOK_EVENTS)),
  description: v.string(),
  enabled: v.boolean(),
  disabled_reason: v.nullable(v.string()),
  created_at: v.string(),
});
export type WebhookEndpoint = v.InferOutput<typeof WebhookEndpoint>;

/** Create and detail answers carry the signing secret (for the space owner). */
export const WebhookEndpointWithSecret = v.object({ ...WebhookEndpoint.entries, secret: v.string() });
export type WebhookEndpointWithSecret = v.InferOutput<typeof WebhookEndpointWithSecret>;

/** @public */
export const CreateWebhookRequest = v.object({
  url: WebhookUrl,
  events: Events,
  description: v.optional(v.pipe(v.string(), v.maxLength(200)), ''),
});

/** @public */
export const UpdateWebhookRequest = v.pipe(
  v.object({
    url: v.optional(WebhookUrl),
    events: v.optional(Events),
    description: v.optional(v.pipe(v.string(), v.maxLength(200))),
    /** true re-enables an endpoint disabled after repeated failures. */
    enabled: v.optional(v.boolean()),
  }),
  v.check((o) => Object.values(o).some((x) => x !== undefined), 'Nothing to update'),
);

/** @public */
export const WebhookList = v.object({ data: v.array(WebhookEndpoint) });

export const WebhookAttempt = v.object({
  attempt: v.number(),
  status_code: v.nullable(v.number()),
  latency_ms: v.number(),
  error: v.nullable(v.string()),
  created_at: v.string(),
});
export const WebhookDelivery = v.object({
  id: v.string(),
  event_type: v.picklist(WEBHOOK_EVENTS),
  state: v.picklist(['pending', 'delivered', 'failed']),
  attempts: v.array(WebhookAttempt),
  created_at: v.string(),
  next_attempt_at: v.nullable(v.string()),
});
export type WebhookDelivery = v.InferOutput<typeof WebhookDelivery>;
/** @public */
export const WebhookDeliveryList = v.object({ data: v.array(WebhookDelivery) });
