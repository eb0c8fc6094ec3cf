// OpenID Connect social sign-in (authorization code flow + PKCE + state + nonce) against config.oidc.
// The flow's secrets ride in a sealed (encrypted) short-lived cookie bound to the browser that started it.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { EncryptJWT, createRemoteJWKSet, jwtDecrypt, jwtVerify } from 'jose';
import * as v from 'valibot';
import { Email } from '../../../contract/schemas/common';
import type { Config } from '../../config';
import type { AppDeps } from '../../deps';
import { ApiError } from '../../http/errors';
import { upsertIdentity } from './repository';
import { issueTokens } from './service';

export const OIDC_COOKIE = 'ds_oidc';
export const OIDC_COOKIE_PATH = '/api/auth/oidc';
export const OIDC_FLOW_TTL_SEC = 600;
const DISCOVERY_TTL_MS = 60 * 60 * 1000;
const FETCH_TIMEOUT_MS = 10_000;

export const TEXTS = {
  notConfigured: 'Social sign-in is not configured',
  invalidOrigin: 'Invalid origin',
  providerUnavailable: 'Sign-in provider unavailable',
  flowExpired: 'Sign-in session expired. Please try again',
  stateMismatch: 'Sign-in state mismatch. Please try again',
  denied: 'Sign-in was cancelled or denied',
  exchangeFailed: 'Sign-in failed at the provider',
  badIdToken: 'Sign-in failed: invalid identity token',
  noEmail: 'Sign-in failed: the provider did not share a verified email',
} as const;

export class OidcError extends Error {}

type OidcConfig = NonNullable<Config['oidc']>;

export interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  token_endpoint_auth_methods_supported?: string[];
}

const DiscoverySchema = v.object({
  issuer: v.string(),
  authorization_endpoint: v.pipe(v.string(), v.url()),
  token_endpoint: v.pipe(v.string(), v.url()),
  jwks_uri: v.pipe(v.string(), v.url()),
  token_endpoint_auth_methods_supported: v.optional(v.array(v.string())),
});

const trimSlash = (s: string) => s.replace(/\/+$/, '');

const discoveryCache = new Map<string, { doc: Discovery; at: number }>();
const jwksCache = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

/** The provider's discovery document (cached for an hour). */
export async function discover(issuer: string): Promise<Discovery> {
  const key = trimSlash(issuer);
  const hit = discoveryCache.get(key);
  if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.doc;
  let doc: Discovery;
  try {
    const res = await fetch(`${key}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!res.ok) throw new OidcError(`discovery answered ${res.status}`);
    doc = v.parse(DiscoverySchema, await res.json());
  } catch (e) {
    throw new OidcError(`OIDC discovery failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (trimSlash(doc.issuer) !== key) throw new OidcError('OIDC discovery: issuer mismatch');
  discoveryCache.set(key, { doc, at: Date.now() });
  return doc;
}

function jwksOf(uri: string) {
  let j = jwksCache.get(uri);
  if (!j) {
    j = createRemoteJWKSet(new URL(uri), { timeoutDuration: FETCH_TIMEOUT_MS });
    jwksCache.set(uri, j);
  }
  return j;
}

/** Identity provider name of an issuer: 'oidc:<issuer host>'. */
export function oidcProvider(issuer: string): string {
  return `oidc:${new URL(issuer).host}`;
}

/**
 * A same-site relative path to return to, or null. Rejects absolute and scheme-relative URLs ('//evil',
 * '/\\evil'), control characters and anything that would resolve to another origin.
 */
export function safeOrigin(origin: string | undefined | null): string | null {
  if (origin === undefined || origin === null || origin === '') return '/';
  if (origin.length > 2000 || !origin.startsWith('/') || origin.startsWith('//') || origin.startsWith('/\\')) return null;
  if (/[\u0000-\u001f\u007f\\]/.test(origin)) return null;
  try {
    const base = 'http://origin.invalid';
    const u = new URL(origin, base);
    if (u.origin !== base) return null;
    return u.pathname + u.search + u.hash;
  } catch {
    return null;
  }
}

const b64url = (b: Buffer) => b.toString('base64url');
const rand = () => b64url(randomBytes(32));

function sealKey(secret: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`oidc-flow:${secret}`).digest());
}

interface Flow {
  state: string;
  verifier: string;
  nonce: string;
  origin: string;
}

export async function sealFlow(secret: string, f: Flow): Promise<string> {
  return new EncryptJWT({ ...f })
    .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
    .setIssuedAt()
    .setExpirationTime(`${OIDC_FLOW_TTL_SEC}s`)
    .encrypt(sealKey(secret));
}

async function openFlow(secret: string, sealed: string): Promise<Flow | null> {
  try {
    const { payload } = await jwtDecrypt(sealed, sealKey(secret));
    const { state, verifier, nonce, origin } = payload as Record<string, unknown>;
    if ([state, verifier, nonce, origin].some((x) => typeof x !== 'string')) return null;
    return { state, verifier, nonce, origin } as Flow;
  } catch {
    return null;
  }
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Builds the authorization URL and the sealed flow cookie value. */
export async function startFlow(
  cfg: OidcConfig,
  secret: string,
  opts: { origin: string; redirectUri: string },
): Promise<{ url: string; cookie: string }> {
  const doc = await discover(cfg.issuer);
  const flow: Flow = { state: rand(), verifier: rand(), nonce: rand(), origin: opts.origin };
  const challenge = b64url(createHash('sha256').update(flow.verifier).digest());
  const url = new URL(doc.authorization_endpoint);
  const q = url.searchParams;
  q.set('response_type', 'code');
  q.set('client_id', cfg.clientId);
  q.set('redirect_uri', opts.redirectUri);
  q.set('scope', 'openid email profile');
  q.set('state', flow.state);
  q.set('nonce', flow.nonce);
  q.set('code_challenge', challenge);
  q.set('code_challenge_method', 'S256');
  return { url: url.toString(), cookie: await sealFlow(secret, flow) };
}

const TokenEndpointResponse = v.object({ id_token: v.string() });

async function exchangeCode(cfg: OidcConfig, doc: Discovery, code: string, verifier: string, redirectUri: string): Promise<string> {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: cfg.clientId,
    code_verifier: verifier,
  });
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (cfg.clientSecret) {
    const methods = doc.token_endpoint_auth_methods_supported;
    if (!methods || methods.includes('client_secret_basic')) {
      const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
      headers.authorization = `Basic ${Buffer.from(`${enc(cfg.clientId)}:${enc(cfg.clientSecret)}`).toString('base64')}`;
    } else {
      body.set('client_secret', cfg.clientSecret);
    }
  }
  let res: Response;
  try {
    res = await fetch(doc.token_endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch {
    throw new OidcError(TEXTS.providerUnavailable);
  }
  if (!res.ok) throw new OidcError(TEXTS.exchangeFailed);
  const parsed = v.safeParse(TokenEndpointResponse, await res.json().catch(() => null));
  if (!parsed.success) throw new OidcError(TEXTS.exchangeFailed);
  return parsed.output.id_token;
}

const ID_TOKEN_ALGS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** Verifies the id_token (signature by the provider's JWKS, iss, aud, exp, nonce) and returns sub + e-mail. */
export async function verifyIdToken(cfg: OidcConfig, doc: Discovery, idToken: string, nonce: string): Promise<{ sub: string; email: string }> {
  let payload;
  try {
    ({ payload } = await jwtVerify(idToken, jwksOf(doc.jwks_uri), {
      issuer: doc.issuer,
      audience: cfg.clientId,
      algorithms: ID_TOKEN_ALGS,
      clockTolerance: 30,
      requiredClaims: ['sub', 'exp', 'iat'],
    }));
  } catch {
    throw new OidcError(TEXTS.badIdToken);
  }
  if (typeof payload.nonce !== 'string' || !sameString(payload.nonce, nonce)) throw new OidcError(TEXTS.badIdToken);
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== cfg.clientId) throw new OidcError(TEXTS.badIdToken);
  const sub = payload.sub;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 255) throw new OidcError(TEXTS.badIdToken);
  const email = v.safeParse(Email, payload.email);
  if (!email.success || payload.email_verified === false) throw new OidcError(TEXTS.noEmail);
  return { sub, email: email.output };
}

/**
 * Completes the flow: checks state against the cookie, exchanges the code, verifies the id_token,
 * upserts the identity and issues our tokens. Returns where to send the browser.
 */
export async function completeFlow(
  deps: AppDeps,
  opts: { code: string | undefined; state: string | undefined; error: string | undefined; cookie: string | undefined; redirectUri: string },
): Promise<{ fragment: URLSearchParams }> {
  const cfg = deps.config.oidc;
  if (!cfg) throw new ApiError(404, TEXTS.notConfigured);
  const flow = opts.cookie ? await openFlow(deps.config.jwtSecret, opts.cookie) : null;
  const fail = (msg: string) => ({ fragment: new URLSearchParams({ error: msg, origin: flow?.origin ?? '/' }) });
  if (!flow) return fail(TEXTS.flowExpired);
  if (!opts.state || !sameString(opts.state, flow.state)) return fail(TEXTS.stateMismatch);
  if (opts.error || !opts.code) return fail(TEXTS.denied);
  try {
    const doc = await discover(cfg.issuer);
    const idToken = await exchangeCode(cfg, doc, opts.code, flow.verifier, opts.redirectUri);
    const claims = await verifyIdToken(cfg, doc, idToken, flow.nonce);
    const identity = await upsertIdentity(deps.db, { provider: oidcProvider(cfg.issuer), subject: claims.sub, email: claims.email });
    const tokens = await issueTokens(deps, identity);
    return {
      fragment: new URLSearchParams({
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        expires_in: String(tokens.expires_in),
        origin: flow.origin,
      }),
    };
  } catch (e) {
    if (e instanceof OidcError) return fail(e.message.startsWith('OIDC discovery') ? TEXTS.providerUnavailable : e.message);
    throw e;
  }
}
