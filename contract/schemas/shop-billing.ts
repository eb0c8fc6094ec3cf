// Billing through the platform in the embedded build (issue 32 part 5): a shop Teamspace buys a plan with the
// platform's app subscription (the merchant approves it on the platform's confirmation page) and pays extra minutes
// as usage charges within the subscription's cap.
import * as v from 'valibot';
import { BUY_MINUTES_MAX } from '../constants';

export const SHOP_SOLD_TIERS = ['starter', 'creator', 'creator_pro', 'business'] as const;

export const ShopSubscribeRequest = v.object({ tier: v.picklist(SHOP_SOLD_TIERS) });
export type ShopSubscribeRequest = v.InferOutput<typeof ShopSubscribeRequest>;

export const ShopSubscribeResponse = v.object({
  /** The platform's confirmation page: open it at the top level (App Bridge redirect). */
  confirmation_url: v.string(),
  subscription_id: v.string(),
});
export type ShopSubscribeResponse = v.InferOutput<typeof ShopSubscribeResponse>;

export const ShopMinutesRequest = v.object({
  quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(BUY_MINUTES_MAX)),
  /** The same id for a retry of the same purchase: charged once. */
  request_id: v.pipe(v.string(), v.uuid()),
});
export type ShopMinutesRequest = v.InferOutput<typeof ShopMinutesRequest>;

export const ShopMinutesResponse = v.object({
  minutes: v.number(),
  amount: v.number(),
  currency: v.string(),
  usage_record_id: v.string(),
  /** false when this request id had been charged before (nothing charged again). */
  fresh: v.boolean(),
});
export type ShopMinutesResponse = v.InferOutput<typeof ShopMinutesResponse>;

export const ShopBillingStatus = v.object({
  /** true when the space is a shop Teamspace (billing goes through the platform). */
  shop: v.boolean(),
  currency: v.string(),
  /** Price of each plan per 30 days. */
  prices: v.record(v.string(), v.number()),
  minute_price: v.number(),
  capped_amount: v.number(),
  subscription: v.nullable(
    v.object({
      id: v.string(),
      tier: v.string(),
      status: v.string(),
      amount: v.number(),
      capped_amount: v.nullable(v.number()),
    }),
  ),
});
export type ShopBillingStatus = v.InferOutput<typeof ShopBillingStatus>;
