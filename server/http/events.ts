// Live project events over server-sent events: GET /api/project/events?space_id= (the translation list)
// and GET /api/project/{id}/events (the editor). Each event is `event: project` with
// {id, space_id, status, progress}: a status change or a step of in-stage progress (server/live/events.ts).
// Access is checked when the stream opens and again at every heartbeat; a stream ends after
// STREAM_MAX_MS so the client reconnects with a fresh token. Clients keep polling as the fallback.
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { AppEnv } from './env';
import type { ProjectEvent } from '../../contract/events';
import { projectEventsOf } from '../live/events';

export const HEARTBEAT_MS = 20_000;
export const STREAM_MAX_MS = 5 * 60_000;
/** Reconnection delay the client is told to use, ms. */
const RETRY_MS = 3000;

export interface StreamOptions {
  /** Which events this stream carries. */
  filter: (e: ProjectEvent) => boolean;
  /** Throws when the caller may no longer see them (checked at every heartbeat). */
  recheck: () => Promise<unknown>;
  /** Events sent as soon as the stream opens (the current state). */
  initial?: ProjectEvent[];
  heartbeatMs?: number;
  maxMs?: number;
}

export function projectEventStream(c: Context<AppEnv>, o: StreamOptions): Response {
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream) => {
    let open = true;
    // writes in order, one at a time
    let chain: Promise<void> = Promise.resolve();
    const send = (e: ProjectEvent) => {
      chain = chain.then(() => (open ? stream.writeSSE({ event: 'project', data: JSON.stringify(e) }) : undefined)).catch(() => {
        open = false;
      });
    };
    const unsubscribe = projectEventsOf(c.get('deps').db).subscribe(o.filter, send);
    stream.onAbort(() => {
      open = false;
    });
    try {
      await stream.writeSSE({ event: 'ready', data: '{}', retry: RETRY_MS });
      for (const e of o.initial ?? []) send(e);
      const until = Date.now() + (o.maxMs ?? STREAM_MAX_MS);
      while (open && Date.now() < until) {
        await stream.sleep(Math.min(o.heartbeatMs ?? HEARTBEAT_MS, Math.max(0, until - Date.now())));
        if (!open) break;
        try {
          await o.recheck();
        } catch {
          break;
        }
        chain = chain.then(() => (open ? stream.write(': ping\n\n').then(() => undefined) : undefined)).catch(() => {
          open = false;
        });
        await chain;
      }
    } finally {
      open = false;
      unsubscribe();
    }
  });
}
