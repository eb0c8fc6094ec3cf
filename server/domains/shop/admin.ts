// The one way into a shop's Admin API (issue 32): `shopAdminGraphql(deps, spaceId, query, variables)` runs a
// GraphQL operation for the shop whose Teamspace this is, through the library's GraphQL client and the shop's
// offline token. A 401 (token revoked or expired) forgets the token and exchanges again with the shop's latest
// session token when one is alive; else ShopAdminError('reconnect'): the next time a staff user opens the app
// the token is exchanged again.
import { HttpResponseError, Session } from '@shopify/shopify-api';
import type { AppDeps } from '../../deps';
import { openToken } from './crypto';
import { shopCall, shopifyOf } from './library';
import * as repo from './repository';
import { exchangeToken, recentSessionToken, tokenGone } from './token';

type ShopAdminErrorCode = 'not_configured' | 'not_a_shop' | 'uninstalled' | 'reconnect';

export class ShopAdminError extends Error {
  constructor(
    readonly code: ShopAdminErrorCode,
    message: string,
  ) {
    super(message);
  }
}

async function tokenOf(deps: AppDeps, shop: repo.ShopRow, key: Uint8Array): Promise<string> {
  const kept = shop.token_box ? await openToken(key, shop.token_box) : null;
  if (kept) return kept;
  const st = recentSessionToken(deps.db, shop.domain);
  if (!st) throw new ShopAdminError('reconnect', 'The shop must open the app again to renew its access');
  return exchangeToken(deps, shop.domain, st);
}

export async function shopAdminGraphql<T = Record<string, unknown>>(
  deps: AppDeps,
  spaceId: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<T> {
  const shopify = shopifyOf(deps);
  const cfg = deps.config.shop;
  if (!shopify || !cfg) throw new ShopAdminError('not_configured', 'The embedded app is not configured');
  const shop = await repo.findShopBySpace(deps.db, spaceId);
  if (!shop) throw new ShopAdminError('not_a_shop', 'This Teamspace is not a shop');
  // Uninstalled, unless a staff user opened the app since (a session token exists only for an installed app).
  if (!shop.installed && !recentSessionToken(deps.db, shop.domain)) throw new ShopAdminError('uninstalled', 'The app is not installed on this shop');
  const call = async (accessToken: string) => {
    const session = new Session({ id: shopify.session.getOfflineId(shop.domain), shop: shop.domain, state: '', isOnline: false, accessToken });
    const client = new shopify.clients.Graphql({ session });
    const r = await shopCall(deps, () => client.request<T>(query, variables ? { variables } : undefined));
    return r.data as T;
  };
  const token = await tokenOf(deps, shop, cfg.tokenKey);
  try {
    return await call(token);
  } catch (e) {
    if (!(e instanceof HttpResponseError) || e.response.code !== 401) throw e;
  }
  // 401: this token is no longer good.
  await repo.clearToken(deps.db, shop.domain, shop.token_box ?? undefined);
  tokenGone(deps.db, shop.domain);
  const st = recentSessionToken(deps.db, shop.domain);
  if (!st) throw new ShopAdminError('reconnect', 'The shop must open the app again to renew its access');
  return call(await exchangeToken(deps, shop.domain, st));
}
