// Live events from the API (server-sent events over fetch, so the bearer token goes in a header; the
// `eventsource` package does the protocol and reconnects). One connection per URL, shared by every
// subscriber; `connected` tells the caller whether to keep polling as the fallback.
import { EventSource } from 'eventsource';
import { useEffect, useRef, useState } from 'react';
import { getAuthProvider } from './auth/active';
import type { Project } from '../../contract/schemas/project';
import type { ProjectEvent } from '../../contract/events';
import { apiBaseUrl } from './http';

/** Polling while the live stream is connected: only a safety net. */
export const LIVE_POLL_MS = 30_000;

/**
 * A project as a live event changes it (status and progress), or the same object when nothing changed.
 * `stale` tells that the status moved: the other fields (cover, duration...) need a fresh read.
 */
export function applyLiveEvent(p: Project, e: ProjectEvent): { project: Project; stale: boolean } {
  if (p.id !== e.id) return { project: p, stale: false };
  const stale = p.status !== e.status;
  // a progress step of the status shown never moves the bar backwards
  const progress = stale ? e.progress : Math.max(p.progress, e.progress);
  if (!stale && progress === p.progress) return { project: p, stale: false };
  return { project: { ...p, status: e.status, progress }, stale };
}

type Handler = (e: ProjectEvent) => void;
type StateHandler = (connected: boolean) => void;

interface Connection {
  source: EventSource | null;
  handlers: Set<Handler>;
  states: Set<StateHandler>;
  connected: boolean;
  retry: ReturnType<typeof setTimeout> | null;
}

/** After the server refused the stream (e.g. an expired session), it is tried again this much later. */
const REOPEN_MS = 30_000;

const connections = new Map<string, Connection>();

/** The stream URL of an API path ('project/events?space_id=x'). */
export function liveUrl(path: string): string {
  return new URL(path.replace(/^\//, ''), apiBaseUrl()).href;
}

function connect(url: string, conn: Connection): void {
  const source = new EventSource(url, {
    fetch: async (input, init) => {
      const token = await getAuthProvider()?.getToken().catch(() => null);
      return fetch(input, { ...init, headers: { ...init.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    },
  });
  conn.source = source;
  const setState = (c: boolean) => {
    if (conn.connected === c) return;
    conn.connected = c;
    conn.states.forEach((s) => s(c));
  };
  source.addEventListener('ready', () => setState(true));
  source.addEventListener('error', () => {
    setState(false);
    // a refused stream is not retried by EventSource itself: try again later (polling meanwhile)
    if (source.readyState === EventSource.CLOSED && conn.source === source && conn.handlers.size > 0) {
      conn.source = null;
      conn.retry = setTimeout(() => {
        conn.retry = null;
        if (conn.handlers.size > 0) connect(url, conn);
      }, REOPEN_MS);
    }
  });
  source.addEventListener('project', (m) => {
    let e: ProjectEvent;
    try {
      e = JSON.parse(m.data) as ProjectEvent;
    } catch {
      return;
    }
    conn.handlers.forEach((h) => h(e));
  });
}

function open(url: string): Connection {
  const conn: Connection = { source: null, handlers: new Set(), states: new Set(), connected: false, retry: null };
  connect(url, conn);
  return conn;
}

/**
 * Subscribes to the events of `path` (null: none). Returns the unsubscribe function; `onState` hears
 * whether the stream is live (false until it is, and while it reconnects).
 */
export function subscribeLive(path: string, onEvent: Handler, onState?: StateHandler): () => void {
  if (typeof fetch !== 'function' || typeof ReadableStream === 'undefined') return () => {};
  const url = liveUrl(path);
  let conn = connections.get(url);
  if (!conn) {
    conn = open(url);
    connections.set(url, conn);
  }
  const c = conn;
  c.handlers.add(onEvent);
  if (onState) {
    c.states.add(onState);
    onState(c.connected);
  }
  return () => {
    c.handlers.delete(onEvent);
    if (onState) c.states.delete(onState);
    if (c.handlers.size === 0) {
      c.source?.close();
      if (c.retry) clearTimeout(c.retry);
      connections.delete(url);
    }
  };
}

/** React: live events of `path` while mounted; returns whether the stream is live. */
export function useLiveEvents(path: string | null, onEvent: Handler): boolean {
  const [connected, setConnected] = useState(false);
  const handler = useRef(onEvent);
  handler.current = onEvent;
  useEffect(() => {
    if (!path) {
      setConnected(false);
      return;
    }
    return subscribeLive(path, (e) => handler.current(e), setConnected);
  }, [path]);
  return connected;
}
