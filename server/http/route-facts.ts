// What a route says of itself, stated once where the route is registered: its OpenAPI description, its plan gates
// and whether it is a creating call. A routes file passes `routeFacts({...})` as the first handler of the route:
//
//   projectsRoutes.post('/create_transcript', routeFacts({ summary: '...', body: 'CreateTranscriptRequest', ...,
//     gates: [{ feature: 'glossary', scope: 'space', when: (r) => has(r.body.glossary_id), note: '...' }],
//     creates: { startsJob: true } }), async (c) => { ... });
//
// It is a pass-through middleware that carries the facts; the lists the app needs are derived from the routes of
// the mounted routers (server/app/routes.ts MOUNTS): the plan gates (server/app/gates.ts GATES), the creating
// calls (server/app/api-guards.ts CREATING_CALLS) and the OpenAPI operations (server/app/openapi.ts).
import type { MiddlewareHandler } from 'hono';
import type { FeatureKey } from '../../contract/features';
import type { AppEnv } from './env';
import type { SchemaName } from './schemas';

export interface GateRequest {
  body: Record<string, unknown>;
  query: Record<string, string>;
}

/** A plan gate of a route: enforced by server/app/gates.ts before the route's own handlers run. */
export interface GateFact {
  feature: FeatureKey;
  /**
   * Whose plan applies: 'project' (the space of the :id project), 'space' (the space_id query; the caller's own
   * plan when absent), 'user' (the caller's own plan) or 'glossary' (the space of the :id or ?glossary_id
   * dictionary).
   */
  scope: 'project' | 'space' | 'user' | 'glossary';
  /** Only when the request asks for the gated part (read from the JSON body or the query). */
  when?: (req: GateRequest) => boolean;
  /** What is gated, for people reading the route (and the API document). */
  note: string;
}

export interface QueryFact {
  name: string;
  required?: boolean;
  description: string;
}

/**
 * The error statuses a route may state beyond those the app answers for every route of its kind (server/app/openapi.ts
 * commonErrors): the ones its own handlers and services throw (server/errors.ts codes, mapped to statuses in
 * server/http/errors.ts STATUS_OF, or an ApiError's own status).
 */
export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 502 | 503 | 504 | 507;

/** The 503 of a request the database could not answer (server/app/app.ts): every route that reads it. */
export const DATABASE_DOWN = 'The database is not reachable right now: try again (see Retry-After)';

export interface RouteFacts {
  /** The OpenAPI summary; without it the route is listed with the generic answer shapes. */
  summary?: string;
  body?: SchemaName;
  /** The body may be left out. */
  bodyOptional?: true;
  response?: SchemaName;
  /** The answer is an array of `response`. */
  list?: true;
  /** Success status (default 200). */
  status?: number;
  query?: QueryFact[];
  example?: unknown;
  /**
   * The request needs no bearer token: the one authentication middleware of /api (server/app/authenticate.ts)
   * lets it through (a route that reads an optional caller calls `optionalUser` itself). Every other route
   * needs a valid token of an active account.
   */
  public?: boolean;
  /**
   * A valid token is enough: the identity may have no product account yet (sets `identity`, not `user`).
   */
  identity?: true;
  /** The success body is bytes of this media type (not JSON). */
  binary?: string;
  /** Plan gates, in the order they are checked. */
  gates?: GateFact[];
  /**
   * A creating call of the public API (server/app/api-guards.ts): it accepts an Idempotency-Key, and when it
   * starts pipeline work the concurrent-jobs limit of API keys applies.
   */
  creates?: { startsJob: boolean };
  /**
   * The error statuses this route answers besides the common ones, each with what it means here (e.g.
   * `{ 402: 'Not enough minutes' }`). The OpenAPI document lists them with the Error schema; a status the
   * common set has too gets both texts.
   */
  errors?: Partial<Record<ErrorStatus, string>>;
}

const FACTS = new WeakMap<object, RouteFacts>();
/** Every routeFacts() made, to find those no mounted route carries. */
const MADE = new Set<RouteFacts>();

/** The facts of a route: pass it first among the route's handlers. */
export function routeFacts(facts: RouteFacts): MiddlewareHandler<AppEnv> {
  const carrier: MiddlewareHandler<AppEnv> = (_c, next) => next();
  FACTS.set(carrier, facts);
  MADE.add(facts);
  return carrier;
}

/** Hono wraps the handlers of a router that has its own error handler, keeping the original here. */
const COMPOSED_HANDLER = '__COMPOSED_HANDLER';
/** The facts a handler carries (a routeFacts() carrier, or a handler Hono wrapped around one). */
export const factsOf = (handler: unknown): RouteFacts | undefined => {
  if (typeof handler !== 'function') return undefined;
  return FACTS.get(handler) ?? factsOf((handler as unknown as Record<string, unknown>)[COMPOSED_HANDLER]);
};

/** A route as Hono lists it (app.routes). */
interface ListedRoute {
  method: string;
  path: string;
  handler?: unknown;
}

interface DeclaredRoute {
  method: string;
  path: string;
  facts: RouteFacts;
}

/** The routes of a router (Hono's `routes`, nested routers included) that state their facts. */
export function declaredRoutes(routes: readonly ListedRoute[]): DeclaredRoute[] {
  const out: DeclaredRoute[] = [];
  for (const r of routes) {
    const facts = factsOf(r.handler);
    if (facts) out.push({ method: r.method, path: r.path, facts });
  }
  return out;
}

/**
 * Refuses facts made so far that none of these routes carries (a route on a router that is not mounted): its
 * plan gates would not be enforced.
 */
export function assertAllDeclared(declared: readonly DeclaredRoute[]): void {
  const found = new Set(declared.map((r) => r.facts));
  const lost = [...MADE].filter((f) => !found.has(f));
  if (lost.length > 0) throw new Error(`Route facts on no mounted route: ${lost.map((f) => f.summary ?? JSON.stringify(f.gates?.map((g) => g.note))).join('; ')}`);
}

/** The Teamspace query parameter most routes take. */
export const SPACE_Q: QueryFact = { name: 'space_id', required: true, description: 'The Teamspace' };

/** A value was sent (for a gate's `when`). */
export const has = (v: unknown) => v !== undefined && v !== null && v !== '';

/** Distinct target languages a create asks for (dst_lang and dst_langs together). */
export function targetLanguageCount(body: Record<string, unknown>): number {
  const list = [body.dst_lang, ...(Array.isArray(body.dst_langs) ? body.dst_langs : [])];
  return new Set(list.filter((l): l is string => typeof l === 'string').map((l) => l.trim().toLowerCase())).size;
}
