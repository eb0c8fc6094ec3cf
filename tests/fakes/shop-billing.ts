// The platform's billing API on the FakeShopAdmin (issue 32 part 5), as documented for the GraphQL Admin API:
//   appSubscriptionCreate(name, returnUrl, lineItems, test) -> { appSubscription { id status lineItems { id plan {
//     pricingDetails { __typename } } } }, confirmationUrl, userErrors { field message } }; one line may hold
//     appRecurringPricingDetails { price { amount currencyCode } interval: EVERY_30_DAYS | ANNUAL }, one
//     appUsagePricingDetails { terms cappedAmount { amount currencyCode } }. The subscription is PENDING until the
//     merchant approves it on the confirmation page.
//   currentAppInstallation { activeSubscriptions { id name status test currentPeriodEnd lineItems { id plan {
//     pricingDetails { ... on AppRecurringPricing { price interval } ... on AppUsagePricing { terms balanceUsed
//     cappedAmount } } } } } }
//   appUsageRecordCreate(subscriptionLineItemId, price, description, idempotencyKey) -> { appUsageRecord { id
//     idempotencyKey price } userErrors }: "Total price exceeds balance remaining" past the capped amount; the same
//     idempotency key answers the same record.
//   appSubscriptionLineItemUpdate(id, cappedAmount) -> { appSubscription { id } confirmationUrl userErrors }: the new
//     cap applies once the merchant approves it.
// Money amounts are Decimal scalars (strings in answers). The confirmation pages are plain routes of the fake:
// GET /admin/charges/:n/confirm (an HTML page), ?approve=1 marks the subscription ACTIVE (an active one of the
// shop is CANCELLED: it is replaced) and redirects to the returnUrl with charge_id; ?decline=1 marks it DECLINED.
// `webhook(id)` builds the signed app_subscriptions/update delivery for the test to send.
import type { Reply } from './base';
import { signWebhook, type FakeShopAdmin, type GraphqlCall } from './shop-admin';

interface Money {
  amount: number;
  currencyCode: string;
}
export interface FakeLine {
  id: string;
  kind: 'recurring' | 'usage';
  price?: Money;
  interval?: string;
  terms?: string;
  cappedAmount?: Money;
  balanceUsed: number;
  /** A higher cap asked for with appSubscriptionLineItemUpdate, until approved. */
  pendingCap?: number;
}
export interface FakeAppSubscription {
  id: string;
  n: number;
  domain: string;
  name: string;
  status: 'PENDING' | 'ACTIVE' | 'DECLINED' | 'CANCELLED' | 'EXPIRED' | 'FROZEN';
  test: boolean;
  returnUrl: string;
  createdAt: string;
  currentPeriodEnd: string | null;
  lineItems: FakeLine[];
}
export interface FakeUsageRecord {
  id: string;
  lineItemId: string;
  price: Money;
  description: string;
  idempotencyKey: string | null;
}

const money = (m: Money) => ({ amount: m.amount.toFixed(2), currencyCode: m.currencyCode });
const has = (q: string, field: string) => new RegExp(`\\b${field}\\s*[({]`).test(q);

export class FakeShopBilling {
  readonly subscriptions = new Map<string, FakeAppSubscription>();
  readonly usageRecords: FakeUsageRecord[] = [];
  private seq = 1000;

  constructor(readonly fake: FakeShopAdmin) {
    fake.use((call) => this.graphql(call));
    fake.route({ method: 'GET', path: '/admin/charges/:n/confirm', handler: (req, p) => this.confirm(Number(p.n), req.query) });
    fake.route({ method: 'GET', path: '/admin/charges/:n/confirm_update', handler: (req, p) => this.confirmUpdate(Number(p.n), req.query) });
  }

  byN(n: number): FakeAppSubscription | undefined {
    return [...this.subscriptions.values()].find((s) => s.n === n);
  }

  usageLine(id: string): FakeLine {
    const l = this.subscriptions.get(id)?.lineItems.find((x) => x.kind === 'usage');
    if (!l) throw new Error(`no usage line on ${id}`);
    return l;
  }

  /** Sets the status as the platform would (a cancel from the admin, a freeze); send webhook(id) after. */
  setStatus(id: string, status: FakeAppSubscription['status']): void {
    this.subscriptions.get(id)!.status = status;
  }

  /** The signed app_subscriptions/update delivery of this subscription's current state. */
  webhook(id: string, webhookId?: string): { headers: Record<string, string>; raw: string } {
    const s = this.subscriptions.get(id)!;
    const rec = s.lineItems.find((l) => l.kind === 'recurring');
    const use = s.lineItems.find((l) => l.kind === 'usage');
    const body = {
      app_subscription: {
        admin_graphql_api_id: s.id,
        name: s.name,
        status: s.status,
        admin_graphql_api_shop_id: `gid://shopify/Shop/${[...s.domain].reduce((a, c) => a + c.charCodeAt(0), 0)}`,
        created_at: s.createdAt,
        updated_at: new Date().toISOString(),
        currency: rec?.price?.currencyCode ?? use?.cappedAmount?.currencyCode ?? 'USD',
        capped_amount: use?.cappedAmount ? use.cappedAmount.amount.toFixed(2) : null,
        price: rec?.price ? rec.price.amount.toFixed(2) : null,
        interval: rec?.interval?.toLowerCase() ?? null,
        plan_handle: null,
      },
    };
    return signWebhook(this.fake.apiSecret, { topic: 'APP_SUBSCRIPTIONS_UPDATE', domain: s.domain, body, webhookId });
  }

  private userErrors(field: string[] | null, message: string) {
    return [{ field, message }];
  }

  private graphql(call: GraphqlCall): Reply | null {
    const q = call.query;
    if (has(q, 'appSubscriptionCreate')) return this.create(call);
    if (has(q, 'appUsageRecordCreate')) return this.usage(call);
    if (has(q, 'appSubscriptionLineItemUpdate')) return this.lineUpdate(call);
    if (has(q, 'currentAppInstallation')) return this.installation(call);
    return null;
  }

  private parseMoney(call: GraphqlCall, m: unknown, where: string): Money | null {
    const o = m as { amount?: unknown; currencyCode?: unknown } | undefined;
    const amount = Number(o?.amount);
    if (!o || !Number.isFinite(amount) || typeof o.currencyCode !== 'string' || !/^[A-Z]{3}$/.test(o.currencyCode)) {
      call.req.violations.push(`${where} is not a MoneyInput`);
      return null;
    }
    return { amount, currencyCode: o.currencyCode };
  }

  private create(call: GraphqlCall): Reply {
    const v = call.variables as { name?: unknown; returnUrl?: unknown; lineItems?: unknown; test?: unknown };
    const payload = (o: object) => ({ json: { data: { appSubscriptionCreate: { appSubscription: null, confirmationUrl: null, userErrors: [], ...o } } } });
    if (typeof v.name !== 'string' || !v.name) call.req.violations.push('appSubscriptionCreate without a name');
    try {
      new URL(String(v.returnUrl));
    } catch {
      call.req.violations.push('appSubscriptionCreate returnUrl is not a URL');
      return { json: { errors: [{ message: 'Variable $returnUrl of type URL! was provided invalid value' }] } };
    }
    if (!Array.isArray(v.lineItems) || v.lineItems.length === 0) {
      return payload({ userErrors: this.userErrors(['lineItems'], 'Line items must contain at least one item') });
    }
    const lines: FakeLine[] = [];
    for (const raw of v.lineItems as Array<{ plan?: Record<string, unknown> }>) {
      const plan = raw.plan ?? {};
      const keys = Object.keys(plan);
      if (keys.length !== 1) call.req.violations.push('a line item plan must hold exactly one pricing details');
      const rec = plan.appRecurringPricingDetails as { price?: unknown; interval?: unknown } | undefined;
      const use = plan.appUsagePricingDetails as { terms?: unknown; cappedAmount?: unknown } | undefined;
      const id = `gid://shopify/AppSubscriptionLineItem/${++this.seq}?v=1&index=${lines.length}`;
      if (rec) {
        const price = this.parseMoney(call, rec.price, 'appRecurringPricingDetails.price');
        if (rec.interval !== 'EVERY_30_DAYS' && rec.interval !== 'ANNUAL') call.req.violations.push(`bad AppPricingInterval ${String(rec.interval)}`);
        if (price && price.amount <= 0) return payload({ userErrors: this.userErrors(['lineItems', 'plan', 'appRecurringPricingDetails', 'price'], 'Price must be greater than 0') });
        lines.push({ id, kind: 'recurring', price: price ?? undefined, interval: String(rec.interval), balanceUsed: 0 });
      } else if (use) {
        const cap = this.parseMoney(call, use.cappedAmount, 'appUsagePricingDetails.cappedAmount');
        if (typeof use.terms !== 'string' || !use.terms) call.req.violations.push('appUsagePricingDetails without terms');
        if (cap && cap.amount <= 0) return payload({ userErrors: this.userErrors(['lineItems', 'plan', 'appUsagePricingDetails', 'cappedAmount'], 'Capped amount must be greater than 0') });
        lines.push({ id, kind: 'usage', terms: String(use.terms), cappedAmount: cap ?? undefined, balanceUsed: 0 });
      } else {
        call.req.violations.push('unknown line item plan');
      }
    }
    if (lines.filter((l) => l.kind === 'recurring').length > 1 || lines.filter((l) => l.kind === 'usage').length > 1) {
      return payload({ userErrors: this.userErrors(['lineItems'], 'Only one recurring and one usage line item are allowed') });
    }
    const n = ++this.seq;
    const sub: FakeAppSubscription = {
      id: `gid://shopify/AppSubscription/${n}`, n, domain: call.domain, name: String(v.name), status: 'PENDING', test: v.test === true,
      returnUrl: String(v.returnUrl), createdAt: new Date().toISOString(), currentPeriodEnd: null, lineItems: lines,
    };
    this.subscriptions.set(sub.id, sub);
    return payload({
      appSubscription: {
        id: sub.id, status: sub.status,
        lineItems: lines.map((l) => ({ id: l.id, plan: { pricingDetails: { __typename: l.kind === 'recurring' ? 'AppRecurringPricing' : 'AppUsagePricing' } } })),
      },
      confirmationUrl: `${this.fake.url}/admin/charges/${n}/confirm?shop=${encodeURIComponent(call.domain)}`,
    });
  }

  private findLine(domain: string, lineId: string): { sub: FakeAppSubscription; line: FakeLine } | null {
    for (const sub of this.subscriptions.values()) {
      if (sub.domain !== domain) continue;
      const line = sub.lineItems.find((l) => l.id === lineId);
      if (line) return { sub, line };
    }
    return null;
  }

  private usage(call: GraphqlCall): Reply {
    const v = call.variables as { subscriptionLineItemId?: unknown; price?: unknown; description?: unknown; idempotencyKey?: unknown };
    const payload = (o: object) => ({ json: { data: { appUsageRecordCreate: { appUsageRecord: null, userErrors: [], ...o } } } });
    const price = this.parseMoney(call, v.price, 'price');
    if (typeof v.description !== 'string' || !v.description) call.req.violations.push('appUsageRecordCreate without a description');
    const key = typeof v.idempotencyKey === 'string' ? v.idempotencyKey : null;
    if (key !== null && key.length > 255) call.req.violations.push('idempotencyKey longer than 255 characters');
    const found = this.findLine(call.domain, String(v.subscriptionLineItemId));
    if (!found || found.line.kind !== 'usage') return payload({ userErrors: this.userErrors(['subscriptionLineItemId'], 'Subscription line item not found') });
    const view = (r: FakeUsageRecord) => ({ id: r.id, idempotencyKey: r.idempotencyKey, price: money(r.price) });
    if (key) {
      const again = this.usageRecords.find((r) => r.idempotencyKey === key && r.lineItemId === found.line.id);
      if (again) return payload({ appUsageRecord: view(again) });
    }
    if (found.sub.status !== 'ACTIVE') return payload({ userErrors: this.userErrors(null, 'The app subscription is not active') });
    if (!price) return payload({ userErrors: this.userErrors(['price'], 'Price is invalid') });
    if (price.currencyCode !== found.line.cappedAmount?.currencyCode) return payload({ userErrors: this.userErrors(['price'], 'Currency must match the capped amount') });
    if (found.line.balanceUsed + price.amount > found.line.cappedAmount.amount + 1e-9) {
      return payload({ userErrors: this.userErrors(null, 'Total price exceeds balance remaining') });
    }
    found.line.balanceUsed = Math.round((found.line.balanceUsed + price.amount) * 100) / 100;
    const r: FakeUsageRecord = { id: `gid://shopify/AppUsageRecord/${++this.seq}`, lineItemId: found.line.id, price, description: String(v.description), idempotencyKey: key };
    this.usageRecords.push(r);
    return payload({ appUsageRecord: view(r) });
  }

  private lineUpdate(call: GraphqlCall): Reply {
    const v = call.variables as { id?: unknown; cappedAmount?: unknown };
    const payload = (o: object) => ({ json: { data: { appSubscriptionLineItemUpdate: { appSubscription: null, confirmationUrl: null, userErrors: [], ...o } } } });
    const cap = this.parseMoney(call, v.cappedAmount, 'cappedAmount');
    const found = this.findLine(call.domain, String(v.id));
    if (!found || found.line.kind !== 'usage') return payload({ userErrors: this.userErrors(['id'], 'Subscription line item not found') });
    if (!cap || cap.amount <= (found.line.cappedAmount?.amount ?? 0)) {
      return payload({ userErrors: this.userErrors(['cappedAmount'], 'The capped amount must be greater than the existing capped amount') });
    }
    found.line.pendingCap = cap.amount;
    return payload({
      appSubscription: { id: found.sub.id },
      confirmationUrl: `${this.fake.url}/admin/charges/${found.sub.n}/confirm_update?shop=${encodeURIComponent(call.domain)}`,
    });
  }

  private installation(call: GraphqlCall): Reply {
    const active = [...this.subscriptions.values()].filter((s) => s.domain === call.domain && s.status === 'ACTIVE');
    return {
      json: {
        data: {
          currentAppInstallation: {
            activeSubscriptions: active.map((s) => ({
              id: s.id, name: s.name, status: s.status, test: s.test, currentPeriodEnd: s.currentPeriodEnd, createdAt: s.createdAt,
              lineItems: s.lineItems.map((l) => ({
                id: l.id,
                plan: {
                  pricingDetails: l.kind === 'recurring'
                    ? { __typename: 'AppRecurringPricing', price: money(l.price!), interval: l.interval }
                    : {
                        __typename: 'AppUsagePricing', terms: l.terms, cappedAmount: money(l.cappedAmount!),
                        balanceUsed: money({ amount: l.balanceUsed, currencyCode: l.cappedAmount!.currencyCode }),
                      },
                },
              })),
            })),
          },
        },
      },
    };
  }

  private confirm(n: number, q: URLSearchParams): Reply {
    const s = this.byN(n);
    if (!s || q.get('shop') !== s.domain) return { status: 404, body: 'Not found' };
    if (s.status !== 'PENDING') return { status: 409, body: 'This charge was already answered' };
    const back = new URL(s.returnUrl);
    back.searchParams.set('charge_id', String(n));
    if (q.get('approve') === '1') {
      // The new subscription replaces the shop's active one.
      for (const o of this.subscriptions.values()) if (o.domain === s.domain && o.status === 'ACTIVE') o.status = 'CANCELLED';
      s.status = 'ACTIVE';
      s.currentPeriodEnd = new Date(Date.now() + 30 * 86400_000).toISOString();
      return { status: 302, headers: { location: back.href } };
    }
    if (q.get('decline') === '1') {
      s.status = 'DECLINED';
      return { status: 302, headers: { location: back.href } };
    }
    const esc = (x: string) => x.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
    return {
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><title>Approve subscription</title><h1>${esc(s.name)}</h1>
<a id="approve" href="?shop=${encodeURIComponent(s.domain)}&approve=1">Approve</a> <a id="decline" href="?shop=${encodeURIComponent(s.domain)}&decline=1">Decline</a>`,
    };
  }

  private confirmUpdate(n: number, q: URLSearchParams): Reply {
    const s = this.byN(n);
    const line = s?.lineItems.find((l) => l.kind === 'usage');
    if (!s || !line || q.get('shop') !== s.domain || line.pendingCap === undefined) return { status: 404, body: 'Not found' };
    if (q.get('approve') === '1') {
      line.cappedAmount = { amount: line.pendingCap, currencyCode: line.cappedAmount!.currencyCode };
      line.pendingCap = undefined;
    }
    return { status: 302, headers: { location: s.returnUrl } };
  }
}

/** Installs the billing operations on the fake. */
export function installShopBilling(fake: FakeShopAdmin): FakeShopBilling {
  return new FakeShopBilling(fake);
}

