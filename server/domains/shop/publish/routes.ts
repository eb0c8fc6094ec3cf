// /api/shop/publish (issue 32, part 4; a routes.ts of its own: only routes.ts files may speak HTTP): POST {project_id, language, product_id?} publishes a language's dubbed video
// to a product of the shop in the background (202 with the publication); GET ?project_id= the project's
// publications and their state; GET products?space_id=&q= the shop's products to choose from. Editors and the
// owner of the shop's Teamspace only (server/domains/shop/publish.ts).
import { Hono } from 'hono';
import * as v from 'valibot';
import { PublishRequest } from '../../../../contract/schemas/shop-publish';
import type { AppEnv } from '../../../http/env';
import { jsonBody, queryWith } from '../../../http/validate';
import { listProducts, listPublications, publish } from '../publish';
import { routeFacts, SPACE_Q } from '../../../http/route-facts';

const ListQuery = v.object({ project_id: v.pipe(v.string('project_id must be a string'), v.uuid('project_id must be an id')) });
const ProductsQuery = v.object({
  space_id: v.pipe(v.string('space_id must be a string'), v.uuid('space_id must be an id')),
  q: v.optional(v.pipe(v.string(), v.maxLength(100, 'The search is at most 100 characters')), ''),
});

export const shopPublishRoutes = new Hono<AppEnv>()
  .post('/', routeFacts({
    summary: "Publish a language's dubbed video to a product of the shop (in the background; again for the same product and language replaces the earlier dub). Editors of the shop's Teamspace",
    body: 'PublishRequest',
    response: 'Publication',
    status: 202,
    errors: { 400: 'The Teamspace is not a shop, or no product was given for a video that did not come from one' },
  }), async (c) => {
    const body = await jsonBody(c, PublishRequest);
    return c.json(await publish(c.get('deps'), c.get('user'), body), 202);
  })
  .get('/', routeFacts({
    summary: "The project's publications to the shop's products (uploading, processing, ready, failed with the platform's message)",
    response: 'PublicationList',
    query: [{ name: 'project_id', required: true, description: 'A project of the shop\'s Teamspace' }],
  }), async (c) => {
    const q = queryWith(c, ListQuery);
    return c.json(await listPublications(c.get('deps'), c.get('user'), q.project_id));
  })
  .get('/products', routeFacts({
    summary: "The shop's products (20, searched by q) to publish a dub to",
    response: 'ShopProductList',
    query: [SPACE_Q, { name: 'q', description: 'Search (title)' }],
    errors: {
      400: 'The Teamspace is not a shop',
      502: "The shop's products could not be read",
      503: 'The shop cannot be reached now (the app is not installed, or the shop must open it again)',
    },
  }), async (c) => {
    const q = queryWith(c, ProductsQuery);
    return c.json(await listProducts(c.get('deps'), c.get('user'), q.space_id, q.q));
  });
