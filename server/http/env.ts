import type { AppDeps } from '../deps';
import type { Identity, UserRow } from '../caller';

export type { Identity, UserRow };

/**
 * Who a bearer token is and their account: the domains answer (server/domains/auth/identity.ts) and the app hands
 * them to every request (server/app/app.ts), so this kit imports no domain.
 */
export interface Callers {
  resolveIdentity(token: string, deps: AppDeps): Promise<Identity>;
  accountOf(deps: AppDeps, identityId: string): Promise<UserRow | null>;
}

export type AppEnv = {
  Variables: {
    deps: AppDeps;
    /** The request's id (X-Request-Id from the client when sane, else a new one) and its logger. */
    requestId: string;
    log: import('pino').Logger;
    /** How the route guards (server/http/auth.ts) tell who calls. */
    callers: Callers;
    identity: Identity | null;
    user: UserRow;
  };
};
