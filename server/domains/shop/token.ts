// The shop's offline token: token exchange through the library, sealed at rest; the latest session token of each
// shop (memory only) to exchange again after a 401.
import { RequestedTokenType } from '@shopify/shopify-api';
import type { AppDeps } from '../../deps';
import { sealToken } from './crypto';
import { shopifyOf } from './library';
import * as repo from './repository';

// The latest session token seen per shop (memory only, never stored): a token answered 401 is exchanged again
// with it while it lives.
const recentTokens = new Map<string, { token: string; expMs: number }>();
export function rememberSessionToken(domain: string, token: string, expMs: number): void {
  const cur = recentTokens.get(domain);
  if (!cur || cur.expMs <= expMs) recentTokens.set(domain, { token, expMs });
}
export function recentSessionToken(domain: string): string | null {
  const cur = recentTokens.get(domain);
  if (!cur) return null;
  if (cur.expMs <= Date.now()) {
    recentTokens.delete(domain);
    return null;
  }
  return cur.token;
}
export function forgetSessionTokens(domain: string): void {
  recentTokens.delete(domain);
}

/**
 * Shops whose offline token this process saw stored, and when (cleared on a 401, an uninstall, a redaction). A
 * memo of a few minutes: another process may have received the uninstall.
 */
const withToken = new Map<string, number>();
export const TOKEN_MEMO_MS = 5 * 60_000;
export function tokenKnown(domain: string): boolean {
  const at = withToken.get(domain);
  return at !== undefined && Date.now() - at < TOKEN_MEMO_MS;
}
export function tokenSeen(domain: string): void {
  if (withToken.size >= 10_000) withToken.clear();
  withToken.set(domain, Date.now());
}
export function tokenGone(domain: string): void {
  withToken.delete(domain);
}

const inFlight = new Map<string, Promise<string>>();

/** Exchanges a session token for the shop's offline token and stores it sealed; one exchange per shop at once. */
export function exchangeToken(deps: AppDeps, domain: string, sessionToken: string): Promise<string> {
  const running = inFlight.get(domain);
  if (running) return running;
  const p = (async () => {
    const shopify = shopifyOf(deps);
    const cfg = deps.config.shop;
    if (!shopify || !cfg) throw new Error('The embedded app is not configured');
    const { session } = await shopify.auth.tokenExchange({ shop: domain, sessionToken, requestedTokenType: RequestedTokenType.OfflineAccessToken });
    if (!session.accessToken) throw new Error('Token exchange answered without an access token');
    await repo.storeToken(deps.db, domain, await sealToken(cfg.tokenKey, session.accessToken), session.scope ?? null);
    tokenSeen(domain);
    return session.accessToken;
  })().finally(() => inFlight.delete(domain));
  inFlight.set(domain, p);
  return p;
}

