// The product catalogue: plans (monthly and yearly prices) and the minute pack, as the pricing page sells them.
// Rows of payment_products/payment_prices, written by the active provider (./payments.ts): the local provider's
// built-in catalogue below, or a copy of the configured Stripe prices. The entitlements function reads the
// enterprise products from here (spec: an enterprise subscription applies when exactly one plan of category
// enterprise matches it).
import { PLAN_DISPLAY_NAMES, PLAN_MONTHLY_MINUTES, type PlanTier } from '../../../contract/features';
import type { CreditProduct, PlanProduct, Price, ProductsResponse } from '../../../contract/schemas/payments';
import type { Db } from '../../db/index';
import * as repo from './payments-repository';

export type ProviderKind = 'local' | 'stripe';
export type SoldTier = 'starter' | 'creator' | 'creator_pro' | 'business';
export const SOLD_TIERS: readonly SoldTier[] = ['starter', 'creator', 'creator_pro', 'business'];
export const INTERVALS = ['month', 'year'] as const;

/** Order of the plans on the pricing page (metadata.position). */
export const PLAN_POSITION: Partial<Record<PlanTier, number>> = {
  starter: 1, creator: 2, creator_pro: 3, business: 4, enterprise: 5, custom: 6,
};

const hasLocalProduct = (tier: string) => tier !== 'free' && tier !== 'trial';
/** The local catalogue's product of a tier (null for free/trial). */
export function localProductId(tier: string): string | null {
  return hasLocalProduct(tier) ? `prod_local_${tier}` : null;
}
export function localPriceId(tier: string, interval: string): string | null {
  return hasLocalProduct(tier) ? `price_local_${tier}_${interval === 'year' ? 'year' : 'month'}` : null;
}
export const LOCAL_MINUTES_PRODUCT = 'prod_local_minutes';
export const LOCAL_MINUTES_PRICE = 'price_local_minutes';

export const isEnterpriseTier = (t: string) => t === 'enterprise' || t === 'custom';

/** The local provider's catalogue: every plan with monthly and yearly prices, and the minute pack; no amounts. */
export function localCatalogue(): { products: repo.ProductInput[]; prices: repo.PriceInput[] } {
  const products: repo.ProductInput[] = [];
  const prices: repo.PriceInput[] = [];
  for (const tier of [...SOLD_TIERS, 'enterprise', 'custom'] as PlanTier[]) {
    const id = localProductId(tier)!;
    products.push({
      id, kind: 'plan', tier, category: isEnterpriseTier(tier) ? 'enterprise' : tier, name: PLAN_DISPLAY_NAMES[tier],
      isArchived: false, position: PLAN_POSITION[tier] ?? 99, metadata: {},
    });
    for (const interval of INTERVALS) {
      prices.push({ id: localPriceId(tier, interval)!, productId: id, unitAmount: null, currency: 'usd', interval, isArchived: false, isCurrent: true });
    }
  }
  products.push({ id: LOCAL_MINUTES_PRODUCT, kind: 'credits', tier: null, category: 'credits', name: 'Extra minutes', isArchived: false, position: 0, metadata: {} });
  prices.push({ id: LOCAL_MINUTES_PRICE, productId: LOCAL_MINUTES_PRODUCT, unitAmount: null, currency: 'usd', interval: null, isArchived: false, isCurrent: true });
  return { products, prices };
}

/** Writes the local catalogue (start-up; idempotent). */
export async function seedLocalCatalogue(db: Db): Promise<void> {
  const { products, prices } = localCatalogue();
  await db.tx(async (t) => {
    for (const p of products) await repo.upsertProduct(t, 'local', p);
    for (const p of prices) await repo.upsertPrice(t, 'local', p);
  });
}

/** Product ids of the enterprise plans of every provider (entitlements' enterprise matching). */
export function enterpriseProductIds(db: Db): Promise<string[]> {
  return repo.enterpriseProductIds(db);
}

export interface CatalogueEntry {
  product: repo.ProductRow;
  price: repo.PriceRow;
}

/** A price of the provider with its product (null when unknown). */
export async function findPrice(db: Db, provider: ProviderKind, priceId: string): Promise<CatalogueEntry | null> {
  const price = await repo.findPrice(db, provider, priceId);
  if (!price) return null;
  const product = await repo.findProduct(db, provider, price.product_id);
  return product ? { product, price } : null;
}

const priceView = (p: repo.PriceRow): Price => ({
  id: p.id,
  unit_amount: p.unit_amount === null ? null : Number(p.unit_amount),
  currency: p.currency,
  interval: p.interval === 'month' || p.interval === 'year' ? p.interval : null,
  is_archived: p.is_archived,
});

/**
 * GET /api/payments/products: the plans (sorted by metadata.position) and the minute pack, with their prices.
 * Prices that are not offered (only known from a subscriber's plan) are listed as archived, so the client can
 * tell an archived subscription; archived products are left out unless a price of theirs is still current.
 */
export async function productsView(db: Db, provider: ProviderKind, checkout: ProductsResponse['checkout']): Promise<ProductsResponse> {
  const [products, prices] = await Promise.all([repo.listProducts(db, provider), repo.listPrices(db, provider)]);
  const byProduct = new Map<string, repo.PriceRow[]>();
  for (const p of prices) byProduct.set(p.product_id, [...(byProduct.get(p.product_id) ?? []), p]);
  const plans: PlanProduct[] = [];
  const credits: CreditProduct[] = [];
  for (const p of products) {
    const ps = (byProduct.get(p.id) ?? []).map((x) => ({ ...x, is_archived: x.is_archived || !x.is_current || p.is_archived }));
    if (p.kind === 'credits') {
      const current = ps.filter((x) => !x.is_archived);
      if (current.length > 0) credits.push({ id: p.id, name: p.name, prices: current.map(priceView) });
      continue;
    }
    const tier = (p.tier ?? 'custom') as PlanTier;
    plans.push({
      id: p.id,
      name: p.name,
      category: p.category,
      tier,
      is_archived: p.is_archived,
      metadata: { position: p.position, monthly_minutes: PLAN_MONTHLY_MINUTES[tier] ?? 0 },
      prices: ps.map(priceView),
    });
  }
  plans.sort((a, b) => a.metadata.position - b.metadata.position || a.name.localeCompare(b.name));
  return { provider, checkout, plans, credits };
}
