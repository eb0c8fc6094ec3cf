import type { AppDeps } from '../deps';
import type { Identity, UserRow } from '../caller';

export type { Identity, UserRow };

export type AppEnv = {
  Variables: {
    deps: AppDeps;
    /** The request's id (X-Request-Id from the client when sane, else a new one) and its logger. */
    requestId: string;
    log: import('pino').Logger;
    identity: Identity | null;
    user: UserRow;
  };
};
