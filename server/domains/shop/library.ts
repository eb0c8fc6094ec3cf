// The platform's official library (@shopify/shopify-api), one instance per app (its state, Db.state). Its HTTP goes
// through the node adapter's fetch (one for the process), replaced here by one with a time limit that, when the
// app's SHOP_ADMIN_URL is set (tests, development), sends the shop calls it makes (`shopCall`) to that base URL (a
// local stand-in) instead of https://<shop>.
import { AsyncLocalStorage } from 'node:async_hooks';
import '@shopify/shopify-api/adapters/node';
import { LogSeverity, shopifyApi, type ApiVersion, type Shopify } from '@shopify/shopify-api';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import { namespace } from '../../cache/index';
import type { AppDeps } from '../../deps';

const ADMIN_CALL_TIMEOUT_MS = 15_000;

/** The Admin API base URL of the app whose shop call this is (its SHOP_ADMIN_URL; null: https://<shop>). */
const adminBase = new AsyncLocalStorage<string | null>();

type FetchArgs = Parameters<typeof fetch>;
async function adminFetch(input: FetchArgs[0], init?: FetchArgs[1]): Promise<Response> {
  const signal = init?.signal ?? AbortSignal.timeout(ADMIN_CALL_TIMEOUT_MS);
  const base = adminBase.getStore() ?? null;
  if (!base) return fetch(input, { ...init, signal });
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  return fetch(new URL(url.pathname + url.search, base), { ...init, signal });
}
setAbstractFetchFunc(adminFetch as typeof fetch);

/** Runs `call` (the library's requests to a shop: Admin API, token exchange) as this app's: to its SHOP_ADMIN_URL when set. */
export function shopCall<T>(deps: Pick<AppDeps, 'config'>, call: () => Promise<T>): Promise<T> {
  return adminBase.run(deps.config.shop?.adminUrl ?? null, call);
}

/** The app's library instances, per configuration (one in practice). */
const INSTANCES = namespace('shop.library', () => new Map<string, Shopify>());

/** The library configured for this app (null without the embedded app). Its calls to a shop go through shopCall. */
export function shopifyOf(deps: Pick<AppDeps, 'config' | 'logger' | 'db'>): Shopify | null {
  const embed = deps.config.embed;
  const shop = deps.config.shop;
  if (!embed || !shop) return null;
  const instances = deps.db.state.of(INSTANCES);
  const key = [embed.key, embed.secret, shop.apiVersion, shop.scopes.join(','), deps.config.publicUrl ?? ''].join('\n');
  let s = instances.get(key);
  if (!s) {
    const host = deps.config.publicUrl ? new URL(deps.config.publicUrl).host : 'localhost';
    s = shopifyApi({
      apiKey: embed.key,
      apiSecretKey: embed.secret,
      scopes: shop.scopes,
      hostName: host,
      apiVersion: shop.apiVersion as ApiVersion,
      isEmbeddedApp: true,
      logger: {
        level: LogSeverity.Warning,
        log: async (severity, msg) => {
          if (severity <= LogSeverity.Warning) deps.logger.warn({ lib: 'shopify-api' }, msg);
        },
      },
    });
    instances.set(key, s);
  }
  return s;
}
