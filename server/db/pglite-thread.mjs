// The embedded database (PGlite) in a worker thread of its own (server/db/index.ts, openPglite): PostgreSQL in
// WebAssembly runs each statement to its end without a pause, so on the server's thread a large statement (a
// 50,000-term dictionary's write, a long transcript's read) held every other request for its whole length. Here it
// holds only this thread; the server's thread sends statements and gets rows back as messages.
// Messages in: { id, op: 'query' | 'exec' | 'begin' | 'commit' | 'rollback' | 'close', sql?, params?, tx? }.
// Messages out: { id, rows? } or { id, error: { message, name, code, ... } }. A transaction holds the database
// (PGlite's own lock) from 'begin' to 'commit' or 'rollback'; statements outside it wait, as they would in-thread.
// Plain JavaScript: it needs nothing but PGlite, so the thread does not load the TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

const { dataDir, loadDataDir, startParams } = workerData;
/** A rollback asked for by the server's thread (not a failure of the transaction's callback). */
const ROLLBACK = Symbol('rollback');

/** Open transactions by id: their handle and how to end them. */
const txs = new Map();

const reply = (id, body) => parentPort.postMessage({ id, ...body });
const failure = (e) => {
  const out = { message: e?.message ?? String(e), name: e?.name ?? 'Error' };
  for (const k of ['code', 'detail', 'hint', 'constraint', 'table', 'column', 'schema', 'severity', 'position', 'where']) {
    if (e && e[k] !== undefined) out[k] = String(e[k]);
  }
  return out;
};

let pg;
try {
  pg = dataDir ? new PGlite(dataDir, { startParams }) : new PGlite(loadDataDir ? { loadDataDir, startParams } : { startParams });
  await pg.waitReady;
  parentPort.postMessage({ ready: true });
} catch (e) {
  parentPort.postMessage({ ready: false, error: failure(e) });
}

function handle(tx) {
  if (!tx) return pg;
  const open = txs.get(tx);
  if (!open) throw new Error('the transaction has ended');
  return open.t;
}


/** Starts a transaction: resolves once it holds the database; 'commit' or 'rollback' with its id ends it. */
async function begin(m) {
  const rec = { t: null, end: null, done: null };
  const ended = new Promise((r) => (rec.end = r));
  await new Promise((started, failed) => {
    rec.done = pg
      .transaction(async (t) => {
        rec.t = t;
        txs.set(m.tx, rec);
        started();
        if ((await ended) === 'rollback') throw ROLLBACK;
      })
      .then(
        () => undefined,
        (e) => {
          // never started: the failure is the begin's
          if (!txs.has(m.tx)) return failed(e);
          if (e !== ROLLBACK) throw e;
        },
      );
  });
}

/** Ends a transaction: its commit (or rollback) is done when this resolves; a failed commit rejects. */
async function end(m, how) {
  const rec = txs.get(m.tx);
  if (!rec) return;
  rec.end(how);
  try {
    await rec.done;
  } finally {
    txs.delete(m.tx);
  }
}

parentPort.on('message', async (m) => {
  try {
    switch (m.op) {
      case 'query': {
        const r = await handle(m.tx).query(m.sql, m.params);
        reply(m.id, { rows: r.rows });
        return;
      }
      case 'exec':
        await handle(m.tx).exec(m.sql);
        reply(m.id, {});
        return;
      case 'begin':
        await begin(m);
        reply(m.id, {});
        return;
      case 'commit':
        await end(m, 'commit');
        reply(m.id, {});
        return;
      case 'rollback':
        await end(m, 'rollback');
        reply(m.id, {});
        return;
      case 'close':
        await pg.close();
        reply(m.id, {});
        return;
      default:
        throw new Error(`unknown operation ${m.op}`);
    }
  } catch (e) {
    reply(m.id, { error: failure(e) });
  }
});
