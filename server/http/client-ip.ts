// The caller's address: the socket's remote address, or X-Forwarded-For behind a trusted proxy.
import type { Context } from 'hono';
import type { AppEnv } from './env';

type NodeEnv = { incoming?: { socket?: { remoteAddress?: string } } };

export function clientIp(c: Context<AppEnv>): string {
  if (c.get('deps').config.trustProxy) {
    const xff = c.req.header('x-forwarded-for');
    if (xff) {
      // The right-most entry is the one our proxy appended (the left ones are client-controlled).
      const parts = xff.split(',').map((s) => s.trim()).filter(Boolean);
      const last = parts[parts.length - 1];
      if (last) return last.slice(0, 100);
    }
  }
  const env = c.env as NodeEnv | undefined;
  return env?.incoming?.socket?.remoteAddress ?? 'unknown';
}
