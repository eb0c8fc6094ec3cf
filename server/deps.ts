// The services a request or a job can reach. Built once in server/main.ts (or a test harness).
import type { Config } from './config';
import type { Db } from './db/index';

export interface AppDeps {
  config: Config;
  db: Db;
  /** Optional services added by later parts (engines, storage, queue, mailer); see their folders. */
  [service: string]: unknown;
}
