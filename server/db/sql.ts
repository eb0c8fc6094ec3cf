// Typed SQL for the repositories: Kysely as a query builder over the generated schema (server/db/schema.ts,
// `npm run db:types`), compiled to text and parameters and run on our own `Db` (PGlite or node-postgres, inside
// or outside a transaction). The row type of every answer is inferred from the query, never asserted.
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  type Compilable,
  type InferResult,
  type RawBuilder,
} from 'kysely';
import type { Db, SqlParam } from './index';
import type { DB, JsonValue } from './schema';

export type { DB } from './schema';
export { sql };

/** Builds queries only: it never connects (a dummy driver); run what it builds with all/first/one/run below. */
export const q = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (k) => new PostgresIntrospector(k),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** A value for a jsonb column (any JSON-serialisable value, stored as its JSON text). */
export function json(value: unknown): RawBuilder<JsonValue> {
  return sql<JsonValue>`${JSON.stringify(value)}::jsonb`;
}

type Row<Q extends Compilable<unknown>> = InferResult<Q> extends Array<infer R> ? R : never;

function compiled(query: Compilable<unknown>): [string, SqlParam[]] {
  const c = query.compile();
  return [c.sql, c.parameters as SqlParam[]];
}

/** Every row the query answers. */
export async function all<Q extends Compilable<unknown>>(db: Db, query: Q): Promise<Array<Row<Q>>> {
  return db.query<Row<Q>>(...compiled(query));
}

/** The first row, or null when there is none. */
export async function first<Q extends Compilable<unknown>>(db: Db, query: Q): Promise<Row<Q> | null> {
  return db.maybeOne<Row<Q>>(...compiled(query));
}

/** The one row the query must answer (throws when there is none). */
export async function one<Q extends Compilable<unknown>>(db: Db, query: Q): Promise<Row<Q>> {
  return db.one<Row<Q>>(...compiled(query));
}

/** Runs a statement whose rows are not needed (insert/update/delete without returning). */
export async function run(db: Db, query: Compilable<unknown>): Promise<void> {
  await db.query(...compiled(query));
}
