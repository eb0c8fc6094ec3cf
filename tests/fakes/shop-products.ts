// Product videos in the shop stand-in (issue 32 part 3), as the GraphQL Admin API documents them:
//   products(first:, after:, query:, sortKey: TITLE) -> ProductConnection { nodes { id title featuredMedia
//     media(first:, query: "media_type:VIDEO") { nodes { mediaContentType ... on Video { id alt status
//     preview { image { url } } sources { url mimeType format width height } } } } } pageInfo { hasNextPage
//     endCursor } }; the search syntax's `title:*word*` (contains, case-insensitive) joined by AND; `after` an
//     opaque cursor from endCursor (a bad one: a GraphQL error, as the platform answers).
//   product(id:) -> Product | null
//   shopLocales -> [ShopLocale { locale primary published }]
// and a CDN-like route serving video files: GET /cdn/:file (the bytes from the directory given), and
// GET /cdn-redirect/:file answering 302 to a Location the test chooses (to test the download's egress rule).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FakeMedia, FakeProduct, FakeShopAdmin, GraphqlCall } from './shop-admin';
import type { Reply } from './base';

export interface FakeLocale {
  locale: string;
  primary: boolean;
  published: boolean;
}

export interface ShopProductsFake {
  /** Each shop's locales (default: English, primary and published). */
  locales: Map<string, FakeLocale[]>;
  /** /cdn-redirect/:file -> Location. */
  redirects: Map<string, string>;
  /** The URL of a file on the stand-in's CDN route. */
  cdnUrl(file: string): string;
}

const cursorOf = (i: number) => Buffer.from(`cursor:${i}`).toString('base64');
function indexOf(cursor: string): number | null {
  const m = /^cursor:(\d+)$/.exec(Buffer.from(cursor, 'base64').toString('utf8'));
  return m ? Number(m[1]) : null;
}

/** The products query's `title:*x*` terms (AND-joined); any other term is a violation of what our server sends. */
function titleFilter(query: string, violations: string[]): (title: string) => boolean {
  const terms = query.split(/\s+AND\s+/).map((t) => t.trim()).filter(Boolean);
  const words: string[] = [];
  for (const t of terms) {
    const m = /^title:\*([^*\s]+)\*$/.exec(t);
    if (m) words.push(m[1]!.toLowerCase());
    else violations.push(`unexpected products query term ${t}`);
  }
  return (title) => words.every((w) => title.toLowerCase().includes(w));
}

function mediaNode(m: FakeMedia, videoOnly: boolean): Record<string, unknown> | null {
  if (videoOnly && m.mediaContentType !== 'VIDEO') return null;
  if (m.mediaContentType !== 'VIDEO') return { mediaContentType: m.mediaContentType };
  return {
    mediaContentType: 'VIDEO',
    id: m.id,
    alt: m.alt,
    status: m.status,
    preview: m.preview ? { image: { url: m.preview } } : { image: null },
    sources: m.sources,
  };
}

function productNode(p: FakeProduct, query: string): Record<string, unknown> {
  const videoOnly = /media\s*\([^)]*media_type:VIDEO/.test(query);
  const first = Number(/media\s*\(\s*first:\s*(\d+)/.exec(query)?.[1] ?? 10);
  const featured = p.media[0];
  return {
    id: p.id,
    title: p.title,
    handle: p.handle,
    featuredMedia: featured ? { preview: featured.preview ? { image: { url: featured.preview } } : { image: null } } : null,
    media: { nodes: p.media.map((m) => mediaNode(m, videoOnly)).filter(Boolean).slice(0, first) },
  };
}

/** Installs the product-video operations and the CDN routes on the stand-in. */
export function installShopProducts(fake: FakeShopAdmin, o: { videoDir: string }): ShopProductsFake {
  const ext: ShopProductsFake = {
    locales: new Map(),
    redirects: new Map(),
    cdnUrl: (file) => `${fake.url}/cdn/${file}`,
  };
  const localesOf = (domain: string) => ext.locales.get(domain) ?? [{ locale: 'en', primary: true, published: true }];

  fake.use((call: GraphqlCall): Reply | null => {
    const q = call.query;
    if (/\bproducts\s*\(/.test(q)) {
      const v = call.variables;
      const first = Number(v.first);
      if (!Number.isInteger(first) || first < 1 || first > 250) {
        return { json: { errors: [{ message: 'The first argument must be between 1 and 250', extensions: { code: 'BAD_REQUEST' } }] } };
      }
      let start = 0;
      if (typeof v.after === 'string') {
        const i = indexOf(v.after);
        if (i === null) return { json: { errors: [{ message: `Invalid cursor for current pagination sort.`, extensions: { code: 'BAD_REQUEST' } }] } };
        start = i + 1;
      }
      const match = typeof v.query === 'string' && v.query ? titleFilter(v.query, call.req.violations) : () => true;
      const all = [...(fake.products.get(call.domain) ?? [])]
        .filter((p) => match(p.title))
        .sort((a, b) => a.title.localeCompare(b.title));
      const page = all.slice(start, start + first);
      const data: Record<string, unknown> = {
        products: {
          nodes: page.map((p) => productNode(p, q)),
          pageInfo: { hasNextPage: start + first < all.length, endCursor: page.length ? cursorOf(start + page.length - 1) : null },
        },
      };
      if (/\bshopLocales\b/.test(q)) data.shopLocales = localesOf(call.domain);
      return { json: { data } };
    }
    if (/\bproduct\s*\(\s*id:/.test(q)) {
      const id = call.variables.id;
      if (typeof id !== 'string' || !/^gid:\/\/shopify\/Product\/\d+$/.test(id)) {
        return { json: { errors: [{ message: `Invalid global id '${String(id)}'`, extensions: { code: 'argumentLiteralsIncompatible' } }] } };
      }
      const p = fake.product(call.domain, id);
      return { json: { data: { product: p ? productNode(p, q) : null } } };
    }
    if (/\bshopLocales\b/.test(q)) return { json: { data: { shopLocales: localesOf(call.domain) } } };
    return null;
  });

  fake.route({
    method: 'GET',
    path: '/cdn/:file',
    handler: async (_req, p) => {
      const file = p.file!;
      if (!/^[\w.-]+$/.test(file)) return { status: 404, body: 'Not Found' };
      try {
        return { headers: { 'Content-Type': 'video/mp4' }, body: await readFile(join(o.videoDir, file)) };
      } catch {
        return { status: 404, body: 'Not Found' };
      }
    },
  });
  fake.route({
    method: 'GET',
    path: '/cdn-redirect/:file',
    handler: (_req, p) => {
      const to = ext.redirects.get(p.file!);
      return to ? { status: 302, headers: { Location: to }, body: '' } : { status: 404, body: 'Not Found' };
    },
  });
  return ext;
}
