// The pipeline runtime over BullMQ and the local Redis (127.0.0.1:6379), a unique key prefix per test
// file: producer and workers in separate Pipeline instances (as the server and `npm run worker` are),
// job ids `<projectId>-<stage>`, double enqueue, several workers, a worker killed mid-stage.
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullQueue } from '../../../server/jobs/queue';
import { PROJECT_JOBS } from '../../../server/domains/projects/pipeline/payload';
import { createPipelineServices } from '../../../server/domains/projects/pipeline/index';
import type { Pipeline } from '../../../server/domains/projects/pipeline/registry';
import { setStatus, type StageName } from '../../../server/domains/projects/pipeline/stages';
import { createHarness, type Harness } from '../../server/harness';
import { jobRows, projectRow, projectState, recorder, recordingHandlers, untilAborted, waitFor, type Recorder } from './queue-helpers';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-${randomBytes(5).toString('hex')}`;
let h: Harness;
const pipelines: Pipeline[] = [];

/** The queue of the dead-worker test: its own stalled-job check (see make). */
const CRASH_QUEUE = 'pipeline-crash';

function make(
  rec: Recorder,
  o: { owner: string; override?: NonNullable<Parameters<typeof recordingHandlers>[2]>['override']; stalledSec?: number; staleSec?: number; queueName?: string },
) {
  // Short stall and stale limits only where a dead worker is the subject: elsewhere a busy event loop on a loaded
  // machine (a late lock renewal or heartbeat) must not hand a live stage to another worker and run it twice.
  // BullMQ runs one stalled-job check per queue per stalledInterval (a key with that lifetime), so the test with a
  // short interval uses a queue of its own: a long interval left by earlier workers would hold its check back.
  const queue = new BullQueue({ redisUrl: REDIS_URL, codec: PROJECT_JOBS, prefix, queueName: o.queueName, stalledSec: o.stalledSec ?? 30 });
  const { pipeline } = createPipelineServices(h.config, h.deps.db, {
    storage: h.deps.storage,
    engines: h.deps.engines,
    queue,
    handlers: recordingHandlers(h, rec, { override: o.override }),
    owner: o.owner,
    heartbeatMs: 200,
    staleSec: o.staleSec ?? 30,
    sweepEveryMs: 500,
    log: () => {},
  });
  pipelines.push(pipeline);
  return pipeline;
}

beforeAll(async () => {
  h = await createHarness();
  await h.deps.pipeline.stop({ force: true });
});
afterAll(async () => {
  for (const p of pipelines) await p.stop({ force: true }).catch(() => {});
  for (const queueName of [undefined, CRASH_QUEUE]) {
    const q = new BullQueue({ redisUrl: REDIS_URL, codec: PROJECT_JOBS, prefix, queueName });
    await q.obliterate().catch(() => {});
    await q.close();
  }
  // No key of this test stays in Redis.
  const r = new Redis(REDIS_URL);
  const left = await r.keys(`${prefix}:*`);
  await r.quit();
  expect(left).toEqual([]);
  await h?.close();
});

const ANALYSIS: StageName[] = ['ingest', 'separate_background', 'transcribe_segments', 'transcription', 'determine_speakers', 'voice_suggest', 'translation'];

describe('BullMQ queue', () => {
  it('a producer enqueues, a separate worker runs the whole chain; job ids are <projectId>-<stage>#<run>', async () => {
    const rec = recorder();
    const seenIds: Array<string | null> = [];
    const inspect = new Queue('pipeline', { connection: new Redis(REDIS_URL, { maxRetriesPerRequest: null }), prefix });
    const producer = make(recorder(), { owner: 'server' });
    const worker = make(rec, {
      owner: 'worker-1',
      override: {
        ingest: async (ctx) => {
          const job = await inspect.getJob(`${ctx.projectId}-ingest#0`);
          seenIds.push(job ? `${job.id}|${JSON.stringify(job.data)}` : null);
        },
      },
    });
    await worker.startWorker(1);
    const id = await projectRow(h);
    await producer.enqueue(id, 'ingest');
    await waitFor(() => projectState(h, id), (s) => s?.status === 'translation_done', 30_000, 'translation_done');
    expect(rec.calls.map((c) => c.stage)).toEqual(ANALYSIS);
    expect(seenIds).toEqual([`${id}-ingest#0|${JSON.stringify({ projectId: id, stage: 'ingest', run: 0 })}`]);
    expect((await jobRows(h, id)).every((j) => j.state === 'done')).toBe(true);
    await inspect.close();
    await worker.stop();
    await producer.stop();
  });

  it('enqueueing the same stage twice is harmless', async () => {
    const producer = make(recorder(), { owner: 'server-2' });
    const queue = producer.queue as BullQueue<StageName>;
    const id = await projectRow(h, 'translation_done');
    await setStatus(h.deps.db, id, 'voiceover_started');
    expect(await producer.enqueue(id, 'voiceover')).toBe(true);
    expect(await producer.enqueue(id, 'voiceover')).toBe(false);
    // Even pushing past the database check: BullMQ keeps one job per id.
    await queue.push({ subject: id, stage: 'voiceover' });
    await queue.push({ subject: id, stage: 'voiceover' });
    expect(await queue.counts()).toEqual({ waiting: 1, active: 0 });
    const rec = recorder();
    const worker = make(rec, { owner: 'worker-2' });
    await worker.startWorker(1);
    await waitFor(() => projectState(h, id), (s) => s?.status === 'merging_done', 30_000, 'merging_done');
    expect(rec.calls.map((c) => c.stage)).toEqual(['voiceover', 'merging']);
    await worker.stop();
    await producer.stop();
  });

  it('several workers share the queue; every stage runs once', async () => {
    const rec = recorder();
    const w1 = make(rec, { owner: 'w1' });
    const w2 = make(rec, { owner: 'w2' });
    await w1.startWorker(1);
    await w2.startWorker(1);
    const ids = [await projectRow(h), await projectRow(h), await projectRow(h)];
    for (const id of ids) await w1.enqueue(id, 'ingest');
    for (const id of ids) await waitFor(() => projectState(h, id), (s) => s?.status === 'translation_done', 30_000, 'translation_done');
    for (const id of ids) expect(rec.calls.filter((c) => c.projectId === id).map((c) => c.stage)).toEqual(ANALYSIS);
    await w1.stop();
    await w2.stop();
  });

  it('a worker killed mid-stage: another worker resumes the stage', async () => {
    const rec = recorder();
    let first = true;
    const override = {
      determine_speakers: async (ctx: { signal: AbortSignal }) => {
        if (first) {
          first = false;
          await untilAborted(ctx.signal);
        }
      },
    };
    // The dying worker's lock lapses 3 s after it stops renewing it (renewed every 1.5 s while it lives).
    const a = make(rec, { owner: 'dying', override, stalledSec: 3, queueName: CRASH_QUEUE });
    await a.startWorker(1);
    const id = await projectRow(h);
    await a.enqueue(id, 'ingest');
    await waitFor(() => projectState(h, id), (s) => s?.status === 'determine_speakers_started', 30_000, 'determine_speakers_started');
    await a.crash();
    const b = make(rec, { owner: 'survivor', override, stalledSec: 3, staleSec: 1, queueName: CRASH_QUEUE });
    await b.startWorker(1);
    await waitFor(() => projectState(h, id), (s) => s?.status === 'translation_done', 30_000, 'resumed to translation_done');
    expect((await jobRows(h, id)).find((j) => j.stage === 'determine_speakers')).toMatchObject({ state: 'done', attempts: 2 });
    expect(rec.calls.filter((c) => c.stage === 'determine_speakers')).toHaveLength(2);
    await b.stop();
  });
});
