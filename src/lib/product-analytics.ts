// The product-analytics sink of the analytics bus (spec sections 7 and 9): off unless configured
// (VITE_PRODUCT_ANALYTICS_URL at build time). Events are batched (50 a request, flushed every 5 s) and sent as
// JSON with a 90 s timeout; the user is identified by id plus e-mail and email-type. A failing or blocked
// endpoint drops the batch: nothing the user does waits for it or sees it fail.
import { addAnalyticsSink, type AnalyticsMessage } from './analytics';

export const PRODUCT_ANALYTICS = { batchSize: 50, flushMs: 5000, timeoutMs: 90_000 } as const;

export interface ProductAnalyticsOptions {
  url: string;
  apiKey?: string;
  fetch?: typeof fetch;
  batchSize?: number;
  flushMs?: number;
  timeoutMs?: number;
}

export interface ProductAnalyticsSink {
  /** Who the following events belong to (user id, e-mail and its type). */
  identify(user: { id: string; email: string; email_type: string } | null): void;
  /** Sends what is queued now. Never rejects. */
  flush(): Promise<void>;
  stop(): void;
}

export function startProductAnalytics(o: ProductAnalyticsOptions): ProductAnalyticsSink {
  const batchSize = o.batchSize ?? PRODUCT_ANALYTICS.batchSize;
  const doFetch = o.fetch ?? ((...a: Parameters<typeof fetch>) => globalThis.fetch(...a));
  const queue: Record<string, unknown>[] = [];
  let who: { id: string; email: string; email_type: string } | null = null;

  async function flush(): Promise<void> {
    if (queue.length === 0) return;
    const events = queue.splice(0, batchSize);
    try {
      await doFetch(o.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
        body: JSON.stringify({ events }),
        signal: AbortSignal.timeout(o.timeoutMs ?? PRODUCT_ANALYTICS.timeoutMs),
        keepalive: true,
      });
    } catch {
      /* a blocked or failing service changes nothing for the user: the batch is dropped */
    }
    if (queue.length >= batchSize) await flush();
  }

  const removeSink = addAnalyticsSink((msg: AnalyticsMessage) => {
    queue.push({
      event: msg.event,
      properties: msg.properties,
      ...(msg.subscription ? { groups: { subscription: msg.subscription } } : {}),
      user_id: who?.id ?? msg.user_id ?? null,
      user_properties: who ? { email: who.email, email_type: who.email_type } : undefined,
      time: Date.now(),
    });
    if (queue.length >= batchSize) void flush();
  });
  const timer = setInterval(() => void flush(), o.flushMs ?? PRODUCT_ANALYTICS.flushMs);

  return {
    identify(user) {
      who = user;
    },
    flush,
    stop() {
      clearInterval(timer);
      removeSink();
    },
  };
}

/** The sink from the build's configuration, or null (the default: off). */
export function productAnalyticsFromEnv(env: Record<string, string | undefined>): ProductAnalyticsSink | null {
  const url = env.VITE_PRODUCT_ANALYTICS_URL?.trim();
  return url ? startProductAnalytics({ url, apiKey: env.VITE_PRODUCT_ANALYTICS_KEY }) : null;
}
