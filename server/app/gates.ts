// The plan gates: each route states its own (`gates` in its routeFacts, server/http/route-facts.ts); they are
// collected here from the mounted routers (GATES) and enforced by one middleware per gate that asks the
// entitlements function (server/domains/billing/entitlements.ts). A route whose gate depends on the request (an
// SRT on create, a subtitle download) says so with `when`. Mounted by server/app/app.ts before the domain
// routers; a test walks GATES with a trial user (each refused) and a Business user (each allowed).
import type { Context, MiddlewareHandler } from 'hono';
import { decide, entitlementsFor, featureRefused, type Scope } from '../domains/billing/entitlements';
import { findProject } from '../domains/projects/repository';
import { glossarySpaceId } from '../domains/glossaries/repository';
import { isUuid } from '../domains/spaces/guard';
import { optionalSpaceIdFromQuery } from '../http/access';
import { requireSpaceAccess } from '../domains/spaces/access';
import type { AppEnv } from '../http/env';
import type { GateFact, GateRequest } from '../http/route-facts';
import { DECLARED_ROUTES } from './routes';

export type GateMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A plan gate of a route (its `gates` fact) with the route's method and path. */
export interface Gate extends GateFact {
  method: GateMethod;
  /** Path under /api, in Hono's syntax. */
  path: string;
}

/** Every plan gate, from the routes' `gates` facts (in the order the routes and their gates are declared). */
export const GATES: readonly Gate[] = DECLARED_ROUTES.flatMap((r) => (r.facts.gates ?? []).map((g) => ({ method: r.method as GateMethod, path: r.path, ...g })));

function bodyOf(text: string): Record<string, unknown> {
  try {
    const v: unknown = text.trim() === '' ? {} : JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {}; // the route's own parser answers 422 for a malformed body
  }
}

const MAX_GATE_BODY = 5 * 1024 * 1024;

async function gateRequest(c: Context<AppEnv>): Promise<GateRequest> {
  const len = Number(c.req.header('content-length') ?? '0');
  const json = (c.req.header('content-type') ?? '').includes('json');
  const body = json && len <= MAX_GATE_BODY && c.req.method !== 'GET' ? bodyOf(await c.req.text()) : {};
  return { body, query: c.req.query() };
}

/** The scope whose plan applies, after the caller's access was checked; null lets the route answer (404...). */
async function scopeOf(c: Context<AppEnv>, g: Gate): Promise<Scope | null> {
  const user = c.get('user');
  if (g.scope === 'user') return { userId: user.id };
  if (g.scope === 'space') {
    const spaceId = optionalSpaceIdFromQuery(c);
    if (spaceId === null) return { userId: user.id };
    return { spaceId: (await requireSpaceAccess(c, spaceId)).id };
  }
  if (g.scope === 'glossary') {
    const gid = c.req.param('id') ?? c.req.query('glossary_id');
    const spaceId = isUuid(gid) ? await glossarySpaceId(c.get('deps').db, gid) : null;
    return spaceId ? { spaceId: (await requireSpaceAccess(c, spaceId)).id } : null;
  }
  const id = c.req.param('id');
  if (!isUuid(id)) return null;
  const project = await findProject(c.get('deps').db, id);
  if (!project) return null;
  return { spaceId: (await requireSpaceAccess(c, project.space_id)).id };
}

/** The middleware of one gate: refuses with the 403 feature refusal when the plan does not include it. */
export function gateMiddleware(g: Gate): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const user = c.get('user');
    // Staff (superusers) are not limited by a plan.
    if (!user.is_superuser && (!g.when || g.when(await gateRequest(c)))) {
      const scope = await scopeOf(c, g);
      if (scope) {
        const d = decide(await entitlementsFor(c.get('deps').db, scope), g.feature);
        if (!d.allowed) throw featureRefused(d.refusal!);
      }
    }
    await next();
  };
}

/**
 * Registers every gate on the /api router (after authentication, server/app/authenticate.ts, which set `user`;
 * before the domain routers, so a plan refusal comes before the route validates the request).
 */
export function mountGates(api: { on(method: string, path: string, ...h: MiddlewareHandler<AppEnv>[]): unknown }): void {
  for (const g of GATES) api.on(g.method, g.path, gateMiddleware(g));
}
