// `npm run worker`: a pipeline worker without the HTTP API. With REDIS_URL (BullMQ) any number of workers
// on any machines share the queue; DATABASE_URL and S3 settings point them at the same data.
import { loadConfig } from './config';
import { buildDeps, shutdownDeps } from './bootstrap';
import { lowerPriority } from './media/run';

const config = loadConfig();
if (!config.redisUrl) {
  console.error('npm run worker needs REDIS_URL (BullMQ); without it `npm start` runs the embedded worker.');
  process.exit(1);
}
if (!config.databaseUrl) {
  console.error('npm run worker needs DATABASE_URL: workers and the server must share one PostgreSQL database.');
  process.exit(1);
}
// A worker process is batch work: on a machine it shares with the API, requests come first (PIPELINE_NICE).
// Set before any thread starts, so its threads take the same niceness; its tools get it from server/media/run.ts.
lowerPriority(process.pid, config.worker.nice);
const deps = await buildDeps(config, { role: 'worker' });
deps.logger.info(
  { owner: deps.pipeline.owner, concurrency: config.worker.concurrency, storage: deps.storage.kind },
  `Pipeline worker ${deps.pipeline.owner} processing (concurrency ${config.worker.concurrency}, storage ${deps.storage.kind})`,
);

let stopping = false;
async function stop(sig: string) {
  if (stopping) return;
  stopping = true;
  const grace = config.worker.shutdownGraceSec;
  deps.logger!.info({ signal: sig }, `${sig}: stopping (running stages get ${grace} s to finish, then go back to the queue)`);
  // Bounded: whatever happens, the process is gone shortly after the grace period.
  setTimeout(() => process.exit(1), (grace + 15) * 1000).unref();
  await shutdownDeps(deps, { graceful: true });
  process.exit(0);
}
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
