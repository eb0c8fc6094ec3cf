// Every environment variable, validated with valibot at start-up.
import * as v from 'valibot';
import { hkdfSync, randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { parseOriginPattern, splitOriginList } from '../contract/origins';
import { SUPPORT_EMAIL } from '../contract/constants';
import { EngineConfigError, loadEngineConfig } from './engines/config';

/** The Stripe price variables of the plans: STRIPE_PRICE_<TIER>_<MONTH|YEAR>. */
export const STRIPE_PLAN_PRICE_VARS = [
  'STRIPE_PRICE_STARTER_MONTH', 'STRIPE_PRICE_STARTER_YEAR', 'STRIPE_PRICE_CREATOR_MONTH', 'STRIPE_PRICE_CREATOR_YEAR',
  'STRIPE_PRICE_CREATOR_PRO_MONTH', 'STRIPE_PRICE_CREATOR_PRO_YEAR', 'STRIPE_PRICE_BUSINESS_MONTH', 'STRIPE_PRICE_BUSINESS_YEAR',
] as const;
type StripePlanPriceVar = (typeof STRIPE_PLAN_PRICE_VARS)[number];
/** 'starter_month' ... 'business_year'. */
export type StripePlanKey = 'starter_month' | 'starter_year' | 'creator_month' | 'creator_year' | 'creator_pro_month'
  | 'creator_pro_year' | 'business_month' | 'business_year';

const Bool = v.pipe(v.optional(v.string(), ''), v.transform((s) => /^(1|true|yes|on)$/i.test(s)));
const Int = (def: number) => v.pipe(v.optional(v.string(), String(def)), v.transform(Number), v.integer(), v.minValue(0));
const Opt = v.pipe(v.optional(v.string(), ''), v.transform((s) => (s.trim() === '' ? null : s.trim())));

/** Where the embedded app may send the admin window by default: Stripe's hosted Checkout and Billing Portal. */
export const DEFAULT_EMBED_REDIRECT_ORIGINS = ['https://checkout.stripe.com', 'https://billing.stripe.com'];

const EnvSchema = v.object({
  NODE_ENV: v.optional(v.string(), 'development'),
  PORT: Int(8080),
  HOST: v.optional(v.string(), '0.0.0.0'),
  DATA_DIR: v.optional(v.string(), './data'),
  /** Readiness fails when the data folder has less free space than this (MB; 0 = not checked). */
  MIN_FREE_DISK_MB: Int(512),
  DATABASE_URL: Opt,
  REDIS_URL: Opt,
  PUBLIC_URL: Opt,
  JWT_SECRET: Opt,
  ACCESS_TOKEN_TTL: Int(900),
  REFRESH_TOKEN_TTL: Int(30 * 24 * 3600),
  EMBED_APP_KEY: Opt,
  EMBED_APP_SECRET: Opt,
  EMBED_ADMIN_ORIGINS: Opt,
  /** The shop's Admin API (issue 32): scopes asked, API version, token key, and a local stand-in for tests. */
  SHOP_API_SCOPES: v.optional(v.string(), 'read_products,write_products,write_files'),
  SHOP_API_VERSION: v.optional(v.pipe(v.string(), v.regex(/^\d{4}-\d{2}$/, 'YYYY-MM')), '2025-10'),
  SHOP_TOKEN_KEY: Opt,
  SHOP_ADMIN_URL: Opt,
  /** Billing through the platform (issue 32 part 5): plan prices per 30 days, currency, extra-minute price, cap, test charges. */
  SHOP_BILLING_PRICES: v.optional(v.string(), 'starter:19,creator:49,creator_pro:99,business:299'),
  SHOP_BILLING_CURRENCY: v.optional(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'ISO currency code')), 'USD'),
  SHOP_BILLING_MINUTE_PRICE: v.optional(v.string(), '1.5'),
  SHOP_BILLING_CAP: v.optional(v.string(), '150'),
  SHOP_BILLING_TEST: Opt,
  /** Hosts product videos are downloaded from (the platform's CDN), comma-separated. */
  SHOP_CDN_HOSTS: v.optional(v.string(), 'cdn.shopify.com'),
  EMBED_REDIRECT_ORIGINS: v.optional(v.string(), DEFAULT_EMBED_REDIRECT_ORIGINS.join(' ')),
  OIDC_ISSUER: Opt,
  OIDC_CLIENT_ID: Opt,
  OIDC_CLIENT_SECRET: Opt,
  OIDC_NAME: v.optional(v.string(), 'Google'),
  SMTP_URL: Opt,
  SMTP_FROM: v.optional(v.string(), 'Dubbing Studio <no-reply@localhost>'),
  WHITE_LABEL: Bool,
  MAINTENANCE: Bool,
  SUPPORT_EMAIL: Opt,
  HELP_CENTER_URL: Opt,
  DEMO_FOR_NEW_USERS: v.pipe(v.optional(v.string(), '1'), v.transform((s) => !/^(0|false|no|off)$/i.test(s))),
  SISTER_APP_URL: Opt,
  SISTER_APP_PUBLIC_KEY: Opt,
  MAX_VIDEO_SIZE: Int(2 * 1024 * 1024 * 1024),
  MAX_VIDEO_DURATION: Int(3 * 3600),
  MAX_VIDEO_DOWNLOAD_DURATION: Int(2 * 3600),
  WORKER_CONCURRENCY: Int(1),
  JOB_STALE_SECONDS: Int(30),
  LOG_LEVEL: v.optional(v.picklist(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
  LOG_PRETTY: v.optional(v.string()),
  METRICS_TOKEN: Opt,
  QUEUE_PREFIX: v.optional(v.pipe(v.string(), v.regex(/^[\w.-]{1,40}$/, 'letters, digits, _ . - (at most 40)')), 'ds'),
  SHUTDOWN_GRACE_SECONDS: Int(20),
  /** CPU-heavy tasks at once in this process, all jobs together (0: one per CPU). */
  PIPELINE_CPU_SLOTS: Int(0),
  /** Scheduling niceness of the pipeline's tools, engine threads and worker processes (0-19; 0: same as the API). */
  PIPELINE_NICE: Int(10),
  /** Start the pipeline's tools from a small helper process instead of forking this one (0: directly). */
  TOOL_SPAWNER: v.pipe(v.optional(v.string(), '1'), v.transform((s) => s !== '0' && s.toLowerCase() !== 'false')),
  /** Requests per minute of one API key (429 with Retry-After beyond). */
  API_KEY_RATE_PER_MINUTE: Int(60),
  /** Jobs running at once for API callers, per plan: "business=4,enterprise=0" (0: unlimited). */
  API_CONCURRENT_JOBS: v.optional(v.pipe(v.string(), v.regex(/^\s*([a-z_]+=\d+\s*(,\s*|$))*$/, 'plan=number pairs separated by commas')), ''),
  /** Webhook URLs may reach private and loopback addresses (tests, trusted networks only). */
  WEBHOOK_ALLOW_PRIVATE: Bool,
  WEBHOOK_TIMEOUT_MS: Int(10_000),
  WEBHOOK_MAX_ATTEMPTS: Int(8),
  /** First retry delay; each further retry doubles it (capped at one hour). */
  WEBHOOK_BACKOFF_MS: Int(30_000),
  /** An endpoint whose deliveries failed this many times in a row is disabled until its owner enables it. */
  WEBHOOK_DISABLE_AFTER: Int(20),
  /** How often the webhook dispatcher looks for due deliveries. */
  WEBHOOK_POLL_MS: Int(1000),
  EMBEDDED_WORKER: v.pipe(v.optional(v.string(), '1'), v.transform((s) => s !== '0' && s.toLowerCase() !== 'false')),
  LOGIN_MAX_FAILURES_IP: Int(20),
  /** Failures of one account from one address (the owner elsewhere is not locked out by them). */
  LOGIN_MAX_FAILURES_ACCOUNT: Int(5),
  /** Failures of one account from all addresses together (a slower limit against distributed guessing). */
  LOGIN_MAX_FAILURES_ACCOUNT_GLOBAL: Int(50),
  LOGIN_WINDOW_SECONDS: Int(900),
  TRUST_PROXY: Bool,
  S3_ENDPOINT: Opt,
  S3_BUCKET: Opt,
  S3_ACCESS_KEY_ID: Opt,
  S3_SECRET_ACCESS_KEY: Opt,
  S3_REGION: v.optional(v.string(), 'us-east-1'),
  PAYMENTS_PROVIDER: Opt,
  STRIPE_SECRET_KEY: Opt,
  STRIPE_WEBHOOK_SECRET: Opt,
  STRIPE_API_URL: Opt,
  STRIPE_PRICE_MINUTES: Opt,
  STRIPE_ENTERPRISE_PRODUCTS: Opt,
  ...Object.fromEntries(STRIPE_PLAN_PRICE_VARS.map((k) => [k, Opt])) as Record<StripePlanPriceVar, typeof Opt>,
});

export type Config = ReturnType<typeof loadConfig>;

/** The payments provider: 'local' (plans and minutes granted by a superuser) or 'stripe'. */
export interface PaymentsConfig {
  provider: 'local' | 'stripe';
  stripe: StripeConfig | null;
}
export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** Where the SDK sends requests (stripe-mock or a test stand-in); null = api.stripe.com. */
  api: { host: string; port: number; protocol: 'http' | 'https' } | null;
  /** Price ids of the plans by `<tier>_<interval>` (starter_month ... business_year); only those configured. */
  planPrices: Partial<Record<StripePlanKey, string>>;
  /** The one-time price of one extra minute (the credit pack; quantity = minutes). */
  minutesPrice: string | null;
  /** Product ids of enterprise plans (their subscriptions are enterprise when exactly one matches). */
  enterpriseProducts: string[];
}

export class ConfigError extends Error {}

/**
 * The shop's Admin API settings (only with the embedded app). The offline tokens are sealed with SHOP_TOKEN_KEY
 * (32 bytes, base64 or hex); without it a key is derived from the app secret. SHOP_ADMIN_URL sends every shop's
 * Admin API calls to one base URL (a local stand-in): refused in production.
 */
function shopConfig(e: { SHOP_API_SCOPES: string; SHOP_API_VERSION: string; SHOP_TOKEN_KEY: string | null; SHOP_ADMIN_URL: string | null; SHOP_CDN_HOSTS: string; EMBED_APP_SECRET: string | null }, production: boolean) {
  if (!e.EMBED_APP_SECRET) return null;
  let tokenKey: Buffer;
  if (e.SHOP_TOKEN_KEY) {
    tokenKey = /^[0-9a-f]{64}$/i.test(e.SHOP_TOKEN_KEY) ? Buffer.from(e.SHOP_TOKEN_KEY, 'hex') : Buffer.from(e.SHOP_TOKEN_KEY, 'base64');
    if (tokenKey.length !== 32) throw new ConfigError('SHOP_TOKEN_KEY must be 32 bytes (64 hex digits or base64)');
  } else {
    tokenKey = Buffer.from(hkdfSync('sha256', e.EMBED_APP_SECRET, 'dubbing-studio', 'shop-token-key', 32));
  }
  let adminUrl: string | null = null;
  if (e.SHOP_ADMIN_URL) {
    if (production) throw new ConfigError('SHOP_ADMIN_URL (a local stand-in of the Admin API) is not allowed in production');
    let u: URL;
    try {
      u = new URL(e.SHOP_ADMIN_URL);
    } catch {
      throw new ConfigError('SHOP_ADMIN_URL must be a URL');
    }
    adminUrl = u.origin;
  }
  const scopes = e.SHOP_API_SCOPES.split(',').map((s) => s.trim()).filter(Boolean);
  const cdnHosts = e.SHOP_CDN_HOSTS.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  return { scopes, apiVersion: e.SHOP_API_VERSION, tokenKey, adminUrl, cdnHosts };
}

/**
 * Billing through the platform: SHOP_BILLING_PRICES "tier:amount,..." (per 30 days), SHOP_BILLING_CURRENCY,
 * SHOP_BILLING_MINUTE_PRICE (one extra minute), SHOP_BILLING_CAP (the usage line's capped amount per 30 days),
 * SHOP_BILLING_TEST (test charges; default on outside production).
 */
function shopBillingConfig(
  e: { SHOP_BILLING_PRICES: string; SHOP_BILLING_CURRENCY: string; SHOP_BILLING_MINUTE_PRICE: string; SHOP_BILLING_CAP: string; SHOP_BILLING_TEST: string | null },
  production: boolean,
) {
  const money = (name: string, s: string) => {
    const n = Number(s);
    if (!Number.isFinite(n) || n <= 0) throw new ConfigError(`${name} must be a positive amount`);
    return Math.round(n * 100) / 100;
  };
  const prices: Record<string, number> = {};
  for (const part of e.SHOP_BILLING_PRICES.split(',').map((x) => x.trim()).filter(Boolean)) {
    const [tier, amount] = part.split(':');
    if (!tier || amount === undefined) throw new ConfigError('SHOP_BILLING_PRICES must be tier:amount pairs separated by commas');
    prices[tier.trim()] = money('SHOP_BILLING_PRICES', amount.trim());
  }
  return {
    prices,
    currency: e.SHOP_BILLING_CURRENCY,
    minutePrice: money('SHOP_BILLING_MINUTE_PRICE', e.SHOP_BILLING_MINUTE_PRICE),
    cappedAmount: money('SHOP_BILLING_CAP', e.SHOP_BILLING_CAP),
    test: e.SHOP_BILLING_TEST === null ? !production : /^(1|true|yes|on)$/i.test(e.SHOP_BILLING_TEST),
  };
}

function sisterAppConfig(url: string | null, key: string | null): { url: string; publicKey: string } | null {
  if (!url || !key) return null;
  if (!/^https?:\/\//.test(url)) throw new ConfigError('SISTER_APP_URL must be an http(s) URL');
  if (Buffer.from(key, 'base64').length !== 32) throw new ConfigError('SISTER_APP_PUBLIC_KEY must be a base64 X25519 public key (32 bytes)');
  return { url, publicKey: key };
}

function paymentsConfig(e: Record<string, string | null | boolean | number>): PaymentsConfig {
  const str = (k: string) => (typeof e[k] === 'string' ? (e[k] as string) : null);
  const wanted = str('PAYMENTS_PROVIDER') ?? (str('STRIPE_SECRET_KEY') ? 'stripe' : 'local');
  if (wanted !== 'local' && wanted !== 'stripe') throw new ConfigError('PAYMENTS_PROVIDER must be local or stripe');
  if (wanted === 'local') return { provider: 'local', stripe: null };
  const secretKey = str('STRIPE_SECRET_KEY');
  const webhookSecret = str('STRIPE_WEBHOOK_SECRET');
  if (!secretKey) throw new ConfigError('STRIPE_SECRET_KEY is required with PAYMENTS_PROVIDER=stripe');
  if (!/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/.test(secretKey)) {
    throw new ConfigError('STRIPE_SECRET_KEY must be a Stripe secret or restricted key (sk_test_..., sk_live_..., rk_...)');
  }
  if (!webhookSecret) throw new ConfigError('STRIPE_WEBHOOK_SECRET is required with STRIPE_SECRET_KEY');
  if (!/^whsec_[A-Za-z0-9+/=_]+$/.test(webhookSecret)) throw new ConfigError('STRIPE_WEBHOOK_SECRET must start with whsec_');
  const priceId = (k: string): string | null => {
    const id = str(k);
    if (id !== null && !/^price_[A-Za-z0-9_]+$/.test(id)) throw new ConfigError(`${k} must be a Stripe price id (price_...)`);
    return id;
  };
  const planPrices: Partial<Record<StripePlanKey, string>> = {};
  for (const k of STRIPE_PLAN_PRICE_VARS) {
    const id = priceId(k);
    if (id) planPrices[k.slice('STRIPE_PRICE_'.length).toLowerCase() as StripePlanKey] = id;
  }
  if (Object.keys(planPrices).length === 0) {
    throw new ConfigError(`Stripe needs at least one plan price: ${STRIPE_PLAN_PRICE_VARS.join(', ')}`);
  }
  const ids = Object.values(planPrices);
  if (new Set(ids).size !== ids.length) throw new ConfigError('Each STRIPE_PRICE_* variable needs its own price id');
  const minutesPrice = priceId('STRIPE_PRICE_MINUTES');
  if (minutesPrice && ids.includes(minutesPrice)) throw new ConfigError('STRIPE_PRICE_MINUTES must differ from the plan prices');
  const enterpriseProducts = (str('STRIPE_ENTERPRISE_PRODUCTS') ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  for (const p of enterpriseProducts) {
    if (!/^prod_[A-Za-z0-9_]+$/.test(p)) throw new ConfigError('STRIPE_ENTERPRISE_PRODUCTS must list Stripe product ids (prod_...)');
  }
  let api: StripeConfig['api'] = null;
  const apiUrl = str('STRIPE_API_URL');
  if (apiUrl) {
    let u: URL;
    try {
      u = new URL(apiUrl);
    } catch {
      throw new ConfigError('STRIPE_API_URL must be a URL (http://127.0.0.1:12111)');
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError('STRIPE_API_URL must be http(s)');
    const protocol = u.protocol === 'http:' ? 'http' : 'https';
    api = { host: u.hostname, port: Number(u.port || (protocol === 'http' ? 80 : 443)), protocol };
  }
  return { provider: 'stripe', stripe: { secretKey, webhookSecret, api, planPrices, minutesPrice, enterpriseProducts } };
}

/** Parses an origin-pattern list variable; a bad entry stops start-up with a message naming it. */
function originList(name: string, raw: string | null, schemes: readonly ('https' | 'http')[]): string[] {
  const out: string[] = [];
  for (const entry of splitOriginList(raw ?? '')) {
    const parsed = parseOriginPattern(entry, schemes);
    if (!parsed) {
      const want = schemes.length === 1 ? `${schemes[0]}://` : 'http(s)://';
      throw new ConfigError(
        `${name}: "${entry}" is not an origin (expected ${want}host[:port] or ${want}*.domain, no path)`,
      );
    }
    if (!out.includes(parsed.source)) out.push(parsed.source);
  }
  return out;
}

/** "business=4,enterprise=0" -> {business: 4, enterprise: null} (0: unlimited). */
function parsePlanNumbers(raw: string): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const part of raw.split(',')) {
    const m = /^\s*([a-z_]+)=(\d+)\s*$/.exec(part);
    if (m) out[m[1]] = Number(m[2]) === 0 ? null : Number(m[2]);
  }
  return out;
}

export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const parsed = v.safeParse(EnvSchema, env);
  if (!parsed.success) {
    const msg = parsed.issues.map((i) => `${i.path?.map((p) => p.key).join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`Invalid configuration: ${msg}`);
  }
  const e = parsed.output;
  const production = e.NODE_ENV === 'production';
  if (production && !e.JWT_SECRET) {
    throw new ConfigError('JWT_SECRET must be set in production (at least 32 characters)');
  }
  if (e.JWT_SECRET && e.JWT_SECRET.length < 32) {
    throw new ConfigError('JWT_SECRET must be at least 32 characters');
  }
  if ((e.EMBED_APP_KEY && !e.EMBED_APP_SECRET) || (!e.EMBED_APP_KEY && e.EMBED_APP_SECRET)) {
    throw new ConfigError('EMBED_APP_KEY and EMBED_APP_SECRET must be set together');
  }
  // The platform's admin pages that may frame /embed/ (CSP frame-ancestors). App Bridge only talks to https
  // parents, so only https origins are accepted; without them the embedded build could not be framed at all.
  const embedAdminOrigins = originList('EMBED_ADMIN_ORIGINS', e.EMBED_ADMIN_ORIGINS, ['https']);
  const embedRedirectOrigins = originList('EMBED_REDIRECT_ORIGINS', e.EMBED_REDIRECT_ORIGINS, ['https', 'http']);
  if (e.EMBED_APP_KEY && embedAdminOrigins.length === 0) {
    throw new ConfigError('EMBED_ADMIN_ORIGINS is required with EMBED_APP_KEY (the admin origins that frame /embed/)');
  }
  if (e.OIDC_ISSUER && !e.OIDC_CLIENT_ID) throw new ConfigError('OIDC_CLIENT_ID is required with OIDC_ISSUER');
  // Model engines (ASR_ENGINE, MT_ENGINE, TTS_ENGINE, LLM_ENGINE and their keys/URLs: server/engines/config.ts).
  // The built-in defaults need no variable; a bad setting stops start-up. Messages never contain a key.
  let engines: ReturnType<typeof loadEngineConfig>;
  try {
    engines = loadEngineConfig(env);
  } catch (err) {
    if (err instanceof EngineConfigError) throw new ConfigError(err.message);
    throw err;
  }
  return {
    env: e.NODE_ENV,
    production,
    port: e.PORT,
    host: e.HOST,
    dataDir: resolve(e.DATA_DIR),
    minFreeDiskMb: e.MIN_FREE_DISK_MB,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    logLevel: e.LOG_LEVEL,
    /** Readable (pino-pretty) logs: on in development unless LOG_PRETTY=0; JSON lines in production. */
    logPretty: e.LOG_PRETTY === undefined ? !production : /^(1|true|yes|on)$/i.test(e.LOG_PRETTY),
    /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>`. */
    metricsToken: e.METRICS_TOKEN,
    /** Key prefix of the BullMQ queues in Redis (several installs can share one Redis). */
    queuePrefix: e.QUEUE_PREFIX,
    publicUrl: e.PUBLIC_URL,
    // Without JWT_SECRET (not allowed in production): a random one here, replaced at start-up by the secret
    // generated once and kept in DATA_DIR (server/jwt-secret.ts), so sessions survive restarts.
    jwtSecret: e.JWT_SECRET ?? randomBytes(32).toString('hex'),
    jwtSecretFromEnv: e.JWT_SECRET !== null,
    accessTokenTtl: e.ACCESS_TOKEN_TTL,
    refreshTokenTtl: e.REFRESH_TOKEN_TTL,
    embed:
      e.EMBED_APP_KEY && e.EMBED_APP_SECRET
        ? {
            key: e.EMBED_APP_KEY,
            secret: e.EMBED_APP_SECRET,
            /** Patterns allowed to frame /embed/ (normalised CSP sources). */
            adminOrigins: embedAdminOrigins,
            /** Further origins the embedded app may send the admin window to (checkout, billing portal...). */
            redirectOrigins: embedRedirectOrigins,
          }
        : null,
    oidc: e.OIDC_ISSUER && e.OIDC_CLIENT_ID
      ? { issuer: e.OIDC_ISSUER, clientId: e.OIDC_CLIENT_ID, clientSecret: e.OIDC_CLIENT_SECRET, name: e.OIDC_NAME }
      : null,
    smtp: e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM } : null,
    whiteLabel: e.WHITE_LABEL,
    maintenance: e.MAINTENANCE,
    /** Where Get help and Help Center go (the support chat works without them). */
    support: {
      email: e.SUPPORT_EMAIL ?? SUPPORT_EMAIL,
      /** The address customers see: only one the operator set (unset: no mail link is shown). */
      publicEmail: e.SUPPORT_EMAIL || null,
      helpCenterUrl: e.HELP_CENTER_URL || null,
    },
    /** New trial accounts start in the demo_project group (their first screen offers the demo project). */
    demoForNewUsers: e.DEMO_FOR_NEW_USERS,
    /** Single sign-on to the sister video-ad product: its URL and its X25519 public key (base64). */
    sisterApp: sisterAppConfig(e.SISTER_APP_URL, e.SISTER_APP_PUBLIC_KEY),
    /** The shop's Admin API (with the embedded app only): scopes, version, token key, local stand-in. */
    shop: shopConfig(e, production),
    /** The platform's billing of a shop Teamspace (with the embedded app only). */
    shopBilling: shopBillingConfig(e, production),
    limits: {
      maxVideoSize: e.MAX_VIDEO_SIZE,
      maxVideoDuration: e.MAX_VIDEO_DURATION,
      maxVideoDownloadDuration: e.MAX_VIDEO_DOWNLOAD_DURATION,
    },
    worker: {
      embedded: e.EMBEDDED_WORKER,
      concurrency: Math.max(1, e.WORKER_CONCURRENCY),
      /** A stage whose worker stopped heart-beating this long is taken over by another worker. */
      staleSec: Math.max(2, e.JOB_STALE_SECONDS),
      /** SIGTERM: running stages get this long to finish, then they are handed back. */
      shutdownGraceSec: e.SHUTDOWN_GRACE_SECONDS,
      cpuSlots: e.PIPELINE_CPU_SLOTS > 0 ? e.PIPELINE_CPU_SLOTS : availableParallelism(),
      /** Batch work yields the CPU to the API's requests: the niceness of the pipeline's tools and threads. */
      nice: Math.min(19, Math.max(0, e.PIPELINE_NICE)),
      /** Tools start from the tool spawner (server/media/spawner.ts): no fork of the large server process. */
      toolSpawner: e.TOOL_SPAWNER,
    },
    loginLimits: {
      ip: e.LOGIN_MAX_FAILURES_IP,
      account: e.LOGIN_MAX_FAILURES_ACCOUNT,
      accountGlobal: e.LOGIN_MAX_FAILURES_ACCOUNT_GLOBAL,
      windowSeconds: e.LOGIN_WINDOW_SECONDS,
    },
    trustProxy: e.TRUST_PROXY,
    s3: e.S3_BUCKET
      ? {
          endpoint: e.S3_ENDPOINT,
          bucket: e.S3_BUCKET,
          accessKeyId: e.S3_ACCESS_KEY_ID,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY,
          region: e.S3_REGION,
        }
      : null,
    engines,
    api: {
      ratePerMinute: Math.max(1, e.API_KEY_RATE_PER_MINUTE),
      concurrentJobs: parsePlanNumbers(e.API_CONCURRENT_JOBS),
    },
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      timeoutMs: Math.max(100, e.WEBHOOK_TIMEOUT_MS),
      maxAttempts: Math.max(1, e.WEBHOOK_MAX_ATTEMPTS),
      backoffMs: e.WEBHOOK_BACKOFF_MS,
      disableAfter: Math.max(1, e.WEBHOOK_DISABLE_AFTER),
      pollMs: Math.max(50, e.WEBHOOK_POLL_MS),
    },
    payments: paymentsConfig(e as unknown as Record<string, string | null | boolean | number>),
  };
}
