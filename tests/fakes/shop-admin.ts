// A fake shop platform Admin API (Shopify-like), as documented:
//   POST /admin/oauth/access_token   token exchange: JSON {client_id, client_secret,
//        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', subject_token: <session token>,
//        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
//        requested_token_type: 'urn:shopify:params:oauth:token-type:offline-access-token' | ...online-access-token}
//        -> 200 {access_token, scope}; 400 {error: 'invalid_subject_token' | 'invalid_request', error_description}
//        for a bad session token or body; 401 {error: 'invalid_client'} for bad app credentials.
//   POST /admin/api/{version}/graphql.json   header X-Shopify-Access-Token, JSON {query, variables?}
//        -> 200 {data} (this fake answers `shop { name primaryDomain { url host } }`); 401 {errors} for an unknown
//        or revoked token.
// The shop is told by the session token's `dest` (exchange) and by the access token (GraphQL): one fake serves
// many shops. signWebhook() builds a delivery as the platform sends it (X-Shopify-Hmac-Sha256: base64 HMAC-SHA256
// of the raw body with the app secret, X-Shopify-Topic, X-Shopify-Shop-Domain, X-Shopify-Webhook-Id,
// X-Shopify-API-Version).
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { jwtVerify } from 'jose';
import { FakeServer, header, type RecordedRequest, type Reply, type Route } from './base';

const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
const OFFLINE_TOKEN_TYPE = 'urn:shopify:params:oauth:token-type:offline-access-token';
const ONLINE_TOKEN_TYPE = 'urn:shopify:params:oauth:token-type:online-access-token';

interface FakeShop {
  name: string;
  primaryDomain: string;
}

/** A product's media as the Admin API describes it (MediaContentType, MediaStatus, Video.sources). */
export interface FakeMedia {
  id: string;
  mediaContentType: 'VIDEO' | 'IMAGE';
  status: 'UPLOADED' | 'PROCESSING' | 'READY' | 'FAILED';
  alt: string;
  /** Video renditions (url on the fake's own CDN route, or any URL). */
  sources: Array<{ url: string; mimeType: string; format: string; width: number; height: number }>;
  /** Preview image URL. */
  preview: string | null;
}

export interface FakeProduct {
  id: string;
  title: string;
  handle: string;
  media: FakeMedia[];
}

/** One GraphQL operation the fake answers (extensions in tests/fakes/shop-*.ts add theirs with `fake.use`). */
export interface GraphqlCall {
  query: string;
  variables: Record<string, unknown>;
  /** The shop the access token belongs to. */
  domain: string;
  req: RecordedRequest;
}
/** Answers the call (a Reply), or null when the operation is not this handler's. */
export type GraphqlHandler = (call: GraphqlCall) => Reply | null | Promise<Reply | null>;

export class FakeShopAdmin extends FakeServer {
  readonly shops = new Map<string, FakeShop>();
  /** Each shop's products (shop domain -> products), shared by the product and file operations. */
  readonly products = new Map<string, FakeProduct[]>();
  /** access token -> shop domain */
  readonly tokens = new Map<string, string>();
  /** Exchanges answered, per shop. */
  readonly exchanges = new Map<string, number>();
  scope = 'read_products,write_products,write_files';
  private readonly handlers: GraphqlHandler[] = [];
  private readonly extraRoutes: Route[] = [];

  /** Adds GraphQL operations (tried in order before the built-in `shop { name }`). */
  use(handler: GraphqlHandler): this {
    this.handlers.push(handler);
    return this;
  }

  /** Adds plain HTTP routes (e.g. a staged upload target). */
  route(r: Route): this {
    this.extraRoutes.push(r);
    return this;
  }

  constructor(
    readonly apiKey: string,
    readonly apiSecret: string,
  ) {
    super();
  }

  addShop(domain: string, name: string, primaryDomain = `https://${domain}`): this {
    this.shops.set(domain, { name, primaryDomain });
    return this;
  }

  addProduct(domain: string, p: FakeProduct): this {
    const list = this.products.get(domain) ?? [];
    list.push(p);
    this.products.set(domain, list);
    return this;
  }

  product(domain: string, id: string): FakeProduct | undefined {
    return this.products.get(domain)?.find((p) => p.id === id);
  }

  /** Revokes every token of the shop (an uninstall, or a rotated secret): the next GraphQL call answers 401. */
  revoke(domain: string): void {
    for (const [t, d] of this.tokens) if (d === domain) this.tokens.delete(t);
  }

  tokensOf(domain: string): string[] {
    return [...this.tokens].filter(([, d]) => d === domain).map(([t]) => t);
  }

  protected authorize(): Reply | null {
    return null; // each route checks its own credential
  }

  protected routes(): Route[] {
    return [
      { method: 'POST', path: '/admin/oauth/access_token', handler: (r) => this.exchange(r) },
      { method: 'POST', path: '/admin/api/:version/graphql.json', handler: (r, p) => this.graphql(r, p.version!) },
      ...this.extraRoutes,
    ];
  }

  private async exchange(req: RecordedRequest): Promise<Reply> {
    if (!/application\/json/.test(header(req, 'content-type') ?? '')) req.violations.push('content-type is not application/json');
    const b = (req.json ?? {}) as Record<string, unknown>;
    if (b.client_id !== this.apiKey || b.client_secret !== this.apiSecret) {
      return { status: 401, json: { error: 'invalid_client', error_description: 'Client credentials are invalid' } };
    }
    if (b.grant_type !== TOKEN_EXCHANGE_GRANT || b.subject_token_type !== ID_TOKEN_TYPE || typeof b.subject_token !== 'string') {
      req.violations.push('not a token exchange request');
      return { status: 400, json: { error: 'invalid_request', error_description: 'Invalid token exchange request' } };
    }
    if (b.requested_token_type !== OFFLINE_TOKEN_TYPE && b.requested_token_type !== ONLINE_TOKEN_TYPE) {
      return { status: 400, json: { error: 'invalid_request', error_description: 'Unknown requested_token_type' } };
    }
    let dest: string;
    try {
      const { payload } = await jwtVerify(b.subject_token, new TextEncoder().encode(this.apiSecret), { algorithms: ['HS256'], audience: this.apiKey });
      dest = new URL(String(payload.dest)).host;
    } catch {
      return { status: 400, json: { error: 'invalid_subject_token', error_description: 'Session token is invalid or expired' } };
    }
    if (!this.shops.has(dest)) return { status: 400, json: { error: 'invalid_subject_token', error_description: 'Unknown shop' } };
    const token = `shpat_${randomBytes(16).toString('hex')}`;
    this.tokens.set(token, dest);
    this.exchanges.set(dest, (this.exchanges.get(dest) ?? 0) + 1);
    return { json: { access_token: token, scope: this.scope } };
  }

  private async graphql(req: RecordedRequest, version: string): Promise<Reply> {
    if (!/^\d{4}-\d{2}$/.test(version)) req.violations.push(`bad API version ${version}`);
    const domain = this.tokens.get(header(req, 'x-shopify-access-token') ?? '');
    if (!domain) return { status: 401, json: { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' } };
    const b = (req.json ?? {}) as { query?: unknown; variables?: unknown };
    if (typeof b.query !== 'string') return { status: 400, json: { errors: { query: 'Required parameter missing or invalid' } } };
    const variables = (b.variables && typeof b.variables === 'object' ? b.variables : {}) as Record<string, unknown>;
    for (const h of this.handlers) {
      const reply = await h({ query: b.query, variables, domain, req });
      if (reply) return reply;
    }
    const shop = this.shops.get(domain)!;
    if (/\bshop\s*\{/.test(b.query)) {
      return { json: { data: { shop: { name: shop.name, primaryDomain: { url: shop.primaryDomain, host: new URL(shop.primaryDomain).host } } } } };
    }
    return { json: { errors: [{ message: 'This fake answers only shop { name primaryDomain }' }] } };
  }
}

/** A webhook delivery as the platform signs it. */
export function signWebhook(
  secret: string,
  o: { topic: string; domain: string; body: unknown; webhookId?: string; apiVersion?: string },
): { headers: Record<string, string>; raw: string } {
  const raw = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
  return {
    raw,
    headers: {
      'content-type': 'application/json',
      'x-shopify-hmac-sha256': createHmac('sha256', secret).update(raw, 'utf8').digest('base64'),
      'x-shopify-topic': o.topic,
      'x-shopify-shop-domain': o.domain,
      'x-shopify-webhook-id': o.webhookId ?? randomUUID(),
      'x-shopify-api-version': o.apiVersion ?? '2025-10',
      'x-shopify-triggered-at': new Date().toISOString(),
    },
  };
}
