// Writes dist/openapi.json (npm run build): the OpenAPI document generated from the contract (server/app/openapi.ts)
// for every route of the /api router.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createApiRouter } from '../server/app/app';
import { buildOpenApi } from '../server/app/openapi';

const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
mkdirSync('dist', { recursive: true });
writeFileSync('dist/openapi.json', JSON.stringify(buildOpenApi(createApiRouter().routes, { version: pkg.version }), null, 2));
console.log('dist/openapi.json written');
