// Live project events: every status change (setStatus) and every step of in-stage progress (setProgress)
// is published here; the API streams them to the translation list and the editor (server-sent events).
// One bus per app (Db.state, server/cache, like the caches): two apps in one process never hear each other's events except
// through Redis, as two processes would. With REDIS_URL the bus is bridged over Redis pub/sub (a channel under the
// queue prefix, so installs sharing a Redis stay apart), so a web server sees the events of workers elsewhere.
import { randomBytes } from 'node:crypto';
import type { ChangeClock } from '../db/changes';
import { namespace } from '../cache/index';
import type { Db } from '../db/index';
import type { ProjectEvent } from '../../contract/events';

type Listener = (e: ProjectEvent) => void;

class ProjectEventBus {
  private readonly listeners = new Set<Listener>();
  private readonly origin = randomBytes(6).toString('hex');
  private redis: { pub: import('ioredis').Redis; sub: import('ioredis').Redis; channel: string; users: number } | null = null;

  /** `changes`: the database's change clock, moved on by each event of another process (see bridge). */
  constructor(private readonly changes: ChangeClock) {}

  /** Sends an event to this process's listeners (and, bridged, to the other processes). */
  publish(e: ProjectEvent): void {
    this.deliver(e);
    if (this.redis) void this.redis.pub.publish(this.redis.channel, JSON.stringify({ o: this.origin, e })).catch(() => {});
  }

  /** Calls `fn` for every event that `filter` accepts; returns the unsubscribe function. */
  subscribe(filter: (e: ProjectEvent) => boolean, fn: Listener): () => void {
    const l: Listener = (e) => {
      if (filter(e)) fn(e);
    };
    this.listeners.add(l);
    return () => void this.listeners.delete(l);
  }

  listenerCount(): number {
    return this.listeners.size;
  }

  /** Bridges the bus over Redis (REDIS_URL), on the channel of the queue prefix `prefix`. */
  async bridge(redisUrl: string, prefix: string): Promise<void> {
    if (this.redis) {
      this.redis.users++;
      return;
    }
    const { Redis } = await import('ioredis');
    const pub = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    const sub = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    pub.on('error', () => {});
    sub.on('error', () => {});
    sub.on('message', (_ch: string, raw: string) => {
      try {
        const m = JSON.parse(raw) as { o: string; e: ProjectEvent };
        if (m.o === this.origin) return;
        // Another process changed the project (its writes are committed before it publishes): reads this process
        // kept (server/cache/kept-reads.ts) are read again before a listener, told of the event, asks for them. The
        // database's own change notice may arrive later than this event.
        this.changes.bump();
        this.deliver(m.e);
      } catch {
        // not ours
      }
    });
    const channel = `${prefix}:project-events`;
    await sub.subscribe(channel);
    this.redis = { pub, sub, channel, users: 1 };
  }

  /** Ends the Redis bridge when its last user (bridge call) is gone. */
  async unbridge(): Promise<void> {
    if (!this.redis || --this.redis.users > 0) return;
    const { pub, sub } = this.redis;
    this.redis = null;
    await Promise.allSettled([pub.quit(), sub.quit()]);
  }

  private deliver(e: ProjectEvent): void {
    for (const l of this.listeners) {
      try {
        l(e);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}

const PROJECT_EVENTS = namespace('project-events', (changes) => new ProjectEventBus(changes));

/** The bus of a database (made on first use; shared by its transaction handles). */
export function projectEventsOf(db: Db): ProjectEventBus {
  return db.state.of(PROJECT_EVENTS);
}
