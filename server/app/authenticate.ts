// Authentication of /api, once per request: every route needs a valid bearer token of an active account (an
// access token, an API key, an embedded session token: server/domains/auth/identity.ts), except the routes that
// say otherwise in their routeFacts (server/http/route-facts.ts): `public` (no token needed; health, sign-up,
// sign-in and the other auth flows, webhooks, the API document and its page, signed file links, the settings of
// the app) and `identity` (a valid token whose identity has no product account yet: creating that account).
// Registered first on the /api router (server/app/app.ts), before the plan gates, the creating calls' guards and
// the routes, so a path no route answers is 401 without a valid token and 404 with one.
import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { requireIdentity, requireUser } from '../http/auth';
import type { AppEnv } from '../http/env';
import { declaredRoutes, factsOf, type RouteFacts } from '../http/route-facts';

/** A route as Hono lists it. */
interface ListedRoute {
  method: string;
  path: string;
  handler?: unknown;
}

/** The public routes of a router (paths as registered): the one list, read from the routes' own facts. @internal */
export function publicRoutes(routes: readonly ListedRoute[]): Array<{ method: string; path: string }> {
  return declaredRoutes(routes).filter((r) => r.facts.public).map(({ method, path }) => ({ method, path }));
}

/**
 * The facts of the route that answers this request: the first matched handler that carries facts (a route's
 * routeFacts is its first handler; middlewares carry none).
 */
function answeringFacts(c: Parameters<MiddlewareHandler<AppEnv>>[0]): RouteFacts | undefined {
  for (const r of matchedRoutes(c)) {
    const facts = factsOf(r.handler);
    if (facts) return facts;
  }
  return undefined;
}

/** The one authentication middleware of /api. */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const facts = answeringFacts(c);
  if (facts?.public) return next();
  if (facts?.identity) return requireIdentity(c, next);
  return requireUser(c, next);
};
