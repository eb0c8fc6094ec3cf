// /api/auth: sign-up, sign-in, refresh, sign-out, OIDC social sign-in.
import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { type OidcConfigResponse, RefreshRequest, SignInRequest, SignOutRequest, SignUpRequest } from '../../../contract/schemas/auth';
import type * as v from 'valibot';
import { bearerOf } from '../../http/auth';
import { ApiError } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { jsonBody } from '../../http/validate';
import { clientIp } from '../../http/client-ip';
import { OIDC_COOKIE, OIDC_COOKIE_PATH, OIDC_FLOW_TTL_SEC, OidcError, TEXTS as OIDC_TEXTS, completeFlow, safeOrigin, startFlow } from './oidc';
import { refresh, signIn, signOut, signUp } from './service';
import { verifyAccessToken } from './tokens';
import { DATABASE_DOWN, routeFacts } from '../../http/route-facts';

const NO_STORE = { 'cache-control': 'no-store' };

/** Public base URL of this server: PUBLIC_URL, else the request's own origin (forwarded when trusted). */
function publicBase(c: Context<AppEnv>): string {
  const cfg = c.get('deps').config;
  if (cfg.publicUrl) return cfg.publicUrl.replace(/\/+$/, '');
  const url = new URL(c.req.url);
  if (cfg.trustProxy) {
    const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim();
    const host = c.req.header('x-forwarded-host')?.split(',')[0]?.trim();
    if (proto && /^https?$/.test(proto)) url.protocol = `${proto}:`;
    if (host) url.host = host;
  }
  return url.origin;
}

const callbackUri = (c: Context<AppEnv>) => `${publicBase(c)}/api/auth/oidc/callback`;

export const authRoutes = new Hono<AppEnv>()
  .post('/sign-up', routeFacts({
    summary: 'Create an identity (e-mail and password)',
    body: 'SignUpRequest',
    response: 'TokenResponse',
    status: 201,
    public: true,
    errors: { 503: DATABASE_DOWN },
  }), async (c) => {
    const body = await jsonBody(c, SignUpRequest);
    return c.json(await signUp(c.get('deps'), body.email, body.password), 201, NO_STORE);
  })
  .post('/sign-in', routeFacts({
    summary: 'Sign in',
    body: 'SignInRequest',
    response: 'TokenResponse',
    public: true,
    errors: { 401: 'Wrong e-mail or password', 503: DATABASE_DOWN },
  }), async (c) => {
    const body = await jsonBody(c, SignInRequest);
    return c.json(await signIn(c.get('deps'), body.email, body.password, clientIp(c)), 200, NO_STORE);
  })
  .post('/refresh', routeFacts({
    summary: 'Exchange a refresh token',
    body: 'RefreshRequest',
    response: 'TokenResponse',
    public: true,
    errors: { 401: 'An unknown, expired or revoked refresh token', 503: DATABASE_DOWN },
  }), async (c) => {
    const body = await jsonBody(c, RefreshRequest);
    return c.json(await refresh(c.get('deps'), body.refresh_token), 200, NO_STORE);
  })
  .post('/sign-out', routeFacts({
    summary: 'Sign out: the refresh token (and the bearer\'s session) is revoked',
    body: 'SignOutRequest',
    status: 204,
    public: true,
    errors: { 503: DATABASE_DOWN },
  }), async (c) => {
    const body = await jsonBody(c, SignOutRequest);
    const deps = c.get('deps');
    const bearer = bearerOf(c.req.header('authorization'));
    let identityId: string | null = null;
    if (bearer) {
      const r = await verifyAccessToken(deps.config.jwtSecret, bearer);
      if (r.ok) identityId = r.claims.sub;
    }
    await signOut(deps, { refreshToken: body.refresh_token, identityId });
    return c.body(null, 204);
  })
  .get('/oidc/config', routeFacts({
    summary: 'Whether single sign-on (OpenID Connect) is configured, and its providers',
    response: 'OidcConfig',
    public: true,
  }), (c) => {
    const oidc = c.get('deps').config.oidc;
    const out: v.InferOutput<typeof OidcConfigResponse> = oidc
      ? { enabled: true, providers: [{ id: 'oidc', name: oidc.name }] }
      : { enabled: false, providers: [] };
    return c.json(out);
  })
  .get('/oidc/start', routeFacts({
    summary: 'Start single sign-on: redirects to the provider, with the flow in a cookie',
    query: [{ name: 'origin', description: 'The path of this site to return to (default /)' }],
    status: 302,
    public: true,
    errors: { 400: 'The origin is not a path of this site', 502: 'The identity provider cannot be reached', 503: DATABASE_DOWN },
  }), async (c) => {
    const deps = c.get('deps');
    if (!deps.config.oidc) throw new ApiError(404, OIDC_TEXTS.notConfigured);
    const origin = safeOrigin(c.req.query('origin'));
    if (origin === null) throw new ApiError(400, OIDC_TEXTS.invalidOrigin);
    const redirectUri = callbackUri(c);
    let started;
    try {
      started = await startFlow(deps.db, deps.config.oidc, deps.config.jwtSecret, { origin, redirectUri });
    } catch (e) {
      if (e instanceof OidcError) throw new ApiError(502, OIDC_TEXTS.providerUnavailable);
      throw e;
    }
    setCookie(c, OIDC_COOKIE, started.cookie, {
      path: OIDC_COOKIE_PATH,
      httpOnly: true,
      secure: redirectUri.startsWith('https:'),
      sameSite: 'Lax',
      maxAge: OIDC_FLOW_TTL_SEC,
    });
    c.header('cache-control', 'no-store');
    return c.redirect(started.url, 302);
  })
  .get('/oidc/callback', routeFacts({
    summary: 'The provider returns here: redirects to /auth/callback with the tokens (or the error) in the fragment',
    query: [
      { name: 'code', description: 'The authorization code' },
      { name: 'state', description: 'The state of the flow' },
      { name: 'error', description: 'The provider\'s refusal' },
    ],
    status: 302,
    public: true,
    errors: { 503: DATABASE_DOWN },
  }), async (c) => {
    const deps = c.get('deps');
    if (!deps.config.oidc) throw new ApiError(404, OIDC_TEXTS.notConfigured);
    const { fragment } = await completeFlow(deps, {
      code: c.req.query('code'),
      state: c.req.query('state'),
      error: c.req.query('error'),
      cookie: getCookie(c, OIDC_COOKIE),
      redirectUri: callbackUri(c),
    });
    deleteCookie(c, OIDC_COOKIE, { path: OIDC_COOKIE_PATH });
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    const base = deps.config.publicUrl ? deps.config.publicUrl.replace(/\/+$/, '') : '';
    return c.redirect(`${base}/auth/callback#${fragment.toString()}`, 302);
  });
