// Stripe through the official SDK: the catalogue (configured prices and their products), customers, Checkout
// Sessions for subscriptions and for minute packs, the Billing Portal, promotion codes, subscription updates
// (plan change, cancel at period end and its undo), billing details, and webhook signature verification.
// STRIPE_API_URL points the SDK elsewhere (stripe-mock, the test stand-in); the SDK speaks the same API there.
import Stripe from 'stripe';
import { PLAN_TIERS, type PlanTier } from '../../../contract/features';
import type { BillingDetails, PromotionCode } from '../../../contract/schemas/payments';
import type { StripeConfig, StripePlanKey } from '../../config';
import type { Db } from '../../db/index';
import { PLAN_POSITION, type CatalogueEntry } from './catalogue';
import * as repo from './payments-repository';
import type { CheckoutInput, PaymentsRemote } from './provider';


const isTier = (s: unknown): s is PlanTier => typeof s === 'string' && (PLAN_TIERS as readonly string[]).includes(s);

function splitKey(key: StripePlanKey): { tier: PlanTier; interval: 'month' | 'year' } {
  const m = /^(.*)_(month|year)$/.exec(key)!;
  return { tier: m[1] as PlanTier, interval: m[2] as 'month' | 'year' };
}

const idOf = (x: string | { id: string } | null | undefined): string | null => (x == null ? null : typeof x === 'string' ? x : x.id);

export interface PriceInfo {
  tier: PlanTier;
  interval: 'month' | 'year';
  productId: string | null;
}

export class StripeProvider implements PaymentsRemote {
  readonly kind = 'stripe' as const;
  readonly stripe: Stripe;
  private readonly byPrice = new Map<string, StripePlanKey>();

  constructor(readonly cfg: StripeConfig) {
    this.stripe = new Stripe(cfg.secretKey, {
      ...(cfg.api ? { host: cfg.api.host, port: cfg.api.port, protocol: cfg.api.protocol } : {}),
      maxNetworkRetries: 2,
      timeout: 20_000,
      appInfo: { name: 'dubbing-studio' },
    });
    for (const [k, id] of Object.entries(cfg.planPrices)) this.byPrice.set(id, k as StripePlanKey);
  }

  /** Verifies the Stripe-Signature header (HMAC and timestamp tolerance) and parses the event; throws when invalid. */
  constructEvent(raw: string, signature: string | undefined): Stripe.Event {
    if (!signature) throw new Error('No Stripe-Signature header');
    return this.stripe.webhooks.constructEvent(raw, signature, this.cfg.webhookSecret);
  }

  /** Reads the configured prices (with their products) and the enterprise products, and writes the catalogue. */
  async syncCatalogue(db: Db): Promise<void> {
    const plan = Object.entries(this.cfg.planPrices) as [StripePlanKey, string][];
    const [planPrices, minutes, enterprise] = await Promise.all([
      Promise.all(plan.map(([, id]) => this.stripe.prices.retrieve(id, { expand: ['product'] }))),
      this.cfg.minutesPrice ? this.stripe.prices.retrieve(this.cfg.minutesPrice, { expand: ['product'] }) : Promise.resolve(null),
      Promise.all(this.cfg.enterpriseProducts.map((id) => this.stripe.products.retrieve(id))),
    ]);
    await db.tx(async (t) => {
      for (let i = 0; i < plan.length; i++) {
        const [key] = plan[i];
        const price = planPrices[i];
        const { tier, interval } = splitKey(key);
        if (price.type !== 'recurring' || price.recurring?.interval !== interval) {
          throw new Error(`STRIPE_PRICE_${key.toUpperCase()} (${price.id}) must be a recurring price billed every ${interval}`);
        }
        await this.writeProduct(t, price.product as Stripe.Product, 'plan', tier);
        await this.writePrice(t, price, true);
      }
      if (minutes) {
        if (minutes.type !== 'one_time') throw new Error(`STRIPE_PRICE_MINUTES (${minutes.id}) must be a one-time price (per minute)`);
        await this.writeProduct(t, minutes.product as Stripe.Product, 'credits', null);
        await this.writePrice(t, minutes, true);
      }
      for (const p of enterprise) await this.writeProduct(t, p, 'plan', 'enterprise');
      await repo.retirePricesExcept(t, 'stripe', [...plan.map(([, id]) => id), ...(minutes ? [minutes.id] : [])]);
    });
  }

  private async writeProduct(db: Db, p: Stripe.Product | Stripe.DeletedProduct, kind: 'plan' | 'credits', tier: PlanTier | null): Promise<void> {
    if ('deleted' in p && p.deleted) return;
    const product = p as Stripe.Product;
    const enterprise = tier === 'enterprise' || tier === 'custom' || this.cfg.enterpriseProducts.includes(product.id);
    const position = Number(product.metadata?.position);
    await repo.upsertProduct(db, 'stripe', {
      id: product.id,
      kind,
      tier: enterprise && tier !== 'custom' ? 'enterprise' : tier,
      category: kind === 'credits' ? 'credits' : enterprise ? 'enterprise' : (tier ?? 'custom'),
      name: product.name,
      isArchived: !product.active,
      position: Number.isFinite(position) ? position : (tier ? PLAN_POSITION[tier] ?? 99 : 0),
      metadata: { ...(product.metadata ?? {}) },
    });
  }

  private async writePrice(db: Db, price: Stripe.Price, current: boolean): Promise<void> {
    const r = price.recurring?.interval;
    const interval = r === 'month' ? 'month' : r === 'year' ? 'year' : null;
    await repo.upsertPrice(db, 'stripe', {
      id: price.id,
      productId: idOf(price.product)!,
      unitAmount: price.unit_amount,
      currency: price.currency,
      interval,
      isArchived: !price.active,
      isCurrent: current,
    });
  }

  /**
   * The tier of a subscription's price: a configured price, else the tier of its product in the catalogue, else
   * the product's metadata.tier, else an enterprise product; unknown products count as the smallest plan. A price
   * not configured is remembered as archived (the subscriber keeps it; the pricing page does not offer it).
   */
  async priceInfo(db: Db, price: Stripe.Price): Promise<PriceInfo> {
    const interval = price.recurring?.interval === 'year' ? 'year' : 'month';
    const productId = idOf(price.product);
    const key = this.byPrice.get(price.id);
    if (key) return { ...splitKey(key), interval, productId };
    let tier: PlanTier | null = null;
    const known = productId ? await repo.findProduct(db, 'stripe', productId) : null;
    if (known?.kind === 'plan' && isTier(known.tier)) tier = known.tier;
    if (!tier && productId) {
      const product = typeof price.product === 'object' && !('deleted' in price.product && price.product.deleted)
        ? (price.product as Stripe.Product)
        : await this.stripe.products.retrieve(productId).catch(() => null);
      const meta = product?.metadata?.tier;
      tier = isTier(meta) ? meta : this.cfg.enterpriseProducts.includes(productId) ? 'enterprise' : 'starter';
      if (product && !known) await this.writeProduct(db, product, 'plan', tier);
    }
    if (!(await repo.findPrice(db, 'stripe', price.id)) && productId) await this.writePrice(db, price, false);
    return { tier: tier ?? 'starter', interval, productId };
  }

  retrieveSubscription(id: string): Promise<Stripe.Subscription> {
    return this.stripe.subscriptions.retrieve(id);
  }

  /** The user's customer, created once (the idempotency key makes two concurrent creations one). */
  async ensureCustomer(user: repo.BillingUser): Promise<string> {
    if (user.customer_id) return user.customer_id;
    const c = await this.stripe.customers.create(
      { email: user.email, metadata: { user_id: user.id } },
      { idempotencyKey: `customer-${user.id}` },
    );
    return c.id;
  }

  async createCheckoutSession(i: CheckoutInput): Promise<{ id: string; url: string }> {
    const metadata = { user_id: i.user.id, space_id: i.spaceId, minutes: String(i.mode === 'payment' ? i.quantity : 0) };
    const params: Stripe.Checkout.SessionCreateParams = {
      mode: i.mode,
      customer: i.customerId,
      client_reference_id: i.user.id,
      line_items: [{ price: i.entry.price.id, quantity: i.quantity }],
      success_url: i.successUrl,
      cancel_url: i.cancelUrl,
      metadata,
      ...(i.promotionCodeId ? { discounts: [{ promotion_code: i.promotionCodeId }] } : { allow_promotion_codes: true }),
      ...(i.mode === 'subscription'
        ? { subscription_data: { metadata: { user_id: i.user.id } } }
        : { invoice_creation: { enabled: true }, payment_intent_data: { metadata } }),
    };
    const s = await this.stripe.checkout.sessions.create(params, { idempotencyKey: i.idempotencyKey });
    if (!s.url) throw new Error('Stripe returned a checkout session without a URL');
    return { id: s.id, url: s.url };
  }

  async billingPortalUrl(customerId: string, returnUrl: string): Promise<string> {
    const s = await this.stripe.billingPortal.sessions.create({ customer: customerId, return_url: returnUrl });
    return s.url;
  }

  async findPromotionCode(code: string): Promise<PromotionCode | null> {
    const list = await this.stripe.promotionCodes.list({ code, active: true, limit: 1, expand: ['data.promotion.coupon'] });
    const p = list.data[0];
    if (!p) return null;
    const raw = p as unknown as { coupon?: Stripe.Coupon | string; promotion?: { coupon?: Stripe.Coupon | string | null } };
    const coupon = (typeof raw.promotion?.coupon === 'object' && raw.promotion.coupon) || (typeof raw.coupon === 'object' && raw.coupon) || null;
    if (!coupon || !coupon.valid) return null;
    return {
      id: p.id,
      code: p.code,
      coupon: {
        percent_off: coupon.percent_off ?? null,
        amount_off: coupon.amount_off ?? null,
        currency: coupon.currency ?? null,
        duration: coupon.duration === 'once' ? 'once' : coupon.duration === 'repeating' ? 'repeating' : 'forever',
        duration_in_months: coupon.duration_in_months ?? null,
      },
    };
  }

  async changePlan(subscriptionId: string, priceId: string): Promise<void> {
    const sub = await this.stripe.subscriptions.retrieve(subscriptionId);
    const item = sub.items.data[0];
    await this.stripe.subscriptions.update(subscriptionId, {
      items: [{ id: item.id, price: priceId, quantity: 1 }],
      proration_behavior: 'create_prorations',
      cancel_at_period_end: false,
    });
  }

  async setCancelAtPeriodEnd(subscriptionId: string, cancel: boolean): Promise<void> {
    await this.stripe.subscriptions.update(subscriptionId, { cancel_at_period_end: cancel });
  }

  async updateBillingDetails(customerId: string, d: BillingDetails): Promise<void> {
    const address = d.address ? Object.fromEntries(Object.entries(d.address).filter(([, x]) => x !== undefined)) : undefined;
    await this.stripe.customers.update(customerId, {
      ...(d.name !== undefined ? { name: d.name } : {}),
      ...(d.email !== undefined ? { email: d.email } : {}),
      ...(d.phone !== undefined ? { phone: d.phone } : {}),
      ...(address ? { address } : {}),
    });
  }

  /** Entry of the catalogue for a configured price (for the service's checks). */
  static isPlanEntry(e: CatalogueEntry): boolean {
    return e.product.kind === 'plan' && e.price.interval !== null;
  }
}
