// Child of fair-queue-scaleout.test.ts: a pipeline worker process on the shared PostgreSQL and Redis (BullMQ), as
// `npm run worker` is, but with stage stubs that only wait FAIR_STAGE_MS. Prints `START|END <projectId> <ms>` per stage
// run (the test reads them from every worker) and `fair worker ready` once it takes jobs.
import { loadConfig } from '../../../server/config';
import { openDb } from '../../../server/db/index';
import { jobsAtOnce } from '../../../server/domains/billing/jobs-at-once';
import { createPipelineServices } from '../../../server/domains/projects/pipeline/index';
import type { StageHandler } from '../../../server/domains/projects/pipeline/registry';
import { STAGES, type StageName } from '../../../server/domains/projects/pipeline/stages';
import { sleep } from './queue-helpers';

const config = loadConfig();
const db = await openDb({ databaseUrl: config.databaseUrl });
const stageMs = Number(process.env.FAIR_STAGE_MS ?? 200);
const stub: StageHandler = async (ctx) => {
  console.log(`START ${ctx.projectId} ${Date.now()}`);
  try {
    await sleep(stageMs, ctx.signal);
  } finally {
    console.log(`END ${ctx.projectId} ${Date.now()}`);
  }
};
const { pipeline } = createPipelineServices(config, db, {
  handlers: Object.fromEntries(STAGES.map((s) => [s, stub])) as Record<StageName, StageHandler>,
  continueAfter: async () => null,
  jobsAtOnce,
  scheduler: { deferMs: Number(process.env.FAIR_DEFER_MS ?? 100) },
  log: (m, meta) => console.error(`[pipeline] ${m} ${JSON.stringify(meta ?? {})}`),
});
await pipeline.startWorker(config.worker.concurrency);
console.log(`fair worker ready ${process.pid}`);
const stop = async () => {
  await pipeline.stop({ graceMs: 1000 });
  await db.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
