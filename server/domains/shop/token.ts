// The shop's offline token: token exchange through the library, sealed at rest; the latest session token of each
// shop (memory only) to exchange again after a 401.
import { RequestedTokenType } from '@shopify/shopify-api';
import { namespace } from '../../cache/index';
import type { Db } from '../../db/index';
import type { AppDeps } from '../../deps';
import { sealToken } from './crypto';
import { shopCall, shopifyOf } from './library';
import * as repo from './repository';

/** This app's memory of its shops' tokens (its state, server/cache: another app in the process has its own). */
class ShopTokens {
  /** The latest session token seen per shop (memory only, never stored): a token answered 401 is exchanged again with it while it lives. */
  readonly recent = new Map<string, { token: string; expMs: number }>();
  /**
   * Shops whose offline token this app saw stored, and when (cleared on a 401, an uninstall, a redaction). A memo
   * of a few minutes: another process may have received the uninstall.
   */
  readonly withToken = new Map<string, number>();
  /** Token exchanges running, one per shop at once. */
  readonly inFlight = new Map<string, Promise<string>>();
}
const SHOP_TOKENS = namespace('shop.tokens', () => new ShopTokens());
const tokensOf = (db: Db): ShopTokens => db.state.of(SHOP_TOKENS);

export function rememberSessionToken(db: Db, domain: string, token: string, expMs: number): void {
  const recent = tokensOf(db).recent;
  const cur = recent.get(domain);
  if (!cur || cur.expMs <= expMs) recent.set(domain, { token, expMs });
}
export function recentSessionToken(db: Db, domain: string): string | null {
  const recent = tokensOf(db).recent;
  const cur = recent.get(domain);
  if (!cur) return null;
  if (cur.expMs <= Date.now()) {
    recent.delete(domain);
    return null;
  }
  return cur.token;
}
export function forgetSessionTokens(db: Db, domain: string): void {
  tokensOf(db).recent.delete(domain);
}

export const TOKEN_MEMO_MS = 5 * 60_000;
export function tokenKnown(db: Db, domain: string): boolean {
  const at = tokensOf(db).withToken.get(domain);
  return at !== undefined && Date.now() - at < TOKEN_MEMO_MS;
}
export function tokenSeen(db: Db, domain: string): void {
  const withToken = tokensOf(db).withToken;
  if (withToken.size >= 10_000) withToken.clear();
  withToken.set(domain, Date.now());
}
export function tokenGone(db: Db, domain: string): void {
  tokensOf(db).withToken.delete(domain);
}

/** Exchanges a session token for the shop's offline token and stores it sealed; one exchange per shop at once. */
export function exchangeToken(deps: AppDeps, domain: string, sessionToken: string): Promise<string> {
  const inFlight = tokensOf(deps.db).inFlight;
  const running = inFlight.get(domain);
  if (running) return running;
  const p = (async () => {
    const shopify = shopifyOf(deps);
    const cfg = deps.config.shop;
    if (!shopify || !cfg) throw new Error('The embedded app is not configured');
    const { session } = await shopCall(deps, () => shopify.auth.tokenExchange({ shop: domain, sessionToken, requestedTokenType: RequestedTokenType.OfflineAccessToken }));
    if (!session.accessToken) throw new Error('Token exchange answered without an access token');
    await repo.storeToken(deps.db, domain, await sealToken(cfg.tokenKey, session.accessToken), session.scope ?? null);
    tokenSeen(deps.db, domain);
    return session.accessToken;
  })().finally(() => inFlight.delete(domain));
  inFlight.set(domain, p);
  return p;
}

