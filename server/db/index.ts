// One database interface over PGlite (embedded default) and node-postgres (DATABASE_URL).
// All SQL lives in domain repositories; they receive a `Db` (possibly a transaction).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ChangeClock, CHANGES_CHANNEL, mayWrite, type ChangeListener } from './changes';
import { AppState } from '../cache/index';

export type SqlParam = string | number | boolean | null | Date | object | undefined;

export interface Db {
  readonly kind: 'pglite' | 'pg';
  query<T = Record<string, unknown>>(sql: string, params?: SqlParam[]): Promise<T[]>;
  one<T = Record<string, unknown>>(sql: string, params?: SqlParam[]): Promise<T>;
  maybeOne<T = Record<string, unknown>>(sql: string, params?: SqlParam[]): Promise<T | null>;
  /** Runs several statements at once (simple protocol, no parameters): migrations. */
  exec(sql: string): Promise<void>;
  /** Runs fn in a transaction. Called on a transaction, it joins it (no nested BEGIN). */
  tx<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  /**
   * Calls `fn` once what this handle wrote is committed: at once outside a transaction; after the COMMIT of the
   * transaction (never, if it rolls back) on a transaction's handle. For telling others of a change (events).
   */
  afterCommit(fn: () => void): void;
  close(): Promise<void>;
  /**
   * The in-process state of the app over this database (server/cache: caches, the live event bus, the listeners of
   * the composition root): made with the database, shared by its transaction handles, never module-wide.
   */
  readonly state: AppState;
  /** Moves on at every change this process knows of (server/db/changes.ts): what kept reads are checked against. */
  readonly changes: ChangeClock;
}

function norm(params: SqlParam[] = []): unknown[] {
  return params.map((p) => {
    if (p === undefined) return null;
    if (p instanceof Date) return p.toISOString();
    if (p !== null && typeof p === 'object') return JSON.stringify(p);
    return p;
  });
}

type Runner = (sql: string, params: unknown[]) => Promise<{ rows: unknown[] }>;
type Execer = (sql: string) => Promise<unknown>;
/** Runs `fn` in a new transaction whose handle queues its after-commit callbacks in `pending`. */
type TxRunner = <T>(fn: (db: Db) => Promise<T>, pending: Array<() => void>) => Promise<T>;

/** The database itself (`tx` starts transactions), or one transaction's handle (`tx` joins it). */
type Scope = { kind: 'root'; tx: TxRunner } | { kind: 'tx'; pending: Array<() => void> };

/**
 * A Db over a runner. `changes` moves on after each statement of the root that may write, and after each of its
 * transactions (inside one, nothing is visible to others until the commit).
 */
function wrap(kind: Db['kind'], run: Runner, exec: Execer, scope: Scope, close: () => Promise<void>, state: AppState, changes: ChangeClock): Db {
  const root = scope.kind === 'root';
  const db: Db = {
    kind,
    state,
    changes,
    async exec(sql: string) {
      try {
        await exec(sql);
      } finally {
        if (root) changes.bump();
      }
    },
    async query<T>(sql: string, params?: SqlParam[]) {
      if (!root || !mayWrite(sql)) return (await run(sql, norm(params))).rows as T[];
      try {
        return (await run(sql, norm(params))).rows as T[];
      } finally {
        changes.bump();
      }
    },
    async one<T>(sql: string, params?: SqlParam[]) {
      const rows = await db.query<T>(sql, params);
      if (rows.length === 0) throw new Error('Expected one row, got none');
      return rows[0];
    },
    async maybeOne<T>(sql: string, params?: SqlParam[]) {
      const rows = await db.query<T>(sql, params);
      return rows[0] ?? null;
    },
    tx:
      scope.kind === 'tx'
        ? (fn) => fn(db)
        : async (fn) => {
            const pending: Array<() => void> = [];
            let committed = false;
            try {
              const out = await scope.tx(fn, pending);
              committed = true;
              return out;
            } finally {
              changes.bump();
              if (committed) for (const f of pending) runCallback(f);
            }
          },
    afterCommit(fn: () => void) {
      if (scope.kind === 'tx') scope.pending.push(fn);
      else runCallback(fn);
    },
    close,
  };
  return db;
}

function runCallback(f: () => void): void {
  try {
    f();
  } catch {
    // a callback's failure is its own: the transaction has committed
  }
}

/**
 * initdb of a new data directory, in a short-lived worker thread: done in this thread, its memory (about
 * 370 MB of WebAssembly and buffers) would stay in the server's resident size long after start-up.
 */
function initDataDir(dataDir: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./pglite-initdb.mjs', import.meta.url), { workerData: { dataDir } });
    let failed: Error | null = null;
    worker.once('error', (e) => (failed = e));
    worker.once('exit', (code) => {
      if (failed || code !== 0) reject(new Error(`could not create the database in ${dataDir}: ${failed?.message ?? `exit ${code}`}`));
      else resolve();
    });
  });
}

/**
 * The embedded database's buffer cache. PostgreSQL's default (128 MB) is touched at start and held for the life of
 * the process (about 110 MB more resident memory than this, measured); an embedded install's working set (projects,
 * segments, ledger) fits in a fraction of it, and what is not cached is read from the data files through the
 * operating system's page cache.
 */
const PGLITE_SHARED_BUFFERS = '32MB';

/**
 * PGlite: in `dataDir` (created on first use), or in memory when null, running in a worker thread of its own
 * (pgliteThreadDb). `from` starts an in-memory database from a dump of another (pgliteDump): a copy of a migrated
 * template opens in about a third of the time of a new one, which the tests' harness, opening one per test file,
 * relies on.
 */
export async function openPglite(dataDir: string | null, from?: Blob): Promise<Db> {
  const { PGlite } = await import('@electric-sql/pglite');
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    if (!existsSync(join(dataDir, 'PG_VERSION'))) await initDataDir(dataDir);
  }
  const startParams = [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`];
  return pgliteThreadDb({ dataDir, loadDataDir: dataDir ? undefined : from, startParams });
}

/** What a message from the database's thread (server/db/pglite-thread.mjs) carries. */
interface ThreadReply {
  id?: number;
  ready?: boolean;
  rows?: unknown[];
  error?: { message: string; name: string; code?: string } & Record<string, string>;
}

/** A failure of the database's thread as an Error with PostgreSQL's fields (code, detail, constraint...). */
function threadError(e: NonNullable<ThreadReply['error']>): Error {
  const { message, name, ...fields } = e;
  const err = Object.assign(new Error(message), fields);
  err.name = name;
  return err;
}

/**
 * PGlite in a worker thread of its own (server/db/pglite-thread.mjs): a statement runs there, so however long it
 * is (a 50,000-term dictionary's write, an hour's transcript read), this thread keeps answering other requests;
 * rows come back as messages. The thread keeps the process alive only while a statement is waiting for it.
 */
async function pgliteThreadDb(data: { dataDir: string | null; loadDataDir?: Blob; startParams: string[] }): Promise<Db> {
  // plain JavaScript: the thread needs none of this process's loader flags (execArgv)
  const worker = new Worker(new URL('./pglite-thread.mjs', import.meta.url), { workerData: data, execArgv: [] });
  const waiting = new Map<number, { resolve: (r: ThreadReply) => void; reject: (e: Error) => void }>();
  let seq = 0;
  let gone: Error | null = null;
  await new Promise<void>((resolve, reject) => {
    // a thread that could not open the database ends with the failure (it would otherwise keep the process alive)
    const fail = (e: Error) => void worker.terminate().finally(() => reject(new Error(`could not open the embedded database: ${e.message}`)));
    worker.once('message', (m: ThreadReply) => (m.ready ? resolve() : fail(threadError(m.error!))));
    worker.once('error', fail);
  });
  worker.unref();
  const end = (e: Error) => {
    gone ??= e;
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  worker.on('message', (m: ThreadReply) => {
    const w = m.id === undefined ? undefined : waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id!);
    if (waiting.size === 0) worker.unref();
    if (m.error) w.reject(threadError(m.error));
    else w.resolve(m);
  });
  worker.on('error', (e) => end(Object.assign(new Error(`the embedded database stopped: ${e.message}`), { code: '57P01' })));
  worker.on('exit', () => end(Object.assign(new Error('the embedded database is closed: Client was closed'), { code: '57P01' })));
  const call = (msg: { op: string; sql?: string; params?: unknown[]; tx?: number }) =>
    new Promise<ThreadReply>((resolve, reject) => {
      if (gone) return reject(gone);
      const id = ++seq;
      if (waiting.size === 0) worker.ref();
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...msg });
    });
  // statements outside a transaction (tx undefined) or inside the one the thread knows by `tx`
  const runIn = (tx?: number): Runner => async (sql, params) => ({ rows: (await call({ op: 'query', sql, params, tx })).rows ?? [] });
  const execIn = (tx?: number) => (sql: string) => call({ op: 'exec', sql, tx });
  const changes = new ChangeClock(null);
  const state = new AppState(changes);
  let txSeq = 0;
  return wrap(
    'pglite',
    runIn(),
    execIn(),
    {
      kind: 'root',
      tx: async (fn, pending) => {
        const tx = ++txSeq;
        await call({ op: 'begin', tx });
        let out;
        try {
          const inner: Db = wrap(
            'pglite',
            runIn(tx),
            execIn(tx),
            { kind: 'tx', pending },
            async () => {},
            state,
            changes,
          );
          out = await fn(inner);
        } catch (e) {
          await call({ op: 'rollback', tx }).catch(() => undefined);
          throw e;
        }
        await call({ op: 'commit', tx });
        return out;
      },
    },
    async () => {
      await changes.close();
      if (!gone) await call({ op: 'close' }).catch(() => undefined);
      await worker.terminate();
    },
    state,
    changes,
  );
}

/** A new in-memory database after `setup` (e.g. migrate), dumped: openPglite(null, dump) opens copies of it. @internal */
export async function pgliteDump(setup: (db: Db) => Promise<unknown>): Promise<Blob> {
  const { PGlite } = await import('@electric-sql/pglite');
  const pg = new PGlite();
  await pg.waitReady;
  try {
    await setup(pgliteDb(pg));
    return await pg.dumpDataDir('none');
  } finally {
    await pg.close();
  }
}

function pgliteDb(pg: import('@electric-sql/pglite').PGlite): Db {
  const run: Runner = (sql, params) => pg.query(sql, params) as Promise<{ rows: unknown[] }>;
  // Embedded: this process is the database's only writer, so its own writes are all the changes there are.
  const changes = new ChangeClock(null);
  const state = new AppState(changes);
  const self: Db = wrap(
    'pglite',
    run,
    (sql) => pg.exec(sql),
    {
      kind: 'root',
      tx: (fn, pending) =>
        pg.transaction(async (t) => {
          const inner: Db = wrap('pglite', (s, p) => t.query(s, p) as Promise<{ rows: unknown[] }>, (s) => t.exec(s), { kind: 'tx', pending }, async () => {}, state, changes);
          return fn(inner);
        }),
    },
    async () => {
      await changes.close();
      await pg.close();
    },
    state,
    changes,
  );
  return self;
}

/** Distinct statements prepared at most (each connection prepares those it runs, once). */
const MAX_PREPARED = 300;
/** Statements with more parameters than this are built per call (bulk inserts): not worth a slot. */
const MAX_PREPARED_PARAMS = 32;

/**
 * Named (prepared) statements for node-postgres: PostgreSQL parses and plans an unnamed statement on every call,
 * which for the queries of the hot read paths costs several times their execution (the project list's version
 * query: about 2,500 calls/s unnamed, over 10,000 prepared, on 2 cores). The first MAX_PREPARED distinct statements
 * of the process get a name from their text; later ones, and bulk statements, stay unnamed, so dynamic SQL cannot
 * grow the servers' statement caches without bound.
 */
function preparedStatements() {
  const names = new Map<string, string>();
  return {
    config(sql: string, params: unknown[]): { text: string; values: unknown[]; name?: string } {
      let name = names.get(sql);
      if (name === undefined && names.size < MAX_PREPARED && params.length <= MAX_PREPARED_PARAMS) {
        name = `s${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
        names.set(sql, name);
      }
      return name === undefined ? { text: sql, values: params } : { name, text: sql, values: params };
    },
  };
}

export async function openPostgres(url: string, max = 10): Promise<Db> {
  const { default: pg } = await import('pg');
  // numeric -> number, int8 -> number (counts), timestamps kept as Date.
  pg.types.setTypeParser(1700, (v: string) => Number(v));
  pg.types.setTypeParser(20, (v: string) => Number(v));
  // A lost server fails a request in flight within seconds (503 from the app) instead of hanging it.
  const pool = new pg.Pool({ connectionString: url, max, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => {}); // idle clients whose connection died are dropped by the pool
  const statements = preparedStatements();
  const run: Runner = (sql, params) => pool.query(statements.config(sql, params));
  const changes = new ChangeClock(changeListener(pg.Client, url), async (payload) => {
    await pool.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, payload]);
  });
  const state = new AppState(changes);
  return wrap(
    'pg',
    run,
    (sql) => pool.query(sql),
    {
      kind: 'root',
      tx: async (fn, pending) => {
        const client = await pool.connect();
        let broken: Error | undefined;
        try {
          await client.query('BEGIN');
          const inner: Db = wrap('pg', (s, p) => client.query(statements.config(s, p)), (s) => client.query(s), { kind: 'tx', pending }, async () => {}, state, changes);
          const out = await fn(inner);
          await client.query('COMMIT');
          return out;
        } catch (e) {
          if (isDbUnavailable(e)) broken = e as Error;
          await client.query('ROLLBACK').catch((e2: Error) => {
            broken ??= e2;
          });
          throw e;
        } finally {
          // A client whose connection broke is destroyed, never handed to the next request.
          client.release(broken);
        }
      },
    },
    async () => {
      await changes.close();
      await pool.end();
    },
    state,
    changes,
  );
}

/**
 * Follows the change notices of other processes (server/db/changes.ts) on a connection of its own, apart from the
 * pool: LISTEN holds its connection for as long as it follows.
 */
function changeListener(Client: typeof import('pg').Client, url: string): ChangeListener {
  return async (notice, lost) => {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: 10_000, keepAlive: true });
    client.on('notification', (n) => {
      if (n.channel === CHANGES_CHANNEL) notice(n.payload ?? '');
    });
    client.on('error', (e) => lost(e));
    client.on('end', () => lost());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (e) {
      await client.end().catch(() => {});
      throw e;
    }
    return async () => {
      client.removeAllListeners('end');
      client.removeAllListeners('error');
      client.on('error', () => {});
      await client.end();
    };
  };
}

export async function openDb(opts: { databaseUrl?: string | null; dataDir?: string | null }): Promise<Db> {
  if (opts.databaseUrl) return openPostgres(opts.databaseUrl);
  return openPglite(opts.dataDir ?? null);
}

/**
 * The database could not be reached or dropped the connection (server restarted, network cut, admin
 * shutdown): the request gets a 503 and the next one reconnects.
 */
export function isDbUnavailable(e: unknown): boolean {
  const code = (e as { code?: string } | null)?.code ?? '';
  if (['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006'].includes(code)) return true;
  const msg = e instanceof Error ? e.message : '';
  return /Connection terminated|connection timeout|Client has encountered a connection error|Client was closed|terminating connection due to administrator command/i.test(msg);
}

/** Postgres unique-violation check that works for both drivers. */
export function isUniqueViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: string }).code === '23505';
}
