// The Hono app: /api with every domain router, JSON errors, and the two front-end builds as static files.
import { Hono } from 'hono';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve } from 'node:path';
import type { AppDeps } from '../deps';
import type { AppEnv } from './env';
import { ApiError } from './errors';
import { MOUNTS } from './routes';

export interface AppOptions {
  /** Folder holding dist/standalone and dist/embed; static serving is off when absent. */
  distDir?: string | null;
  log?: (msg: string, meta?: Record<string, unknown>) => void;
}

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg', '.ico': 'image/x-icon',
  '.json': 'application/json', '.woff2': 'font/woff2', '.woff': 'font/woff', '.map': 'application/json',
  '.txt': 'text/plain; charset=utf-8', '.webmanifest': 'application/manifest+json',
};

function staticHandler(root: string, prefix: string) {
  const indexPath = join(root, 'index.html');
  return (path: string): Response | null => {
    if (!existsSync(indexPath)) return null;
    const rel = decodeURIComponent(path.slice(prefix.length)).replace(/^\/+/, '');
    const file = normalize(join(root, rel));
    if (file.startsWith(resolve(root)) && rel !== '' && existsSync(file) && statSync(file).isFile()) {
      const ext = extname(file);
      const immutable = rel.startsWith('assets/');
      return new Response(readFileSync(file), {
        headers: {
          'content-type': MIME[ext] ?? 'application/octet-stream',
          'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        },
      });
    }
    // Asset-looking paths that do not exist are 404s; every other path is the single-page app.
    if (/\.[a-z0-9]{1,8}$/i.test(rel)) return new Response('Not found', { status: 404 });
    return new Response(readFileSync(indexPath), { headers: { 'content-type': MIME['.html'], 'cache-control': 'no-cache' } });
  };
}

export function createApp(deps: AppDeps, opts: AppOptions = {}) {
  const log = opts.log ?? ((msg, meta) => console.error(msg, meta ?? ''));
  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    c.set('deps', deps);
    c.set('identity', null);
    await next();
  });

  app.onError((err, c) => {
    if (err instanceof ApiError) {
      return c.json({ detail: err.detail }, err.status, err.headers);
    }
    const status = (err as { status?: number }).status;
    if (status === 413) return c.json({ detail: 'Request body too large' }, 413);
    log('unhandled error', { path: c.req.path, error: err instanceof Error ? err.stack : String(err) });
    return c.json({ detail: 'Internal server error' }, 500);
  });

  const api = new Hono<AppEnv>();
  for (const m of MOUNTS) api.route(m.path, m.router);
  api.all('*', (c) => c.json({ detail: 'Not found' }, 404));
  app.route('/api', api);

  if (opts.distDir) {
    const embed = staticHandler(join(opts.distDir, 'embed'), '/embed');
    const standalone = staticHandler(join(opts.distDir, 'standalone'), '');
    app.get('/embed', (c) => c.redirect('/embed/'));
    app.get('/embed/*', (c) => embed(c.req.path) ?? c.text('Embedded build missing: run npm run build', 503));
    app.get('*', (c) => standalone(c.req.path) ?? c.text('Front end not built: run npm run build', 503));
  }
  app.notFound((c) => c.json({ detail: 'Not found' }, 404));
  return app;
}
