// The OpenAPI 3.1 document of /api, generated from the contract's valibot schemas (never written twice): every
// route the routers register (server/app/routes.ts MOUNTS) is listed; a route's facts (routeFacts in its routes
// file, server/http/route-facts.ts) name its request and response schemas, examples and statuses. Built at build time (scripts/openapi.ts -> dist/openapi.json) and
// served at /api/openapi.json; /api/docs renders it with a locally bundled Swagger UI.
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { SCHEMAS, type SchemaName } from '../http/schemas';
import { DATABASE_DOWN, declaredRoutes, type RouteFacts } from '../http/route-facts';

/** A route as the routers registered it (the handler carries the route's facts: server/http/route-facts.ts). */
export interface RegisteredRoute {
  method: string;
  path: string;
  handler?: unknown;
}

const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;
/** Methods documented for a route registered for every method (the tus upload endpoint). */
const ALL_METHODS = ['post', 'head', 'patch', 'delete', 'options'];

/** ':id' -> '{id}' (and Hono's ':id{regex}' too). */
export const openApiPath = (p: string) => p.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}').replace(/\/+$/, '') || '/';

/**
 * The operations of a list of Hono routes: method routes as they are; a route registered for ALL methods counts
 * only when no method route shares its path and it is not a wildcard (else it is middleware).
 */
export function operationsOf(routes: RegisteredRoute[]): Array<{ method: string; path: string }> {
  const out = new Map<string, { method: string; path: string }>();
  const concrete = new Set(routes.filter((r) => r.method !== 'ALL').map((r) => openApiPath(r.path)));
  for (const r of routes) {
    if (r.path.includes('*')) continue;
    const path = openApiPath(r.path);
    const methods = r.method === 'ALL' ? (concrete.has(path) ? [] : ALL_METHODS) : [r.method.toLowerCase()];
    for (const m of methods) if ((HTTP_METHODS as readonly string[]).includes(m)) out.set(`${m} ${path}`, { method: m, path });
  }
  return [...out.values()];
}

/** Requests are described as the client sends them (defaults optional), answers as the server sends them. */
function jsonSchema(s: v.GenericSchema, typeMode: 'input' | 'output'): Record<string, unknown> {
  const j = toJsonSchema(s, { errorMode: 'ignore', typeMode }) as Record<string, unknown>;
  delete j.$schema;
  return j;
}

const ref = (name: SchemaName) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown, example?: unknown) => ({ 'application/json': { schema, ...(example !== undefined ? { example } : {}) } });

/** Error statuses of every route (not checked route by route yet). */
const ERRORS: Record<string, string> = {
  '403': 'No access to this resource, or the plan does not include the feature',
  '404': 'Not found',
  '409': 'The state does not allow it',
  '422': 'Validation error: {"detail": [{"loc", "msg", "type"}]}',
  '429': 'Too many requests (API key per-minute limit, or the plan\'s jobs at once): see Retry-After',
};

/**
 * The error statuses the app answers for a route before (or around) the route's own handlers: authentication
 * (server/app/authenticate.ts, server/http/auth.ts: 401 for credentials, 400 for a deactivated account, 503 when
 * the database that holds accounts and keys is down), the body limit of every call that may carry a body
 * (server/app/app.ts, and the routes' own limits) and the common set above. A route's own `errors` facts add theirs.
 */
function commonErrors(method: string, op: RouteFacts | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  const authenticated = !op?.public;
  if (authenticated && !op?.identity) out['400'] = 'The account is deactivated (Inactive user)';
  if (authenticated) out['401'] = 'Missing, malformed, unknown, expired or revoked credentials';
  if (method !== 'get' && method !== 'head') out['413'] = 'Request body too large (a JSON body is at most 2 MB)';
  if (authenticated) out['503'] = DATABASE_DOWN;
  return { ...ERRORS, ...out };
}

const lowerFirst = (t: string) => t.charAt(0).toLowerCase() + t.slice(1);

/** The error answers of an operation: its own statuses with theirs, then the common ones (both texts when both). */
function errorResponses(method: string, op: RouteFacts | undefined): Record<string, unknown> {
  const common = commonErrors(method, op);
  const own: Record<string, string> = Object.fromEntries(Object.entries(op?.errors ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const codes = [...new Set([...Object.keys(own), ...Object.keys(common)])].sort((a, b) => Number(a) - Number(b));
  return Object.fromEntries(codes.map((code) => {
    const description = own[code] && common[code] ? `${own[code]}; or ${lowerFirst(common[code])}` : (own[code] ?? common[code])!;
    return [code, { description, content: json(ref('Error')) }];
  }));
}

/** The document of the routes of the /api router (paths relative to /api). */
export function buildOpenApi(apiRoutes: RegisteredRoute[], o: { version?: string } = {}): Record<string, unknown> {
  const routes = apiRoutes.map((r) => ({ method: r.method, path: `/api${r.path}` }));
  const described = new Map(declaredRoutes(apiRoutes).map((r) => [`${r.method} ${openApiPath(`/api${r.path}`)}`, r.facts]));
  // A route registered for all methods (the tus endpoints) states its facts once, for each of its operations.
  const factsOf = (method: string, path: string) => described.get(`${method.toUpperCase()} ${path}`) ?? described.get(`ALL ${path}`);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { method, path } of operationsOf(routes)) {
    const op = factsOf(method, path);
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    const query = (op?.query ?? []).map((q) => ({ name: q.name, in: 'query', required: !!q.required, description: q.description, schema: { type: 'string' } }));
    const headers = op?.creates
      ? [{ name: 'Idempotency-Key', in: 'header', required: false, description: 'A retry with the same key and body answers the first answer and creates nothing; another body is 422. Kept 24 hours.', schema: { type: 'string', maxLength: 255 } }]
      : [];
    const status = String(op?.status ?? 200);
    const responses: Record<string, unknown> = {
      [status]: status === '204'
        ? { description: 'Done' }
        : status.startsWith('3')
          ? { description: 'Redirect (see Location)' }
          : op?.binary
            ? { description: 'Success', content: { [op.binary]: { schema: { type: 'string', format: 'binary' } } } }
            : { description: 'Success', content: json(op?.response ? (op.list ? { type: 'array', items: ref(op.response) } : ref(op.response)) : { type: 'object' }) },
    };
    Object.assign(responses, errorResponses(method, op));
    const tag = path.split('/')[2] ?? 'api';
    paths[path] ??= {};
    paths[path][method] = {
      operationId: `${method}_${path.replace(/^\/api\//, '').replace(/[{}]/g, '').replace(/[^\w]+/g, '_')}`,
      summary: op?.summary ?? `${method.toUpperCase()} ${path}`,
      tags: [tag],
      ...(params.length + query.length + headers.length > 0 ? { parameters: [...params, ...query, ...headers] } : {}),
      ...(op?.body ? { requestBody: { required: !op.bodyOptional, content: json(ref(op.body), op.example) } } : {}),
      responses,
      ...(op?.public ? { security: [] } : {}),
    };
  }
  const schemas: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SCHEMAS)) schemas[name] = jsonSchema(s, name.endsWith('Request') ? 'input' : 'output');
  return {
    openapi: '3.1.0',
    info: {
      title: 'Dubbing Studio API',
      version: o.version ?? '1',
      description:
        'Translate and dub videos from your own code. Authenticate with `Authorization: Bearer <API key>` (create keys on the account page; ' +
        'Business plan and above). Errors are `{"detail": "text"}`; validation errors are 422 with `{"detail": [{"loc", "msg", "type"}]}`. ' +
        'Webhooks are signed with the Standard Webhooks scheme (headers webhook-id, webhook-timestamp, webhook-signature).',
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key (dsk_...) or an access token from /api/auth/sign-in' },
      },
      schemas,
    },
  };
}
