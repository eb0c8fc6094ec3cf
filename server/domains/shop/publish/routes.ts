// /api/shop/publish (issue 32, part 4; a routes.ts of its own: only routes.ts files may speak HTTP): POST {project_id, language, product_id?} publishes a language's dubbed video
// to a product of the shop in the background (202 with the publication); GET ?project_id= the project's
// publications and their state; GET products?space_id=&q= the shop's products to choose from. Editors and the
// owner of the shop's Teamspace only (server/domains/shop/publish.ts).
import { Hono } from 'hono';
import * as v from 'valibot';
import { PublishRequest } from '../../../../contract/schemas/shop-publish';
import { requireUser } from '../../../http/auth';
import type { AppEnv } from '../../../http/env';
import { jsonBody, queryWith } from '../../../http/validate';
import { listProducts, listPublications, publish } from '../publish';

const ListQuery = v.object({ project_id: v.pipe(v.string('project_id must be a string'), v.uuid('project_id must be an id')) });
const ProductsQuery = v.object({
  space_id: v.pipe(v.string('space_id must be a string'), v.uuid('space_id must be an id')),
  q: v.optional(v.pipe(v.string(), v.maxLength(100, 'The search is at most 100 characters')), ''),
});

export const shopPublishRoutes = new Hono<AppEnv>()
  .use('*', requireUser)
  .post('/', async (c) => {
    const body = await jsonBody(c, PublishRequest);
    return c.json(await publish(c.get('deps'), c.get('user'), body), 202);
  })
  .get('/', async (c) => {
    const q = queryWith(c, ListQuery);
    return c.json(await listPublications(c.get('deps'), c.get('user'), q.project_id));
  })
  .get('/products', async (c) => {
    const q = queryWith(c, ProductsQuery);
    return c.json(await listProducts(c.get('deps'), c.get('user'), q.space_id, q.q));
  });
