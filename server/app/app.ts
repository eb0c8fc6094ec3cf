// The Hono app: /api with every domain router, JSON errors, and the two front-end builds as static files.
import { withToolLimits } from '../media/run';
import { Hono, type Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import { bodyLimit } from 'hono/body-limit';
import { randomUUID } from 'node:crypto';
import { createLogger } from '../observability';
import { serveStatic } from '@hono/node-server/serve-static';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppDeps } from '../deps';
import type { AppEnv, Callers } from '../http/env';
import { accountOf, resolveIdentity } from '../domains/auth/identity';
import { contentSecurityPolicy } from './csp';
import { embedContentSecurityPolicy, injectEmbedSettings } from './embed-page';
import { errorResponse } from '../http/errors';
import { loggableRequestUrl } from './log-url';
import { isDbUnavailable } from '../db/index';
import { authenticate } from './authenticate';
import { mountGates } from './gates';
import { mountCreatingCalls } from './api-guards';
import { MOUNTS } from './routes';
import { createDocsRoutes } from './docs';

/** Who a bearer token is and their account, for the route guards of server/http/auth.ts. */
const CALLERS: Callers = { resolveIdentity, accountOf };

export interface AppOptions {
  /** Folder holding dist/standalone and dist/embed; static serving is off when absent. */
  distDir?: string | null;
  log?: (msg: string, meta?: Record<string, unknown>) => void;
}

/** The standalone build's policy: the full policy (server/app/csp.ts), never framed. */
export function standaloneCsp(config: { s3: { endpoint: string | null } | null }): string {
  return contentSecurityPolicy(config, "'none'");
}

interface StaticOptions {
  /** Headers of every response of this build (e.g. its Content-Security-Policy). */
  headers?: Record<string, string>;
  /** Rewrites index.html before it is sent. */
  index?: (html: string) => string;
}

/**
 * One front-end build: its files through @hono/node-server's serveStatic (streamed, ranges, HEAD), hashed
 * assets cached for a year; asset-looking paths that do not exist are 404s; every other path is the
 * single-page app's index.html (rewritten by `opts.index`). Null when the build is missing.
 */
function staticHandler(root: string, prefix: string, opts: StaticOptions = {}) {
  const indexPath = join(root, 'index.html');
  const extra = opts.headers ?? {};
  const files = serveStatic({
    root,
    rewriteRequestPath: (path) => path.slice(prefix.length),
  });
  return async (c: Context<AppEnv>): Promise<Response | null> => {
    if (!existsSync(indexPath)) return null;
    const rel = c.req.path.slice(prefix.length).replace(/^\/+/, '');
    if (rel !== '' && rel !== 'index.html') {
      // Headers set on the context before serveStatic builds its response are part of it.
      for (const [k, v] of Object.entries(extra)) c.header(k, v);
      c.header('cache-control', rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      const found = await files(c, async () => {});
      if (found) return found;
      if (/\.[a-z0-9]{1,8}$/i.test(rel)) return new Response('Not found', { status: 404, headers: extra });
    }
    const html = readFileSync(indexPath, 'utf8');
    return new Response(opts.index ? opts.index(html) : html, {
      headers: { ...extra, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' },
    });
  };
}

/** The matched route pattern (metrics label): the last matched handler that is not a catch-all. */
function routeLabel(c: Context<AppEnv>): string {
  const routes = matchedRoutes(c).filter((r) => !r.path.endsWith('*'));
  const last = routes[routes.length - 1];
  if (!last) return c.req.path.startsWith('/api/') ? 'unmatched' : 'static';
  return last.path;
}

/**
 * Sets headers on the response a handler made. In place when its headers can change (every response made here:
 * @hono/node-server's light responses keep their headers apart from the body, so the fast path that writes them
 * stays); c.header() after the handler would copy the whole response for each header. A response whose headers
 * are immutable (one from fetch) gets them through c.header(), which copies it.
 */
function setHeaders(c: Context<AppEnv>, headers: ReadonlyArray<readonly [string, string]>): void {
  const target = c.res.headers;
  for (const [name, value] of headers) {
    try {
      target.set(name, value);
    } catch {
      c.header(name, value);
    }
  }
}

 /** Largest JSON request body (a 50-segment transcript batch is far below). */
export const MAX_JSON_BODY = 2 * 1024 * 1024;

const REQUEST_ID = /^[\w.:-]{1,100}$/;

/**
 * The /api router, in the order a request meets it: authentication (server/app/authenticate.ts: one middleware,
 * the public routes say so in their facts), the plan gates (server/app/gates.ts), the creating calls'
 * Idempotency-Key and job limits (server/app/api-guards.ts), the domain routers (which validate the request), the
 * OpenAPI document and reference page of all of them.
 */
export function createApiRouter(): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  api.use('*', authenticate);
  mountGates(api);
  mountCreatingCalls(api);
  for (const m of MOUNTS) api.route(m.path, m.router);
  api.route('/', createDocsRoutes(() => api.routes));
  api.all('*', (c) => c.json({ detail: 'Not found' }, 404));
  return api;
}

export function createApp(deps: AppDeps, opts: AppOptions = {}) {
  const baseLogger = deps.logger ?? createLogger({ production: deps.config.production, logLevel: 'silent', logPretty: false });
  const log = opts.log ?? ((msg, meta) => baseLogger.error(meta ?? {}, msg));
  const app = new Hono<AppEnv>();
  const csp = standaloneCsp(deps.config);

  // Request id, a logger carrying it on every line, the access log and the latency histogram.
  app.use('*', async (c, next) => {
    const given = c.req.header('x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    const reqLog = baseLogger.child({ requestId });
    c.set('deps', deps);
    c.set('callers', CALLERS);
    c.set('identity', null);
    c.set('requestId', requestId);
    c.set('log', reqLog);
    const t0 = performance.now();
    // The tools a request starts (waveforms, deliverables) take the app's CPU slots (server/media/run.ts).
    await withToolLimits(deps.tools, next);
    const seconds = (performance.now() - t0) / 1000;
    const route = routeLabel(c);
    // A body too large is answered before it is read, and the rest of it is then dropped with the connection:
    // say so (Connection: close), so the client does not send its next request on that connection.
    setHeaders(c, c.res.status === 413 ? [['X-Request-Id', requestId], ['Connection', 'close']] : [['X-Request-Id', requestId]]);
    deps.metrics?.httpDuration.observe({ method: c.req.method, route, status: String(c.res.status) }, seconds);
    if (route !== 'static') {
      const user = c.get('user') as { id?: string } | undefined;
      reqLog.info({ method: c.req.method, route, path: loggableRequestUrl(c.req.url), status: c.res.status, ms: Math.round(seconds * 10000) / 10, userId: user?.id }, 'request');
    }
  });

  // Security headers on every response; the standalone pages get a Content-Security-Policy (the embedded
  // build's, the same policy with frame-ancestors from configuration, is set on /embed by its own handler).
  app.use('*', async (c, next) => {
    await next();
    const page = !c.req.path.startsWith('/embed');
    setHeaders(c, [
      ['X-Content-Type-Options', 'nosniff'],
      ['Referrer-Policy', 'strict-origin-when-cross-origin'],
      ...(page ? ([['X-Frame-Options', 'DENY']] as const) : []),
      ...(page && (c.res.headers.get('content-type') ?? '').startsWith('text/html') ? ([['Content-Security-Policy', csp]] as const) : []),
    ]);
  });

  // Prometheus metrics (outside /api; behind METRICS_TOKEN when set).
  app.get('/metrics', async (c) => {
    const m = deps.metrics;
    if (!m) return c.json({ detail: 'Not found' }, 404);
    const token = deps.config.metricsToken;
    if (token && c.req.header('authorization') !== `Bearer ${token}`) return c.json({ detail: 'Not authenticated' }, 401);
    return c.body(await m.registry.metrics(), 200, { 'content-type': m.registry.contentType });
  });

  app.onError((err, c) => {
    const known = errorResponse(err);
    if (known) return c.json({ ...known.body, detail: known.body.detail }, known.status, known.headers);
    const status = (err as { status?: number }).status;
    if (status === 413) return c.json({ detail: 'Request body too large' }, 413);
    if (isDbUnavailable(err)) {
      (c.get('log') ?? baseLogger).warn({ path: loggableRequestUrl(c.req.url), error: err instanceof Error ? err.message : String(err) }, 'database unavailable');
      if (opts.log) log('database unavailable', { path: loggableRequestUrl(c.req.url), error: err instanceof Error ? err.message : String(err) });
      return c.json({ detail: 'The database is not reachable right now: try again in a moment' }, 503, { 'Retry-After': '2' });
    }
    (c.get('log') ?? baseLogger).error({ path: loggableRequestUrl(c.req.url), err }, 'unhandled error');
    if (opts.log) log('unhandled error', { path: loggableRequestUrl(c.req.url), error: err instanceof Error ? err.stack : String(err) });
    return c.json({ detail: 'Internal server error' }, 500);
  });

  // Body size: JSON calls are bounded (uploads have their own limit, MAX_VIDEO_SIZE).
  const jsonLimit = bodyLimit({ maxSize: MAX_JSON_BODY, onError: (c) => c.json({ detail: 'Request body too large (the limit is 2 MB)' }, 413) });
  app.use('/api/*', async (c, next) => {
    // GET and HEAD carry no body: the limit would only build the full Request object of every read.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    if (c.req.path.startsWith('/api/library/media') || c.req.path.startsWith('/api/library/tus')) return next();
    // The dictionary CSV import has its own limit (GLOSSARY_CSV_MAX_BYTES, server/domains/glossaries/routes.ts).
    if (/^\/api\/glossary\/[^/]+\/import$/.test(c.req.path)) return next();
    return jsonLimit(c, next);
  });

  app.route('/api', createApiRouter());

  if (opts.distDir) {
    // The embedded build: the standalone build's full policy, but framed only by the configured admin origins;
    // the app key in its index.html.
    const embed = staticHandler(join(opts.distDir, 'embed'), '/embed', {
      headers: { 'content-security-policy': embedContentSecurityPolicy(deps.config) },
      index: (html) => injectEmbedSettings(html, deps.config),
    });
    // The standalone build's security headers (its full Content-Security-Policy) are set by the middleware above.
    const standalone = staticHandler(join(opts.distDir, 'standalone'), '');
    app.get('/embed', (c) => c.redirect('/embed/'));
    app.get('/embed/*', async (c) => (await embed(c)) ?? c.text('Embedded build missing: run npm run build', 503));
    app.get('*', async (c) => (await standalone(c)) ?? c.text('Front end not built: run npm run build', 503));
  }
  app.notFound((c) => c.json({ detail: 'Not found' }, 404));
  return app;
}
