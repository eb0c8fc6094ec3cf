// The session-replay sink (spec sections 7 and 9): off unless the build gives it an endpoint
// (VITE_SESSION_REPLAY_URL). 1% of sessions are recorded (VITE_SESSION_REPLAY_SAMPLE_RATE overrides); a
// session ends after 30 minutes without activity (the next one is sampled afresh) and is recorded for 24 hours
// at most. The sampling decision is kept with the session (localStorage), so reloads do not re-draw it. What is recorded: the page (path, viewport), navigation, clicks and inputs by element path (never
// what is typed), scrolling, resizes, visibility and the analytics bus's events. Events go in batches of 1000,
// flushed every 10 s, as a gzip body (POST, Content-Encoding: gzip). A failing or blocked endpoint drops the
// batch: nothing the user does waits for it or sees it fail.
import { addAnalyticsSink } from './analytics';

export const SESSION_REPLAY = {
  sampleRate: 0.01,
  maxSessionMs: 24 * 3600 * 1000,
  idleTimeoutMs: 30 * 60 * 1000,
  batchSize: 1000,
  flushMs: 10_000,
  timeoutMs: 90_000,
} as const;

export const REPLAY_SESSION_KEY = 'replay_session';

export interface ReplayEvent {
  type: 'meta' | 'navigation' | 'click' | 'input' | 'scroll' | 'resize' | 'visibility' | 'event';
  /** Milliseconds since the session started. */
  t: number;
  data: Record<string, unknown>;
}

interface SessionRecord {
  id: string;
  started: number;
  last: number;
  sampled: boolean;
}

export interface SessionReplayOptions {
  url: string;
  apiKey?: string;
  sampleRate?: number;
  fetch?: typeof fetch;
  random?: () => number;
  now?: () => number;
  /** Where the session record is kept (localStorage: one session across tabs and reloads). */
  storage?: Pick<Storage, 'getItem' | 'setItem'>;
  /** The page recorded (default: the current window). */
  target?: Window;
  batchSize?: number;
  flushMs?: number;
  timeoutMs?: number;
}

export interface SessionReplay {
  /** Whether this session is recorded (the sampling decision of the current session). */
  readonly sampled: boolean;
  readonly sessionId: string;
  identify(user: { id: string; email: string; email_type: string } | null): void;
  /** Sends what is queued now. Never rejects. */
  flush(): Promise<void>;
  stop(): void;
}

/** A short CSS-like path of an element (tag, id, first class, data-item/data-tour): no text, no values. */
export function elementPath(el: Element | null, depth = 5): string {
  const parts: string[] = [];
  for (let e = el, i = 0; e && i < depth && e.tagName; e = e.parentElement, i++) {
    let p = e.tagName.toLowerCase();
    if (e.id) p += `#${e.id}`;
    const cls = typeof e.className === 'string' ? e.className.trim().split(/\s+/)[0] : '';
    if (cls) p += `.${cls}`;
    const item = e.getAttribute('data-item') ?? e.getAttribute('data-tour');
    if (item) p += `[${e.hasAttribute('data-item') ? 'data-item' : 'data-tour'}=${item}]`;
    parts.unshift(p);
    if (e.id) break;
  }
  return parts.join(' > ');
}

async function gzipBody(text: string): Promise<{ body: BodyInit; gzip: boolean }> {
  const CS = (globalThis as { CompressionStream?: typeof CompressionStream }).CompressionStream;
  if (!CS) return { body: text, gzip: false };
  const stream = new Blob([text]).stream().pipeThrough(new CS('gzip'));
  return { body: await new Response(stream).arrayBuffer(), gzip: true };
}

function randomId(): string {
  const b = new Uint8Array(8);
  globalThis.crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

export function startSessionReplay(o: SessionReplayOptions): SessionReplay {
  const now = o.now ?? (() => Date.now());
  const random = o.random ?? Math.random;
  const rate = o.sampleRate ?? SESSION_REPLAY.sampleRate;
  const batchSize = o.batchSize ?? SESSION_REPLAY.batchSize;
  const doFetch = o.fetch ?? ((...a: Parameters<typeof fetch>) => globalThis.fetch(...a));
  const store = o.storage ?? safeLocalStorage();
  const win = o.target ?? (globalThis as unknown as Window);

  function read(): SessionRecord | null {
    try {
      const raw = store?.getItem(REPLAY_SESSION_KEY);
      return raw ? (JSON.parse(raw) as SessionRecord) : null;
    } catch {
      return null;
    }
  }
  function write(s: SessionRecord): void {
    try {
      store?.setItem(REPLAY_SESSION_KEY, JSON.stringify(s));
    } catch {
      /* storage full or blocked: the session lives in memory */
    }
  }
  function fresh(at: number): SessionRecord {
    return { id: randomId(), started: at, last: at, sampled: random() < rate };
  }

  let session = read();
  const t0 = now();
  if (!session || t0 - session.last > SESSION_REPLAY.idleTimeoutMs) session = fresh(t0);
  session.last = t0;
  write(session);

  const queue: ReplayEvent[] = [];
  let who: { id: string; email: string; email_type: string } | null = null;
  let lastUrl = '';
  let stopped = false;
  const cleanups: Array<() => void> = [];

  /** Activity: a new session after the idle time-out (sampled afresh); nothing after the 24 h limit. */
  function touch(): boolean {
    const at = now();
    const s = session!;
    if (at - s.last > SESSION_REPLAY.idleTimeoutMs) {
      sendQueued();
      session = fresh(at);
      lastUrl = '';
    } else {
      s.last = at;
    }
    write(session!);
    return session!.sampled && at - session!.started <= SESSION_REPLAY.maxSessionMs;
  }

  function push(type: ReplayEvent['type'], data: Record<string, unknown>): void {
    if (stopped || !touch()) return;
    // The page first (meta at the start of a session, navigation when the path changed since the last event).
    const path = win.location?.pathname ?? '';
    if (path !== lastUrl || type === 'meta') {
      const first = lastUrl === '' || type === 'meta';
      lastUrl = path;
      queue.push({ type: first ? 'meta' : 'navigation', t: now() - session!.started, data: { path, width: win.innerWidth, height: win.innerHeight } });
    }
    if (type !== 'meta' && type !== 'navigation') queue.push({ type, t: now() - session!.started, data });
    if (queue.length >= batchSize) sendQueued();
  }

  /** Sends one batch of a session; never rejects. */
  async function send(s: SessionRecord, events: ReplayEvent[]): Promise<void> {
    try {
      const { body, gzip } = await gzipBody(JSON.stringify({ session_id: s.id, started: s.started, user: who, events }));
      await doFetch(o.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
          ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
        },
        body,
        signal: AbortSignal.timeout(o.timeoutMs ?? SESSION_REPLAY.timeoutMs),
        keepalive: true,
      });
    } catch {
      /* a blocked or failing service changes nothing for the user: the batch is dropped */
    }
  }

  const inFlight = new Set<Promise<void>>();
  /** Takes everything queued now (in batches, with the session it belongs to) and starts sending it. */
  function sendQueued(): void {
    const s = { ...session! };
    while (queue.length > 0) {
      const p = send(s, queue.splice(0, batchSize));
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
  }

  async function flush(): Promise<void> {
    sendQueued();
    await Promise.all([...inFlight]);
  }

  // Listeners only for a recorded session: an unsampled one costs nothing.
  if (session.sampled) {
    const on = <K extends keyof WindowEventMap>(name: K, fn: (e: WindowEventMap[K]) => void, opts?: AddEventListenerOptions) => {
      const safe = (e: WindowEventMap[K]) => {
        try {
          fn(e);
        } catch {
          /* never breaks the page */
        }
      };
      win.addEventListener(name, safe, opts);
      cleanups.push(() => win.removeEventListener(name, safe, opts));
    };
    let scrollAt = 0;
    on('click', (e) => push('click', { path: elementPath(e.target as Element | null), x: Math.round(e.clientX), y: Math.round(e.clientY) }), { capture: true, passive: true });
    on('change', (e) => push('input', { path: elementPath(e.target as Element | null) }), { capture: true, passive: true });
    on('scroll', () => {
      const at = now();
      if (at - scrollAt < 250) return;
      scrollAt = at;
      push('scroll', { x: Math.round(win.scrollX), y: Math.round(win.scrollY) });
    }, { capture: true, passive: true });
    on('resize', () => push('resize', { width: win.innerWidth, height: win.innerHeight }), { passive: true });
    on('popstate', () => push('navigation', {}));
    const vis = () => push('visibility', { hidden: win.document?.hidden ?? false });
    win.document?.addEventListener('visibilitychange', vis);
    cleanups.push(() => win.document?.removeEventListener('visibilitychange', vis));
    cleanups.push(addAnalyticsSink((m) => push('event', { name: m.event })));
    push('meta', {});
    const timer = setInterval(() => void flush(), o.flushMs ?? SESSION_REPLAY.flushMs);
    cleanups.push(() => clearInterval(timer));
  }

  return {
    get sampled() {
      return session!.sampled;
    },
    get sessionId() {
      return session!.id;
    },
    identify(user) {
      who = user;
    },
    flush,
    stop() {
      stopped = true;
      for (const c of cleanups.splice(0)) c();
    },
  };
}

function safeLocalStorage(): Pick<Storage, 'getItem' | 'setItem'> | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

/** The sink from the build's configuration, or null (the default: off). */
export function sessionReplayFromEnv(env: Record<string, string | undefined>): SessionReplay | null {
  const url = env.VITE_SESSION_REPLAY_URL?.trim();
  if (!url) return null;
  const rate = Number(env.VITE_SESSION_REPLAY_SAMPLE_RATE);
  return startSessionReplay({
    url,
    apiKey: env.VITE_SESSION_REPLAY_KEY,
    sampleRate: Number.isFinite(rate) && rate >= 0 && rate <= 1 && env.VITE_SESSION_REPLAY_SAMPLE_RATE?.trim() ? rate : SESSION_REPLAY.sampleRate,
  });
}
