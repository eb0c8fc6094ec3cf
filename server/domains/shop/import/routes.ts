// GET /api/shop/products: the shop Teamspace's products with videos (search, pages, the shop's locales), and
// POST /api/shop/import: the picked videos dubbed (issue 32 part 3). Parse -> service (../products.ts); a folder of
// its own as only a domain's routes.ts speaks HTTP. Mounted at /shop beside the webhooks' router: each route asks
// for its signed-in user (the webhooks have none).
import { Hono } from 'hono';
import * as v from 'valibot';
import { ShopImportRequest } from '../../../../contract/schemas/shop';
import { spaceIdFromQuery } from '../../../http/access';
import type { AppEnv } from '../../../http/env';
import { jsonBody } from '../../../http/validate';
import { unprocessable } from '../../../errors';
import { importProducts, listProducts } from '../products';
import { routeFacts, SPACE_Q, targetLanguageCount } from '../../../http/route-facts';

const Query = v.object({
  q: v.optional(v.pipe(v.string(), v.maxLength(100, 'At most 100 characters'))),
  after: v.optional(v.pipe(v.string(), v.maxLength(500, 'Not a page cursor'))),
});

export const shopProductsRoutes = new Hono<AppEnv>();
shopProductsRoutes.get('/products', routeFacts({
  summary: "The shop Teamspace's products with videos (the platform's Admin API), searched by title, a page at a time, with the shop's primary and published locales as our language ids. 404 when the Teamspace is not a shop",
  response: 'ShopProductsAnswer',
  query: [SPACE_Q, { name: 'q', description: 'Words of the product title' }, { name: 'after', description: 'The `next` cursor of the previous page' }],
  errors: { 502: "The store's Admin API failed" },
}), async (c) => {
  const q = v.safeParse(Query, { q: c.req.query('q') || undefined, after: c.req.query('after') || undefined });
  if (!q.success) throw unprocessable(q.issues.map((i) => ({ loc: ['query', String(i.path?.[0]?.key ?? '')], msg: i.message, type: 'value_error' })));
  return c.json(await listProducts(c.get('deps'), c.get('user'), spaceIdFromQuery(c), q.output));
});

shopProductsRoutes.post('/import', routeFacts({
  summary: "Dub the picked product videos: each is downloaded from the platform's CDN (SHOP_CDN_HOSTS) and made a project (several: one batch) linked to its product",
  body: 'ShopImportRequest',
  response: 'ShopImportAnswer',
  status: 201,
  query: [SPACE_Q],
  gates: [
    { feature: 'multilanguage', scope: 'space', when: (r) => targetLanguageCount(r.body) > 1 || (Array.isArray(r.body.items) && r.body.items.length > 1), note: 'importing store videos into several target languages, or several videos at once (a batch)' },
  ],
  errors: {
    400: 'A video that is not ready or cannot be downloaded or read, an unknown language, the same source and target language, or a pair the engines cannot recognise, translate or voice, or no video of the batch could be made a project',
    402: 'Not enough minutes in the Teamspace for the videos (several: the whole batch)',
    502: "The store's Admin API failed",
  },
}), async (c) => {
  const body = await jsonBody(c, ShopImportRequest);
  return c.json(await importProducts(c.get('deps'), c.get('user'), spaceIdFromQuery(c), body), 201);
});
