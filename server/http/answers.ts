// Sends a kept answer (server/cache/answers.ts) in the form the client accepts: brotli or gzip when its
// Accept-Encoding allows (as browsers and fetch send), the JSON bytes otherwise. `Vary: Accept-Encoding` tells
// caches the forms apart.
import type { Context } from 'hono';
import { MIN_COMPRESSED_BYTES, type AnswerEncoding, type KeptAnswer } from '../cache/answers';
import type { AppEnv } from './env';

/** The encoding to answer with for an Accept-Encoding header: br, then gzip; none when neither is acceptable. */
export function preferredEncoding(accept: string | undefined): AnswerEncoding | null {
  if (!accept) return null;
  const q = new Map<string, number>();
  for (const part of accept.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const qp = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const value = qp ? Number(qp.slice(2)) : 1;
    q.set(name, Number.isFinite(value) ? value : 0);
  }
  const weight = (name: string) => q.get(name) ?? q.get('*') ?? 0;
  if (weight('br') > 0) return 'br';
  if (weight('gzip') > 0 || (q.get('x-gzip') ?? 0) > 0) return 'gzip';
  return null;
}

/** The answer as a JSON response, compressed when the client accepts it and it is large enough to gain. */
export async function sendAnswer(c: Context<AppEnv>, answer: KeptAnswer): Promise<Response> {
  c.header('Content-Type', 'application/json');
  c.header('Vary', 'Accept-Encoding');
  const encoding = answer.body.length >= MIN_COMPRESSED_BYTES ? preferredEncoding(c.req.header('accept-encoding')) : null;
  if (!encoding) return c.body(bytesOf(answer.body));
  const bytes = await answer.encoded(encoding);
  c.header('Content-Encoding', encoding);
  return c.body(bytesOf(bytes));
}

/** A Buffer's bytes as the Uint8Array a response body takes (no copy; Node's buffers sit on plain ArrayBuffers). */
function bytesOf(b: Buffer): Uint8Array<ArrayBuffer> {
  return new Uint8Array(b.buffer as ArrayBuffer, b.byteOffset, b.byteLength);
}
