// The creating calls of the public API (each route says so with `creates` in its routeFacts,
// server/http/route-facts.ts; collected here in CREATING_CALLS): each accepts an `Idempotency-Key` header (a retry with the
// same key and the same request answers the first answer again and creates nothing; the same key with another
// request is 422), and those that start a job are refused (429) to an API key whose user already runs as many
// jobs as their plan allows. Mounted by server/app/app.ts before the domain routers.
import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { claimJobSlot } from '../domains/apikeys/service';
import * as keys from '../domains/apikeys/repository';
import { conflict, unprocessable } from '../errors';
import type { AppEnv } from '../http/env';
import { DECLARED_ROUTES } from './routes';

export interface CreatingCall {
  method: 'POST';
  /** Path under /api, in Hono's syntax. */
  path: string;
  /** Starts pipeline work (the concurrent-jobs limit of API keys applies). */
  startsJob: boolean;
}

/** Every creating call, from the routes' `creates` facts (server/http/route-facts.ts). */
export const CREATING_CALLS: readonly CreatingCall[] = DECLARED_ROUTES.flatMap((r) =>
  r.facts.creates ? [{ method: 'POST' as const, path: r.path, startsJob: r.facts.creates.startsJob }] : []);

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
/** How long a key's first answer is kept. */
const IDEMPOTENCY_HOURS = 24;
const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

function badKey(msg: string, type: string) {
  return unprocessable([{ loc: ['header', IDEMPOTENCY_HEADER], msg, type }]);
}

export function creatingCallMiddleware(call: CreatingCall): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const deps = c.get('deps');
    const user = c.get('user');
    const viaKey = c.get('identity')?.via === 'api_key';
    const key = c.req.header(IDEMPOTENCY_HEADER);
    // An API caller's call that starts a job holds one of the plan's job slots while it is answered (claimed
    // atomically: concurrent calls cannot all pass); once it has answered, its job counts as running.
    const withSlot = async (): Promise<void> => {
      const release = call.startsJob && viaKey ? await claimJobSlot(deps, user) : null;
      try {
        await next();
      } finally {
        if (release) await release();
      }
    };
    if (key === undefined) return withSlot();
    if (!KEY_SHAPE.test(key)) throw badKey('The Idempotency-Key must be 1 to 255 visible ASCII characters', 'idempotency_key_invalid');
    const url = new URL(c.req.url);
    const body = c.req.method === 'GET' ? '' : await c.req.text();
    const hash = createHash('sha256').update(`${c.req.method} ${url.pathname}${url.search}\n${body}`).digest('hex');
    await keys.purgeIdempotencyKeys(deps.db, IDEMPOTENCY_HOURS);
    const seen = await keys.claimIdempotencyKey(deps.db, user.id, key, hash);
    if (seen) {
      if (seen.request_hash !== hash) {
        throw badKey('This Idempotency-Key was already used with a different request: use a new key', 'idempotency_key_reused');
      }
      if (seen.state === 'pending') throw conflict('A request with this Idempotency-Key is still being processed: retry in a moment');
      c.header('Idempotent-Replayed', 'true');
      return c.json(seen.response as object, (seen.status ?? 200) as ContentfulStatusCode);
    }
    try {
      await withSlot();
    } catch (e) {
      await keys.releaseIdempotencyKey(deps.db, user.id, key);
      throw e;
    }
    // Only a success is remembered: after an error the same key may be retried.
    const status = c.res.status;
    if (status >= 200 && status < 300 && (c.res.headers.get('content-type') ?? '').includes('json')) {
      await keys.finishIdempotencyKey(deps.db, user.id, key, status, await c.res.clone().json());
    } else {
      await keys.releaseIdempotencyKey(deps.db, user.id, key);
    }
  };
}

/** Registers the middleware of every creating call on the /api router (after authentication and the plan gates). */
export function mountCreatingCalls(api: { on(method: string, path: string, ...h: MiddlewareHandler<AppEnv>[]): unknown }): void {
  for (const call of CREATING_CALLS) api.on(call.method, call.path, creatingCallMiddleware(call));
}
