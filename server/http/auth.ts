// Resolves the caller from the bearer token and guards routes.
import type { MiddlewareHandler } from 'hono';
import { verifyAccessToken } from '../domains/auth/tokens';
import { findUserByIdentity } from '../domains/users/repository';
import { ApiError, unauthorized } from './errors';
import type { AppEnv, Identity } from './env';
import { TEXT } from '../../contract/errors';

export function bearerOf(header: string | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
  return m ? m[1] : null;
}

/** Extra resolvers (embedded session tokens, API keys) register here; first non-null wins. */
export type IdentityResolver = (token: string, deps: AppEnv['Variables']['deps']) => Promise<Identity | null>;
const extraResolvers: IdentityResolver[] = [];
export function registerIdentityResolver(r: IdentityResolver): void {
  if (!extraResolvers.includes(r)) extraResolvers.push(r);
}

export async function resolveIdentity(token: string, deps: AppEnv['Variables']['deps']): Promise<Identity> {
  const r = await verifyAccessToken(deps.config.jwtSecret, token);
  if (r.ok) return { identityId: r.claims.sub, email: r.claims.email, provider: r.claims.provider, via: 'access_token' };
  for (const resolver of extraResolvers) {
    const id = await resolver(token, deps);
    if (id) return id;
  }
  throw unauthorized(r.reason === 'expired' ? 'Token expired' : 'Invalid token');
}

/** Requires a valid token; sets `identity`. */
export const requireIdentity: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearerOf(c.req.header('authorization'));
  if (!token) throw unauthorized();
  c.set('identity', await resolveIdentity(token, c.get('deps')));
  await next();
};

/** Requires a valid token AND a product account that is active; sets `user`. */
export const requireUser: MiddlewareHandler<AppEnv> = async (c, next) => {
  const token = bearerOf(c.req.header('authorization'));
  if (!token) throw unauthorized();
  const identity = await resolveIdentity(token, c.get('deps'));
  c.set('identity', identity);
  const user = await findUserByIdentity(c.get('deps').db, identity.identityId);
  if (!user) throw new ApiError(404, 'User not found');
  if (!user.is_active) throw new ApiError(400, TEXT.inactiveUser);
  c.set('user', user);
  await next();
};

export const requireSuperuser: MiddlewareHandler<AppEnv> = async (c, next) => {
  const user = c.get('user');
  if (!user?.is_superuser) throw new ApiError(403, 'Superuser required');
  await next();
};
