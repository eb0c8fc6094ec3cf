// /api/openapi.json (in production the document built by `npm run build`, dist/openapi.json; otherwise generated
// on first request) and /api/docs: the API reference, Swagger UI served from the installed swagger-ui-dist package (no CDN).
import { Hono } from 'hono';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getAbsoluteFSPath } from 'swagger-ui-dist';
import type { AppEnv } from '../http/env';
import { routeFacts } from '../http/route-facts';
import { buildOpenApi, type RegisteredRoute } from './openapi';

const BUILT = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/openapi.json');

/** In production the document built with the front end; elsewhere the one of the code as it is now. */
function documentText(production: boolean, routes: () => RegisteredRoute[]): string {
  return production && existsSync(BUILT) ? readFileSync(BUILT, 'utf8') : JSON.stringify(buildOpenApi(routes()));
}

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dubbing Studio API reference</title><link rel="stylesheet" href="/api/docs/swagger-ui.css"></head>
<body><div id="swagger-ui"></div><script src="/api/docs/swagger-ui-bundle.js"></script><script src="/api/docs/init.js"></script></body></html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#swagger-ui', deepLinking: true, tryItOutEnabled: false });`;

/**
 * The routes of the document and the reference page; `routes` are those of the /api router (paths under /api). The
 * document is made once per router, on its first request (an app's router: its routes, its config.production).
 */
export const createDocsRoutes = (routes: () => RegisteredRoute[]) => {
  let document: string | null = null;
  return new Hono<AppEnv>()
    .get('/openapi.json', routeFacts({ summary: 'This API document (OpenAPI 3.1)', public: true }), (c) => {
      document ??= documentText(c.get('deps').config.production, routes);
      return c.body(document, 200, { 'content-type': 'application/json', 'cache-control': 'no-cache' });
    })
    .get('/docs', routeFacts({ summary: 'The API reference page', binary: 'text/html', public: true }), (c) => c.html(PAGE))
    .get('/docs/:file', routeFacts({ summary: 'A script or style of the API reference page', binary: 'application/octet-stream', public: true }), (c) => {
      const file = c.req.param('file');
      if (file === 'init.js') return c.body(INIT, 200, { 'content-type': 'text/javascript; charset=utf-8' });
      const type = ASSETS[file];
      if (!type) return c.json({ detail: 'Not found' }, 404);
      return c.body(readFileSync(join(getAbsoluteFSPath(), file)), 200, { 'content-type': type, 'cache-control': 'public, max-age=86400' });
    });
};
