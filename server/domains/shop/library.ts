// The platform's official library (@shopify/shopify-api), one instance per app configuration. Its HTTP goes through
// the node adapter's fetch, replaced here by one with a time limit that, when SHOP_ADMIN_URL is set (tests,
// development), sends every shop's Admin API calls to that base URL (a local stand-in) instead of https://<shop>.
import '@shopify/shopify-api/adapters/node';
import { LogSeverity, shopifyApi, type ApiVersion, type Shopify } from '@shopify/shopify-api';
import { setAbstractFetchFunc } from '@shopify/shopify-api/runtime';
import type { AppDeps } from '../../deps';

const ADMIN_CALL_TIMEOUT_MS = 15_000;

let adminUrlOverride: string | null = null;

type FetchArgs = Parameters<typeof fetch>;
async function adminFetch(input: FetchArgs[0], init?: FetchArgs[1]): Promise<Response> {
  const signal = init?.signal ?? AbortSignal.timeout(ADMIN_CALL_TIMEOUT_MS);
  const base = adminUrlOverride;
  if (!base) return fetch(input, { ...init, signal });
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  return fetch(new URL(url.pathname + url.search, base), { ...init, signal });
}
setAbstractFetchFunc(adminFetch as typeof fetch);

const instances = new Map<string, Shopify>();

/** The library configured for this app (null without the embedded app). */
export function shopifyOf(deps: Pick<AppDeps, 'config' | 'logger'>): Shopify | null {
  const embed = deps.config.embed;
  const shop = deps.config.shop;
  if (!embed || !shop) return null;
  adminUrlOverride = shop.adminUrl;
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
