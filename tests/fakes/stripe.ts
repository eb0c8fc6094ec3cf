// A local HTTP stand-in for the Stripe API, as the official `stripe` SDK calls it (form-encoded bodies with
// bracketed keys, Idempotency-Key, Bearer secret key, JSON answers and `{error: {type, message, code}}` errors),
// for the calls the app makes: prices and products (retrieve, expand[]=product), customers (create, update),
// Checkout Sessions (create, retrieve), Billing Portal sessions, promotion codes (list by code), subscriptions
// (retrieve, update). It also plays Stripe's part around them: a hosted checkout page whose Pay button completes
// the session (a subscription with its first invoice, or a paid minute pack) and delivers the webhook events
// signed with the SDK's own generateTestHeaderString; a portal page that links back to return_url.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

type Obj = Record<string, unknown>;

export interface StandInRequest {
  method: string;
  path: string;
  params: Obj;
  idempotencyKey: string | null;
  auth: string | null;
}

/** Parses Stripe's form encoding (a[b][0][c]=x) into nested objects and arrays. */
export function parseStripeForm(body: string): Obj {
  const root: Obj = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const parts = rawKey.replace(/\]/g, '').split('[');
    let cur: Obj | unknown[] = root;
    for (let i = 0; i < parts.length; i++) {
      const k = parts[i];
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]);
      const key: string | number = Array.isArray(cur) ? Number(k) : k;
      const container = cur as Record<string | number, unknown>;
      if (last) container[key] = value;
      else {
        if (container[key] === undefined) container[key] = nextIsIndex ? [] : {};
        cur = container[key] as Obj | unknown[];
      }
    }
  }
  return root;
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const now = () => Math.floor(Date.now() / 1000);
function addInterval(t: number, interval: string): number {
  const d = new Date(t * 1000);
  d.setUTCMonth(d.getUTCMonth() + (interval === 'year' ? 12 : 1));
  return Math.floor(d.getTime() / 1000);
}

class StripeHttpError extends Error {
  constructor(readonly status: number, message: string, readonly code = 'resource_missing', readonly type = 'invalid_request_error') {
    super(message);
  }
}

export interface StandInOptions {
  /** Where webhook events go (the app's /api/payments/webhook); can be set later. */
  webhookUrl?: string;
}

export interface Delivery {
  event: Obj;
  status: number;
}

export class StripeStandIn {
  readonly secretKey = 'sk_test_standin';
  readonly webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  readonly products = new Map<string, Obj>();
  readonly prices = new Map<string, Obj>();
  readonly customers = new Map<string, Obj>();
  readonly sessions = new Map<string, Obj>();
  readonly subscriptions = new Map<string, Obj>();
  readonly promotionCodes = new Map<string, Obj>();
  readonly portalSessions = new Map<string, Obj>();
  readonly requests: StandInRequest[] = [];
  readonly deliveries: Delivery[] = [];
  /** Requests that broke the documented shape (a test asserts none). */
  readonly violations: string[] = [];
  private readonly idem = new Map<string, { status: number; body: unknown }>();
  private server: Server | null = null;
  url = '';
  /** How events reach the app: POST to webhookUrl by default; server tests call the app in-process. */
  deliver: (payload: string, signature: string) => Promise<number>;
  private readonly sdk = new Stripe('sk_test_signer');

  constructor(opts: StandInOptions = {}) {
    let target = opts.webhookUrl ?? '';
    this.deliver = async (payload, signature) => {
      if (!target) throw new Error('stand-in: no webhook URL');
      const r = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, body: payload });
      await r.text();
      return r.status;
    };
    this.setWebhookUrl = (u: string) => {
      target = u;
    };
  }
  setWebhookUrl: (u: string) => void;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  async close(): Promise<void> {
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
    this.server?.closeAllConnections?.();
  }

  /** The environment that points the app at this stand-in, with a plan catalogue created here. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      STRIPE_SECRET_KEY: this.secretKey,
      STRIPE_WEBHOOK_SECRET: this.webhookSecret,
      STRIPE_API_URL: this.url,
      ...this.priceEnv,
      ...extra,
    };
  }
  priceEnv: Record<string, string> = {};

  // ---------------------------------------------------------------------------------------------- catalogue

  addProduct(p: { id?: string; name: string; metadata?: Record<string, string>; active?: boolean }): Obj {
    const product = { id: p.id ?? id('prod'), object: 'product', name: p.name, active: p.active ?? true, metadata: p.metadata ?? {}, livemode: false };
    this.products.set(product.id, product);
    return product;
  }
  addPrice(p: { id?: string; product: string; unit_amount: number; currency?: string; interval?: 'month' | 'year'; active?: boolean }): Obj {
    const price = {
      id: p.id ?? id('price'), object: 'price', product: p.product, unit_amount: p.unit_amount, currency: p.currency ?? 'usd',
      active: p.active ?? true, type: p.interval ? 'recurring' : 'one_time',
      recurring: p.interval ? { interval: p.interval, interval_count: 1, usage_type: 'licensed' } : null, livemode: false, metadata: {},
    };
    this.prices.set(price.id, price);
    return price;
  }

  /** The plans (monthly and yearly) and the minute pack the app is configured with (priceEnv). */
  seedCatalogue(): this {
    const plans: [string, string, number, number][] = [
      ['starter', 'Starter', 1500, 14400], ['creator', 'Creator', 4900, 46800], ['creator_pro', 'Creator Pro', 14900, 142800],
      ['business', 'Business', 49900, 478800],
    ];
    plans.forEach(([tier, name, month, year], i) => {
      const prod = this.addProduct({ id: `prod_${tier}`, name, metadata: { position: String(i + 1), tier } });
      this.addPrice({ id: `price_${tier}_month`, product: String(prod.id), unit_amount: month, interval: 'month' });
      this.addPrice({ id: `price_${tier}_year`, product: String(prod.id), unit_amount: year, interval: 'year' });
      this.priceEnv[`STRIPE_PRICE_${tier.toUpperCase()}_MONTH`] = `price_${tier}_month`;
      this.priceEnv[`STRIPE_PRICE_${tier.toUpperCase()}_YEAR`] = `price_${tier}_year`;
    });
    const minutes = this.addProduct({ id: 'prod_minutes', name: 'Extra minutes' });
    this.addPrice({ id: 'price_minutes', product: String(minutes.id), unit_amount: 200 });
    this.priceEnv.STRIPE_PRICE_MINUTES = 'price_minutes';
    const ent = this.addProduct({ id: 'prod_enterprise', name: 'Enterprise', metadata: { tier: 'enterprise' } });
    this.addPrice({ id: 'price_enterprise_custom', product: String(ent.id), unit_amount: 250000, interval: 'month' });
    this.priceEnv.STRIPE_ENTERPRISE_PRODUCTS = 'prod_enterprise';
    return this;
  }

  addPromotionCode(code: string, coupon: { percent_off?: number; amount_off?: number; duration?: string }): Obj {
    const c = {
      id: id('co'), object: 'coupon', valid: true, percent_off: coupon.percent_off ?? null, amount_off: coupon.amount_off ?? null,
      currency: coupon.amount_off ? 'usd' : null, duration: coupon.duration ?? 'once', duration_in_months: null,
    };
    const p = { id: id('promo'), object: 'promotion_code', code, active: true, promotion: { type: 'coupon', coupon: c } };
    this.promotionCodes.set(p.id, p);
    return p;
  }

  // ---------------------------------------------------------------------------------------------- Stripe's side

  /** A subscription as the API returns it (price expanded in its item, the period on the item). */
  createSubscription(o: { customer: string; price: string; status?: string; metadata?: Record<string, string>; start?: number }): Obj {
    const price = this.prices.get(o.price);
    if (!price) throw new Error(`stand-in: no price ${o.price}`);
    const start = o.start ?? now();
    const end = addInterval(start, String((price.recurring as Obj | null)?.interval ?? 'month'));
    const sub = {
      id: id('sub'), object: 'subscription', customer: o.customer, status: o.status ?? 'active', created: start,
      cancel_at_period_end: false, cancel_at: null, canceled_at: null, ended_at: null, pause_collection: null,
      metadata: o.metadata ?? {}, livemode: false,
      items: { object: 'list', data: [{ id: id('si'), object: 'subscription_item', price, quantity: 1, current_period_start: start, current_period_end: end }] },
    };
    this.subscriptions.set(sub.id, sub);
    return sub;
  }
  updateSubscription(subId: string, patch: Obj): Obj {
    const sub = this.subscriptions.get(subId);
    if (!sub) throw new StripeHttpError(404, `No such subscription: '${subId}'`);
    Object.assign(sub, patch);
    return sub;
  }
  /** Moves a subscription into its next period (a renewal). */
  renew(subId: string): Obj {
    const sub = this.subscriptions.get(subId)!;
    const item = (sub.items as { data: Obj[] }).data[0];
    const interval = String(((item.price as Obj).recurring as Obj).interval);
    item.current_period_start = item.current_period_end;
    item.current_period_end = addInterval(Number(item.current_period_end), interval);
    return sub;
  }
  invoiceFor(subId: string, o: { paid?: boolean } = {}): Obj {
    const sub = this.subscriptions.get(subId)!;
    const item = (sub.items as { data: Obj[] }).data[0];
    const price = item.price as Obj;
    const product = this.products.get(String(price.product));
    return {
      id: id('in'), object: 'invoice', customer: sub.customer, status: o.paid === false ? 'open' : 'paid',
      amount_paid: o.paid === false ? 0 : price.unit_amount, amount_due: price.unit_amount, currency: price.currency,
      parent: { type: 'subscription_details', subscription_details: { subscription: sub.id, metadata: {} } },
      lines: {
        object: 'list',
        data: [{
          id: id('il'), object: 'line_item', amount: price.unit_amount, currency: price.currency, quantity: 1,
          description: `1 × ${String(product?.name ?? 'Plan')}`,
          pricing: { type: 'price_details', price_details: { price: price.id, product: price.product }, unit_amount_decimal: String(price.unit_amount) },
          period: { start: item.current_period_start, end: item.current_period_end },
        }],
      },
    };
  }

  event(type: string, object: Obj, created = now()): Obj {
    return { id: id('evt'), object: 'event', api_version: '2026-10-28.endive', created, type, livemode: false, pending_webhooks: 1, data: { object: structuredClone(object) } };
  }

  /** The signature header Stripe would send (the SDK's own test helper), optionally stale or with another secret. */
  sign(payload: string, o: { secret?: string; timestamp?: number } = {}): string {
    return this.sdk.webhooks.generateTestHeaderString({ payload, secret: o.secret ?? this.webhookSecret, timestamp: o.timestamp });
  }

  /** Delivers events in order, signed; returns the app's answers. */
  async send(...events: Obj[]): Promise<number[]> {
    const out: number[] = [];
    for (const e of events) {
      const payload = JSON.stringify(e, null, 2);
      const status = await this.deliver(payload, this.sign(payload));
      this.deliveries.push({ event: e, status });
      out.push(status);
    }
    return out;
  }

  /** What happens when the customer pays on the hosted page: the objects change and the events go out. */
  async completeCheckout(sessionId: string): Promise<Obj[]> {
    const s = this.sessions.get(sessionId);
    if (!s) throw new Error(`stand-in: no session ${sessionId}`);
    if (s.status !== 'open') return [];
    s.status = 'complete';
    s.payment_status = 'paid';
    const events: Obj[] = [];
    if (s.mode === 'subscription') {
      const line = (s.line_items as Obj[])[0];
      const sub = this.createSubscription({ customer: String(s.customer), price: String(line.price), metadata: (s.subscription_data as Obj | undefined)?.metadata as Record<string, string> });
      s.subscription = sub.id;
      events.push(this.event('checkout.session.completed', s), this.event('customer.subscription.created', sub), this.event('invoice.paid', this.invoiceFor(String(sub.id))));
    } else {
      events.push(this.event('checkout.session.completed', s));
    }
    await this.send(...events);
    return events;
  }

  // ---------------------------------------------------------------------------------------------- HTTP

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    try {
      if (url.pathname.startsWith('/pay/')) return await this.hostedCheckout(method, url.pathname.slice(5), res);
      if (url.pathname.startsWith('/portal/')) return this.hostedPortal(url.pathname.slice(8), res);
      const params = method === 'GET' || method === 'DELETE' ? parseStripeForm(url.search.slice(1)) : parseStripeForm(body);
      const auth = req.headers.authorization ?? null;
      const key = (req.headers['idempotency-key'] as string | undefined) ?? null;
      this.requests.push({ method, path: url.pathname, params, idempotencyKey: key, auth });
      if (auth !== `Bearer ${this.secretKey}`) throw new StripeHttpError(401, 'Invalid API Key provided', 'api_key_invalid', 'invalid_request_error');
      if (!req.headers['stripe-version']) this.violations.push(`${method} ${url.pathname} without Stripe-Version`);
      if (method === 'POST' && body && !String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) {
        this.violations.push(`${method} ${url.pathname}: body is not form-encoded`);
      }
      const idemKey = key && method === 'POST' ? `${url.pathname}|${key}` : null;
      if (idemKey && this.idem.has(idemKey)) {
        const hit = this.idem.get(idemKey)!;
        return this.json(res, hit.status, hit.body);
      }
      const result = this.route(method, url.pathname, params);
      if (idemKey) this.idem.set(idemKey, { status: 200, body: result });
      return this.json(res, 200, result);
    } catch (e) {
      if (e instanceof StripeHttpError) return this.json(res, e.status, { error: { type: e.type, message: e.message, code: e.code } });
      this.json(res, 500, { error: { type: 'api_error', message: String(e) } });
    }
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
    res.end(JSON.stringify(body));
  }

  private expand(obj: Obj, params: Obj): Obj {
    const expand = (params.expand as string[] | undefined) ?? [];
    const out = structuredClone(obj);
    if (expand.includes('product') && typeof out.product === 'string') out.product = structuredClone(this.products.get(out.product) ?? out.product);
    return out;
  }

  private need<T>(m: Map<string, T>, key: string, what: string): T {
    const v = m.get(key);
    if (!v) throw new StripeHttpError(404, `No such ${what}: '${key}'`);
    return v;
  }

  private route(method: string, path: string, p: Obj): unknown {
    let m: RegExpExecArray | null;
    if (method === 'GET' && (m = /^\/v1\/prices\/([^/]+)$/.exec(path))) return this.expand(this.need(this.prices, m[1], 'price'), p);
    if (method === 'GET' && (m = /^\/v1\/products\/([^/]+)$/.exec(path))) return this.need(this.products, m[1], 'product');
    if (method === 'POST' && path === '/v1/customers') {
      const c = { id: id('cus'), object: 'customer', email: p.email ?? null, name: null, metadata: p.metadata ?? {}, address: null, phone: null };
      this.customers.set(c.id, c);
      return c;
    }
    if (method === 'POST' && (m = /^\/v1\/customers\/([^/]+)$/.exec(path))) {
      const c = this.need(this.customers, m[1], 'customer');
      for (const k of ['name', 'email', 'phone', 'address'] as const) if (p[k] !== undefined) c[k] = p[k];
      return c;
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') return this.createSession(p);
    if (method === 'GET' && (m = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path))) return this.need(this.sessions, m[1], 'checkout.session');
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      this.need(this.customers, String(p.customer), 'customer');
      if (!p.return_url) throw new StripeHttpError(400, 'Missing required param: return_url.', 'parameter_missing');
      const s = { id: id('bps'), object: 'billing_portal.session', customer: p.customer, return_url: p.return_url, url: '' };
      s.url = `${this.url}/portal/${s.id}`;
      this.portalSessions.set(s.id, s);
      return s;
    }
    if (method === 'GET' && path === '/v1/promotion_codes') {
      const data = [...this.promotionCodes.values()].filter((x) => x.code === p.code && (p.active === undefined || String(x.active) === p.active));
      return { object: 'list', data, has_more: false, url: '/v1/promotion_codes' };
    }
    if (method === 'GET' && (m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) return this.need(this.subscriptions, m[1], 'subscription');
    if (method === 'POST' && (m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const sub = this.need(this.subscriptions, m[1], 'subscription');
      if (p.cancel_at_period_end !== undefined) sub.cancel_at_period_end = p.cancel_at_period_end === 'true';
      if (Array.isArray(p.items)) {
        const it = (p.items as Obj[])[0];
        const item = (sub.items as { data: Obj[] }).data.find((x) => x.id === it.id);
        if (!item) throw new StripeHttpError(400, `No such subscription item: '${String(it.id)}'`);
        item.price = this.need(this.prices, String(it.price), 'price');
      }
      return sub;
    }
    throw new StripeHttpError(404, `Unrecognized request URL (${method}: ${path}).`, 'resource_missing');
  }

  private createSession(p: Obj): Obj {
    const mode = String(p.mode);
    if (mode !== 'subscription' && mode !== 'payment') throw new StripeHttpError(400, 'Invalid mode', 'parameter_invalid');
    if (!p.success_url) throw new StripeHttpError(400, 'Missing required param: success_url.', 'parameter_missing');
    const items = (p.line_items as Obj[] | undefined) ?? [];
    if (items.length !== 1) throw new StripeHttpError(400, 'line_items: exactly one expected here', 'parameter_invalid');
    const price = this.need(this.prices, String(items[0].price), 'price');
    const quantity = Number(items[0].quantity ?? 1);
    if (!Number.isInteger(quantity) || quantity < 1) throw new StripeHttpError(400, 'Invalid positive integer', 'parameter_invalid');
    if ((mode === 'subscription') !== (price.type === 'recurring')) {
      throw new StripeHttpError(400, `You specified \`${mode}\` mode but passed a ${String(price.type)} price.`, 'parameter_invalid');
    }
    if (p.customer) this.need(this.customers, String(p.customer), 'customer');
    if (p.discounts && p.allow_promotion_codes) throw new StripeHttpError(400, 'You may only specify one of these parameters: allow_promotion_codes, discounts.');
    const s: Obj = {
      id: `cs_test_${randomBytes(12).toString('hex')}`, object: 'checkout.session', mode, customer: p.customer ?? null,
      client_reference_id: p.client_reference_id ?? null, metadata: p.metadata ?? {}, success_url: p.success_url, cancel_url: p.cancel_url ?? null,
      status: 'open', payment_status: 'unpaid', amount_total: Number(price.unit_amount) * quantity, currency: price.currency,
      subscription: null, line_items: items.map((i) => ({ price: i.price, quantity: Number(i.quantity ?? 1) })),
      subscription_data: p.subscription_data ?? null, discounts: p.discounts ?? [], allow_promotion_codes: p.allow_promotion_codes === 'true',
      livemode: false, url: '',
    };
    s.url = `${this.url}/pay/${String(s.id)}`;
    this.sessions.set(String(s.id), s);
    return s;
  }

  private async hostedCheckout(method: string, sessionId: string, res: ServerResponse): Promise<void> {
    const s = this.sessions.get(sessionId);
    if (!s) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Checkout session not found</h1>');
      return;
    }
    if (method === 'POST') {
      await this.completeCheckout(sessionId);
      res.writeHead(303, { location: String(s.success_url) });
      res.end();
      return;
    }
    const line = (s.line_items as Obj[])[0];
    const price = this.prices.get(String(line.price))!;
    const product = this.products.get(String(price.product));
    const total = ((Number(price.unit_amount) * Number(line.quantity)) / 100).toFixed(2);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Checkout stand-in</title></head><body style="font-family:sans-serif;max-width:480px;margin:48px auto">
<h1>Pay ${String(product?.name ?? '')}</h1><p>${String(line.quantity)} × ${String(product?.name ?? '')}: <strong>$${total}</strong></p>
<form method="post"><button type="submit">Pay</button></form><p><a href="${String(s.cancel_url)}">Cancel</a></p></body></html>`);
  }

  private hostedPortal(sessionId: string, res: ServerResponse): void {
    const s = this.portalSessions.get(sessionId.split('/')[0]);
    res.writeHead(s ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(s ? `<!doctype html><h1>Billing portal stand-in</h1><a href="${String(s.return_url)}">Return</a>` : '<h1>Not found</h1>');
  }
}

export async function startStripeStandIn(opts: StandInOptions = {}): Promise<StripeStandIn> {
  return new StripeStandIn(opts).seedCatalogue().start();
}
