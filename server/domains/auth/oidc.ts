// OpenID Connect social sign-in (authorization code flow + PKCE + state + nonce) against config.oidc, on the
// certified openid-client library: discovery, the authorization URL, the code exchange and the id_token checks
// (signature by the provider's keys, iss, aud, exp, nonce). The flow's secrets ride in a sealed (encrypted)
// short-lived cookie bound to the browser that started it.
import { createHash, timingSafeEqual } from 'node:crypto';
import { EncryptJWT, jwtDecrypt } from 'jose';
import * as client from 'openid-client';
import * as v from 'valibot';
import { Email } from '../../../contract/schemas/common';
import { namespace } from '../../cache/index';
import type { Config } from '../../config';
import type { Db } from '../../db/index';
import type { AppDeps } from '../../deps';
import { DomainError } from '../../errors';
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

const trimSlash = (s: string) => s.replace(/\/+$/, '');

/** One provider's client configuration (discovered once an hour), per issuer and client id: the app's (Db.state). */
const PROVIDERS = namespace('auth.oidc-providers', () => new Map<string, { config: client.Configuration; at: number }>());

/**
 * The provider's configuration: its discovery document, our client id, and the client authentication it
 * supports (client_secret_basic unless it only lists client_secret_post; none without a secret). An issuer on
 * plain http (a provider on the operator's own network) is allowed because the operator configured it.
 */
async function providerConfig(db: Db, cfg: OidcConfig): Promise<client.Configuration> {
  const providers = db.state.of(PROVIDERS);
  const key = `${trimSlash(cfg.issuer)}|${cfg.clientId}`;
  const hit = providers.get(key);
  if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.config;
  const insecure = new URL(cfg.issuer).protocol === 'http:';
  let found: client.Configuration;
  try {
    found = await client.discovery(new URL(cfg.issuer), cfg.clientId, undefined, client.None(), {
      execute: insecure ? [client.allowInsecureRequests] : [],
      timeout: FETCH_TIMEOUT_MS / 1000,
    });
  } catch (e) {
    throw new OidcError(`OIDC discovery failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const server = found.serverMetadata();
  const methods = server.token_endpoint_auth_methods_supported;
  const auth = !cfg.clientSecret
    ? client.None()
    : !methods || methods.includes('client_secret_basic')
      ? client.ClientSecretBasic(cfg.clientSecret)
      : client.ClientSecretPost(cfg.clientSecret);
  const config = new client.Configuration(server, cfg.clientId, undefined, auth);
  if (insecure) client.allowInsecureRequests(config);
  client.enableNonRepudiationChecks(config); // the id_token's signature is checked against the provider's keys
  config.timeout = FETCH_TIMEOUT_MS / 1000;
  providers.set(key, { config, at: Date.now() });
  return config;
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
  if ([...origin].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f) || origin.includes('\\')) return null;
  try {
    const base = 'http://origin.invalid';
    const u = new URL(origin, base);
    if (u.origin !== base) return null;
    return u.pathname + u.search + u.hash;
  } catch {
    return null;
  }
}

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

/** Builds the authorization URL and the sealed flow cookie value (`db`: the app, whose discovery is kept). */
export async function startFlow(
  db: Db,
  cfg: OidcConfig,
  secret: string,
  opts: { origin: string; redirectUri: string },
): Promise<{ url: string; cookie: string }> {
  const config = await providerConfig(db, cfg);
  const flow: Flow = { state: client.randomState(), verifier: client.randomPKCECodeVerifier(), nonce: client.randomNonce(), origin: opts.origin };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: opts.redirectUri,
    scope: 'openid email profile',
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: 'S256',
  });
  return { url: url.toString(), cookie: await sealFlow(secret, flow) };
}

/** What went wrong in the code exchange, in the words the sign-in page shows. */
function exchangeFailure(e: unknown): OidcError {
  if (e instanceof client.ResponseBodyError) return new OidcError(TEXTS.exchangeFailed); // e.g. invalid_grant (a replayed code)
  const code = (e as { code?: string } | null)?.code ?? '';
  if (['OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON', 'OAUTH_PARSE_ERROR'].includes(code)) return new OidcError(TEXTS.exchangeFailed);
  if (code.startsWith('OAUTH_')) return new OidcError(TEXTS.badIdToken); // the id_token failed a check
  return new OidcError(TEXTS.providerUnavailable); // network, timeout
}

/** The id_token's subject and verified e-mail (the signature, iss, aud, exp and nonce were checked by the grant). */
function identityClaims(claims: client.IDToken | undefined): { sub: string; email: string } {
  if (!claims) throw new OidcError(TEXTS.badIdToken);
  const sub = claims.sub;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > 255) throw new OidcError(TEXTS.badIdToken);
  const email = v.safeParse(Email, claims.email);
  if (!email.success || claims.email_verified === false) throw new OidcError(TEXTS.noEmail);
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
  if (!cfg) throw new DomainError('not_found', TEXTS.notConfigured);
  const flow = opts.cookie ? await openFlow(deps.config.jwtSecret, opts.cookie) : null;
  const fail = (msg: string) => ({ fragment: new URLSearchParams({ error: msg, origin: flow?.origin ?? '/' }) });
  if (!flow) return fail(TEXTS.flowExpired);
  if (!opts.state || !sameString(opts.state, flow.state)) return fail(TEXTS.stateMismatch);
  if (opts.error || !opts.code) return fail(TEXTS.denied);
  try {
    const config = await providerConfig(deps.db, cfg);
    const callback = new URL(opts.redirectUri);
    callback.searchParams.set('code', opts.code);
    callback.searchParams.set('state', opts.state);
    let grant: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      grant = await client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: flow.verifier, expectedState: flow.state, expectedNonce: flow.nonce, idTokenExpected: true,
      });
    } catch (e) {
      throw exchangeFailure(e);
    }
    const claims = identityClaims(grant.claims());
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
