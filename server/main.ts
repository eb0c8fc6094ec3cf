// `npm start`: API + both front-end builds + the in-process pipeline worker.
import { serve } from '@hono/node-server';
import { resolve } from 'node:path';
import { loadConfig } from './config';
import { buildDeps, shutdownDeps } from './bootstrap';
import { createApp } from './app/app';

const config = loadConfig();
const deps = await buildDeps(config, { role: 'server' });
const app = createApp(deps, { distDir: resolve('dist') });
const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
  deps.logger!.info(
    { port: info.port, database: deps.db.kind, storage: deps.storage?.kind, queue: deps.pipeline?.queue.kind },
    `Dubbing studio listening on http://localhost:${info.port} (database: ${deps.db.kind}${config.databaseUrl ? '' : `, data in ${config.dataDir}`})`,
  );
});

let stopping = false;
async function stop(sig: string) {
  if (stopping) return;
  stopping = true;
  const grace = config.worker.shutdownGraceSec;
  deps.logger!.info({ signal: sig }, `${sig}: shutting down (running stages get ${grace} s to finish, then go back to the queue)`);
  setTimeout(() => process.exit(1), (grace + 15) * 1000).unref();
  server.close();
  await shutdownDeps(deps, { graceful: true });
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
