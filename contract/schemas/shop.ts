// The shop's product videos (issue 32 part 3): the "From your store" list and the import of picked videos.
import * as v from 'valibot';
import { MAX_DST_LANGS } from './project';

/** At most this many videos imported at once. */
export const MAX_SHOP_IMPORT_ITEMS = 10;

const LangCode = v.pipe(v.string(), v.trim(), v.regex(/^[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8})?$/, 'Unknown language code'));
const Gid = v.pipe(v.string(), v.trim(), v.regex(/^gid:\/\/shopify\/\w+\/\d+$/, 'Not a platform id (gid://shopify/...)'), v.maxLength(200));

export const ShopVideo = v.object({
  /** The Video media id (gid://shopify/Video/...). */
  id: v.string(),
  alt: v.nullable(v.string()),
  status: v.string(),
  thumbnail: v.nullable(v.string()),
  width: v.nullable(v.number()),
  height: v.nullable(v.number()),
});
export type ShopVideo = v.InferOutput<typeof ShopVideo>;

export const ShopProduct = v.object({
  id: v.string(),
  title: v.string(),
  thumbnail: v.nullable(v.string()),
  videos: v.array(ShopVideo),
});
export type ShopProduct = v.InferOutput<typeof ShopProduct>;

export const ShopLocales = v.object({
  /** Our language id of the shop's primary locale (null when we have no such language). */
  primary: v.nullable(v.string()),
  /** Our language ids of the published locales, primary excluded. */
  published: v.array(v.string()),
});

export const ShopProductsAnswer = v.object({
  products: v.array(ShopProduct),
  /** Pass as `after` for the next page; null on the last one. */
  next: v.nullable(v.string()),
  locales: ShopLocales,
});
export type ShopProductsAnswer = v.InferOutput<typeof ShopProductsAnswer>;

export const ShopImportRequest = v.object({
  items: v.pipe(
    v.array(v.object({ product_id: Gid, media_id: Gid })),
    v.minLength(1, 'Pick at least one video'),
    v.maxLength(MAX_SHOP_IMPORT_ITEMS, `At most ${MAX_SHOP_IMPORT_ITEMS} videos at once`),
  ),
  src_lang: LangCode,
  dst_langs: v.pipe(v.array(LangCode), v.minLength(1, 'Choose at least one target language'), v.maxLength(MAX_DST_LANGS, `At most ${MAX_DST_LANGS} target languages`)),
});
export type ShopImportRequest = v.InferOutput<typeof ShopImportRequest>;

export const ShopImportAnswer = v.object({
  /** The project made of each picked video, in the order picked. */
  projects: v.array(v.object({ product_id: v.string(), media_id: v.string(), project_id: v.string() })),
  /** The batch they went in as (several videos), else null. */
  batch_id: v.nullable(v.string()),
});
export type ShopImportAnswer = v.InferOutput<typeof ShopImportAnswer>;
