// The space id a route reads from the query (the space guard itself is the spaces domain's:
// server/domains/spaces/access.ts).
import type { Context } from 'hono';
import { TEXT } from '../../contract/errors';
import type { AppEnv } from './env';
import { unprocessable } from './errors';

/** The space_id query parameter; missing or blank -> 422 'Field is required'. */
export function spaceIdFromQuery(c: Context<AppEnv>): string {
  const id = optionalSpaceIdFromQuery(c);
  if (id === null) throw unprocessable([{ loc: ['query', 'space_id'], msg: TEXT.fieldRequired, type: 'missing' }]);
  return id;
}

/** The space_id query parameter, or null when absent. */
export function optionalSpaceIdFromQuery(c: Context<AppEnv>): string | null {
  const raw = c.req.query('space_id');
  return raw === undefined || raw.trim() === '' ? null : raw.trim();
}
