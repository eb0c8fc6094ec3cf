// The platform's file and product-media operations on a FakeShopAdmin (issue 32, part 4), as documented for the
// Admin GraphQL API:
//   stagedUploadsCreate(input: [StagedUploadInput!]!) -> { stagedTargets { url resourceUrl parameters { name value } },
//        userErrors { field message } }; StagedUploadInput { resource: StagedUploadTargetGenerateUploadResource!,
//        filename: String!, mimeType: String!, fileSize: UnsignedInt64 (required for VIDEO and MODEL_3D),
//        httpMethod: StagedUploadHttpMethodType (POST | PUT, default PUT) }.
//   The staged target (POST, multipart/form-data): every returned parameter as a field, then the file in `file`.
//   productCreateMedia(productId: ID!, media: [CreateMediaInput!]!) -> { media { id alt mediaContentType status },
//        mediaUserErrors { field message code (MediaUserErrorCode) }, product { id } }; the media starts UPLOADED,
//        then PROCESSING, then READY (or FAILED with mediaErrors { code details message }).
//   productDeleteMedia(productId: ID!, mediaIds: [ID!]!) -> { deletedMediaIds, deletedProductImageIds,
//        mediaUserErrors, product { id } }.
//   node(id: ID!) on a media -> { id, status, mediaErrors } (Media interface); product(id:) { id title };
//   products(first:, query:) { nodes { id title featuredMedia { preview { image { url } } } } }.
import { randomBytes } from 'node:crypto';
import type { Reply } from './base';
import type { FakeMedia, FakeShopAdmin, GraphqlCall } from './shop-admin';

const RESOURCES = ['COLLECTION_IMAGE', 'FILE', 'IMAGE', 'MODEL_3D', 'PRODUCT_IMAGE', 'SHOP_IMAGE', 'VIDEO', 'BULK_MUTATION_VARIABLES', 'RETURN_LABEL', 'URL_REDIRECT_IMPORT', 'DISPUTE_FILE_UPLOAD'];

export interface StagedUpload {
  id: string;
  domain: string;
  resource: string;
  filename: string;
  mimeType: string;
  fileSize: number;
  parameters: Array<{ name: string; value: string }>;
  resourceUrl: string;
  /** The bytes that arrived at the target (null until then). */
  data: Buffer | null;
  /** The fields that came with them. */
  fields: Record<string, string>;
}

interface MediaUserError { field: string[] | null; message: string; code: string }

export interface ShopFiles {
  uploads: Map<string, StagedUpload>;
  /** Media reads (node(id)) before a new media is READY. */
  readyAfterPolls: number;
  /** Media reads seen per media id. */
  polls: Map<string, number>;
  /** The next productCreateMedia answers these mediaUserErrors (once). */
  nextCreateErrors: MediaUserError[] | null;
  /** The next stagedUploadsCreate answers these userErrors (once). */
  nextStageErrors: Array<{ field: string[] | null; message: string }> | null;
  /** The next created media ends FAILED with this error (once). */
  nextProcessingFailure: { code: string; message: string; details: string | null } | null;
  /** Media a product may hold (PRODUCT_MEDIA_LIMIT_EXCEEDED beyond). */
  maxMediaPerProduct: number;
  /** Media deleted by productDeleteMedia, in order. */
  deleted: string[];
  /** Holds the staged target's answers until the returned function is called (a publication in flight). */
  hold(): () => void;
}

function ok(data: unknown): Reply {
  return { json: { data } };
}

function gqlError(message: string): Reply {
  return { json: { errors: [{ message, extensions: { code: 'argumentLiteralsIncompatible' } }] } };
}

/** Adds the file and product-media operations (and the staged upload target route) to the fake. */
export function installShopFiles(fake: FakeShopAdmin): ShopFiles {
  const files: ShopFiles = {
    uploads: new Map(), readyAfterPolls: 2, polls: new Map(), nextCreateErrors: null, nextStageErrors: null,
    nextProcessingFailure: null, maxMediaPerProduct: 250, deleted: [],
    hold() {
      let release!: () => void;
      held = new Promise<void>((r) => (release = r));
      return () => {
        held = null;
        release();
      };
    },
  };
  let held: Promise<void> | null = null;
  const failing = new Map<string, { code: string; message: string; details: string | null }>();
  let mediaSeq = 1000;

  const findMedia = (domain: string, id: string): FakeMedia | undefined =>
    (fake.products.get(domain) ?? []).flatMap((p) => p.media).find((m) => m.id === id);

  function staged(call: GraphqlCall): Reply {
    const input = call.variables.input;
    if (!Array.isArray(input) || input.length === 0) return gqlError('Variable $input of type [StagedUploadInput!]! was provided invalid value');
    if (files.nextStageErrors) {
      const errs = files.nextStageErrors;
      files.nextStageErrors = null;
      return ok({ stagedUploadsCreate: { stagedTargets: [], userErrors: errs } });
    }
    const targets = [];
    for (const raw of input as Array<Record<string, unknown>>) {
      if (!RESOURCES.includes(String(raw.resource))) return gqlError(`Expected "${String(raw.resource)}" to be one of: ${RESOURCES.join(', ')}`);
      if (typeof raw.filename !== 'string' || !raw.filename) return gqlError('filename is required');
      if (typeof raw.mimeType !== 'string' || !raw.mimeType) return gqlError('mimeType is required');
      const method = raw.httpMethod ?? 'PUT';
      if (method !== 'POST' && method !== 'PUT') return gqlError(`Expected "${String(method)}" to be one of: POST, PUT`);
      if (raw.fileSize !== undefined && (typeof raw.fileSize !== 'string' || !/^\d+$/.test(raw.fileSize))) {
        call.req.violations.push('fileSize is an UnsignedInt64: a string of digits');
      }
      if ((raw.resource === 'VIDEO' || raw.resource === 'MODEL_3D') && raw.fileSize === undefined) {
        return ok({ stagedUploadsCreate: { stagedTargets: [], userErrors: [{ field: ['input', '0', 'fileSize'], message: 'File size is required for video and 3D model uploads.' }] } });
      }
      if (method !== 'POST') call.req.violations.push('this stand-in implements the POST (multipart) targets only');
      const id = randomBytes(8).toString('hex');
      const key = `${id}/${raw.filename}`;
      const parameters = [
        { name: 'GoogleAccessId', value: 'video-production@shopify-tiers.iam.gserviceaccount.com' },
        { name: 'key', value: key },
        { name: 'policy', value: Buffer.from(JSON.stringify({ id, size: raw.fileSize })).toString('base64') },
        { name: 'signature', value: randomBytes(16).toString('base64') },
      ];
      const up: StagedUpload = {
        id, domain: call.domain, resource: String(raw.resource), filename: raw.filename, mimeType: raw.mimeType,
        fileSize: Number(raw.fileSize ?? 0), parameters, resourceUrl: `${fake.url}/staged/${id}?external_video_id=${id}`, data: null, fields: {},
      };
      files.uploads.set(id, up);
      targets.push({ url: `${fake.url}/staged/${id}`, resourceUrl: up.resourceUrl, parameters });
    }
    return ok({ stagedUploadsCreate: { stagedTargets: targets, userErrors: [] } });
  }

  function createMedia(call: GraphqlCall): Reply {
    const productId = call.variables.productId;
    const media = call.variables.media;
    if (typeof productId !== 'string' || !Array.isArray(media)) return gqlError('productId and media are required');
    const product = fake.product(call.domain, productId);
    if (files.nextCreateErrors) {
      const errs = files.nextCreateErrors;
      files.nextCreateErrors = null;
      return ok({ productCreateMedia: { media: [], mediaUserErrors: errs, product: product ? { id: product.id } : null } });
    }
    if (!product) {
      return ok({ productCreateMedia: { media: [], mediaUserErrors: [{ field: ['productId'], message: 'Product does not exist', code: 'PRODUCT_DOES_NOT_EXIST' }], product: null } });
    }
    if (product.media.length + media.length > files.maxMediaPerProduct) {
      return ok({
        productCreateMedia: {
          media: [], product: { id: product.id },
          mediaUserErrors: [{ field: ['media'], message: `Exceeded the limit of ${files.maxMediaPerProduct} media per product`, code: 'PRODUCT_MEDIA_LIMIT_EXCEEDED' }],
        },
      });
    }
    const out: FakeMedia[] = [];
    const errors: MediaUserError[] = [];
    (media as Array<Record<string, unknown>>).forEach((m, i) => {
      if (m.mediaContentType !== 'VIDEO' && m.mediaContentType !== 'IMAGE' && m.mediaContentType !== 'EXTERNAL_VIDEO' && m.mediaContentType !== 'MODEL_3D') {
        errors.push({ field: ['media', String(i), 'mediaContentType'], message: 'Invalid media type', code: 'INVALID_MEDIA_TYPE' });
        return;
      }
      const src = String(m.originalSource ?? '');
      const up = [...files.uploads.values()].find((u) => u.resourceUrl === src && u.domain === call.domain);
      if (m.mediaContentType === 'VIDEO' && (!up || !up.data)) {
        errors.push({ field: ['media', String(i), 'originalSource'], message: 'Media failed to process because the file was not uploaded', code: 'INVALID' });
        return;
      }
      const fm: FakeMedia = {
        id: `gid://shopify/Video/${++mediaSeq}`, mediaContentType: 'VIDEO', status: 'UPLOADED', alt: String(m.alt ?? ''), sources: [], preview: null,
      };
      if (files.nextProcessingFailure) {
        failing.set(fm.id, files.nextProcessingFailure);
        files.nextProcessingFailure = null;
      }
      out.push(fm);
    });
    if (errors.length > 0) return ok({ productCreateMedia: { media: [], mediaUserErrors: errors, product: { id: product.id } } });
    product.media.push(...out);
    return ok({
      productCreateMedia: {
        media: out.map((m) => ({ id: m.id, alt: m.alt, mediaContentType: m.mediaContentType, status: m.status })),
        mediaUserErrors: [], product: { id: product.id },
      },
    });
  }

  function deleteMedia(call: GraphqlCall): Reply {
    const productId = call.variables.productId;
    const ids = call.variables.mediaIds;
    if (typeof productId !== 'string' || !Array.isArray(ids)) return gqlError('productId and mediaIds are required');
    const product = fake.product(call.domain, productId);
    if (!product) {
      return ok({ productDeleteMedia: { deletedMediaIds: null, deletedProductImageIds: null, mediaUserErrors: [{ field: ['productId'], message: 'Product does not exist', code: 'PRODUCT_DOES_NOT_EXIST' }], product: null } });
    }
    const errors: MediaUserError[] = [];
    const deleted: string[] = [];
    (ids as string[]).forEach((id, i) => {
      const at = product.media.findIndex((m) => m.id === id);
      if (at < 0) {
        errors.push({ field: ['mediaIds', String(i)], message: 'Media does not exist on the given product', code: 'MEDIA_DOES_NOT_EXIST_ON_PRODUCT' });
        return;
      }
      product.media.splice(at, 1);
      deleted.push(id);
    });
    // The mutation is all or nothing: with an error, nothing is deleted (the fake keeps what it removed).
    files.deleted.push(...deleted);
    return ok({ productDeleteMedia: { deletedMediaIds: deleted, deletedProductImageIds: [], mediaUserErrors: errors, product: { id: product.id } } });
  }

  function readMedia(call: GraphqlCall): Reply {
    const id = String(call.variables.id ?? '');
    const m = findMedia(call.domain, id);
    if (!m) return ok({ node: null });
    const n = (files.polls.get(id) ?? 0) + 1;
    files.polls.set(id, n);
    if (m.status === 'UPLOADED' || m.status === 'PROCESSING') {
      const failure = failing.get(id);
      if (failure) m.status = 'FAILED';
      else if (n >= files.readyAfterPolls) {
        m.status = 'READY';
        m.sources = [{ url: `${fake.url}/cdn/${encodeURIComponent(id)}.mp4`, mimeType: 'video/mp4', format: 'mp4', width: 1280, height: 720 }];
      } else m.status = 'PROCESSING';
    }
    const failure = failing.get(id);
    return ok({
      node: {
        __typename: 'Video', id: m.id, status: m.status, alt: m.alt,
        mediaErrors: m.status === 'FAILED' && failure ? [failure] : [],
      },
    });
  }

  fake.use((call) => {
    const q = call.query;
    if (/\bstagedUploadsCreate\s*\(/.test(q)) return staged(call);
    if (/\bproductCreateMedia\s*\(/.test(q)) return createMedia(call);
    if (/\bproductDeleteMedia\s*\(/.test(q)) return deleteMedia(call);
    if (/\bnode\s*\(/.test(q)) return readMedia(call);
    if (/\bproducts\s*\(/.test(q)) {
      const search = String(call.variables.query ?? '').toLowerCase();
      const first = Math.min(Number(call.variables.first ?? 50), 250);
      const list = (fake.products.get(call.domain) ?? []).filter((p) => !search || p.title.toLowerCase().includes(search)).slice(0, first);
      return ok({
        products: {
          nodes: list.map((p) => ({ id: p.id, title: p.title, featuredMedia: p.media[0]?.preview ? { preview: { image: { url: p.media[0].preview } } } : null })),
        },
      });
    }
    if (/\bproduct\s*\(/.test(q)) {
      const p = fake.product(call.domain, String(call.variables.id ?? ''));
      return ok({ product: p ? { id: p.id, title: p.title, handle: p.handle } : null });
    }
    return null;
  });

  fake.route({
    method: 'POST',
    path: '/staged/:id',
    handler: async (req, params) => {
      if (held) await held;
      const up = files.uploads.get(params.id!);
      if (!up) return { status: 404, body: '<?xml version="1.0"?><Error><Code>NoSuchUpload</Code><Message>Unknown upload</Message></Error>' };
      const mp = req.multipart;
      if (!mp) {
        req.violations.push('the staged upload is not multipart/form-data');
        return { status: 400, body: '<Error><Code>InvalidArgument</Code><Message>Expected multipart/form-data</Message></Error>' };
      }
      for (const p of up.parameters) {
        if (mp.fields[p.name]?.[0] !== p.value) {
          req.violations.push(`parameter ${p.name} missing or changed`);
          return { status: 403, body: `<Error><Code>AccessDenied</Code><Message>Invalid according to Policy: ${p.name}</Message></Error>` };
        }
      }
      const file = mp.files.find((f) => f.field === 'file');
      if (!file) {
        req.violations.push('no file field');
        return { status: 400, body: '<Error><Code>InvalidArgument</Code><Message>No file was sent</Message></Error>' };
      }
      // The file comes last (the target ignores fields after it).
      if (mp.files.length !== 1) req.violations.push('more than one file');
      if (up.fileSize && file.data.length !== up.fileSize) {
        return { status: 400, body: '<Error><Code>EntityTooLarge</Code><Message>Your proposed upload does not match the declared size</Message></Error>' };
      }
      up.data = file.data;
      up.fields = Object.fromEntries(Object.entries(mp.fields).map(([k, v]) => [k, v[0] ?? '']));
      return { status: 204 };
    },
  });
  return files;
}
