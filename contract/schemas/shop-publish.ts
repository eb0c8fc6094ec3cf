// Dubbed videos back to the shop (issue 32, part 4): /api/shop/publish. Shared by the browser and the server.
import * as v from 'valibot';

const Lang = v.pipe(
  v.string('language must be a string'),
  v.trim(),
  v.regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, 'The language must be a code such as "en" or "es"'),
);
/** A product's GraphQL id (gid://shopify/Product/123). */
export const ProductGid = v.pipe(
  v.string('product_id must be a string'),
  v.trim(),
  v.regex(/^gid:\/\/shopify\/Product\/\d{1,20}$/, 'product_id must be a product id such as gid://shopify/Product/123'),
);

export const PublishRequest = v.object({
  project_id: v.pipe(v.string('project_id must be a string'), v.uuid('project_id must be an id')),
  /** The target language of the dub to publish (a language of the project's video). */
  language: Lang,
  /** The product to attach it to; default: the product the project's video came from. */
  product_id: v.optional(ProductGid),
});
export type PublishRequest = v.InferOutput<typeof PublishRequest>;

export const PUBLISH_STATES = ['uploading', 'processing', 'ready', 'failed'] as const;

export const Publication = v.object({
  id: v.string(),
  /** The project whose dubbed video was published (the language's project). */
  project_id: v.string(),
  language: v.string(),
  product_id: v.string(),
  product_title: v.string(),
  state: v.picklist(PUBLISH_STATES),
  /** The platform's message when it failed (as the platform wrote it). */
  error: v.nullable(v.string()),
  /** The product media id of the video on the platform. */
  media_id: v.nullable(v.string()),
  updated_at: v.string(),
});
export type Publication = v.InferOutput<typeof Publication>;

export const PublicationList = v.object({
  /** The project's Teamspace is a shop (publishing is offered only there). */
  shop: v.boolean(),
  /** The caller may publish (an editor or the owner of the shop's Teamspace). */
  can_publish: v.boolean(),
  publications: v.array(Publication),
  /** The product the project's video came from, if any (the default target). */
  origin_product: v.nullable(v.object({ id: v.string(), title: v.string() })),
});
export type PublicationList = v.InferOutput<typeof PublicationList>;

export const ShopProduct = v.object({ id: v.string(), title: v.string(), image: v.nullable(v.string()) });
export const ShopProductList = v.object({ products: v.array(ShopProduct) });
export type ShopProductList = v.InferOutput<typeof ShopProductList>;
