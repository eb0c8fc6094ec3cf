// Queue adapters. Jobs carry ids only ({projectId, stage, run}); the queue id is `<projectId>-<stage>#<run>`, so
// pushing the same work twice is harmless, while a job queued again after its last run (a new run number) is never
// swallowed by that run still finishing. In-process (embedded default) or BullMQ (REDIS_URL).
import * as v from 'valibot';
import { MemoryQueue } from './memory-queue';
import { jobId } from './repository';
import { DeferJob, type Ticket } from './scheduler';
import { STAGES } from './stages';

/** A job's payload as it travels through the queue (Redis for BullMQ): parsed, never cast, by the worker. */
const JobPayload = v.object({
  projectId: v.pipe(v.string(), v.uuid('projectId is not a project id')),
  stage: v.picklist(STAGES, 'stage is not a pipeline stage'),
  /** How many times the job row has been queued (pipeline_jobs.queued_runs); absent in older payloads. */
  run: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
export type JobData = v.InferOutput<typeof JobPayload>;

/** The queue's id of a job: its row's id and the run it was queued for. */
export function queueId(job: JobData): string {
  return `${jobId(job.projectId, job.stage)}#${job.run ?? 0}`;
}

/** A payload that is not a job of this pipeline (another version's, or a corrupted one). */
export class InvalidJobError extends Error {
  override readonly name = 'InvalidJobError';
}

/** Parses a job payload from the queue; throws InvalidJobError naming what is wrong. */
export function parseJobData(raw: unknown): JobData {
  const r = v.safeParse(JobPayload, raw);
  if (r.success) return r.output;
  throw new InvalidJobError(`Invalid job payload ${JSON.stringify(raw)}: ${r.issues.map((i) => i.message).join('; ')}`);
}

export type JobProcessor = (job: JobData) => Promise<void>;

export interface JobQueue {
  readonly kind: 'memory' | 'bullmq';
  /**
   * Adds a job; a job with the same id that is waiting or running is not added again. The ticket (scheduler.ts)
   * places it fairly: its group and the group's limit (in-process), or its priority (BullMQ).
   */
  push(job: JobData, ticket?: Ticket): Promise<void>;
  /**
   * Starts processing with `processor` (a producer-only queue never calls it). A processor that throws DeferJob
   * hands the job back to the queue, which offers it again after the delay.
   */
  startProcessing(processor: JobProcessor, concurrency: number): Promise<void>;
  /** Stops taking jobs; waits for running ones unless `force`. */
  close(opts?: { force?: boolean }): Promise<void>;
  /** Jobs waiting or running in this process (in-process queue) or in Redis (BullMQ). */
  counts(): Promise<{ waiting: number; active: number }>;
  /** In-process queue only: whether it holds (waiting or running) any run of the job row `rowId`. */
  holds?(rowId: string): boolean;
}

/**
 * The embedded queue: in memory, N jobs at a time, no job id twice; fair across groups (Teamspaces) and never more
 * of a group's jobs at once than its ticket's limit.
 */
export class InProcessQueue implements JobQueue {
  readonly kind = 'memory' as const;
  private readonly q: MemoryQueue<JobData>;

  constructor(onError: (e: unknown, job: JobData) => void = () => {}) {
    this.q = new MemoryQueue(queueId, onError, (e) => (e instanceof DeferJob ? e.delayMs : null));
  }

  async push(job: JobData, ticket?: Ticket): Promise<void> {
    this.q.push(job, ticket ? { group: ticket.group, limit: ticket.limit } : {});
  }

  /** Running jobs per group (tests). */
  activeByGroup(): Record<string, number> {
    return this.q.activeByGroup();
  }

  async startProcessing(processor: JobProcessor, concurrency: number): Promise<void> {
    this.q.start(processor, concurrency);
  }

  /** Resolves when nothing is waiting or running (tests, benchmarks). */
  idle(): Promise<void> {
    return this.q.idle();
  }

  async counts() {
    return this.q.counts();
  }

  holds(rowId: string): boolean {
    return this.q.holds(`${rowId}#`);
  }

  close(opts: { force?: boolean } = {}): Promise<void> {
    return this.q.close(opts);
  }
}

export interface BullOptions {
  redisUrl: string;
  /** Key prefix in Redis (tests use a unique one). */
  prefix?: string;
  queueName?: string;
  /** Seconds after which a job whose worker died is handed to another worker. */
  stalledSec?: number;
}

/** BullMQ over Redis: any number of processes push, any number of workers (`npm run worker`) process. */
export class BullQueue implements JobQueue {
  readonly kind = 'bullmq' as const;
  private queue: import('bullmq').Queue | null = null;
  private worker: import('bullmq').Worker | null = null;
  private connections: Array<import('ioredis').Redis> = [];

  constructor(private readonly o: BullOptions, private readonly onError: (e: unknown, job: JobData | null) => void = () => {}) {}

  private async connection() {
    const { Redis } = await import('ioredis');
    const c = new Redis(this.o.redisUrl, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
    c.on('error', (e) => this.onError(e, null));
    this.connections.push(c);
    return c;
  }

  private get name() {
    return this.o.queueName ?? 'pipeline';
  }
  private get prefix() {
    return this.o.prefix ?? 'ds';
  }

  private async q() {
    if (!this.queue) {
      const { Queue } = await import('bullmq');
      this.queue = new Queue(this.name, { connection: await this.connection(), prefix: this.prefix });
      this.queue.on('error', (e) => this.onError(e, null));
    }
    return this.queue;
  }

  async push(job: JobData, ticket?: Ticket): Promise<void> {
    const q = await this.q();
    await q.add(job.stage, job, {
      jobId: queueId(job),
      // 1 is taken first (BullMQ's limit is 2^21): a space with few live jobs goes ahead of another's long batch.
      priority: ticket ? Math.min(Math.max(1, ticket.priority), 2_097_152) : undefined,
      attempts: 1,
      removeOnComplete: true,
      removeOnFail: true,
    });
  }

  async startProcessing(processor: JobProcessor, concurrency: number): Promise<void> {
    if (this.worker) return;
    const { Worker, DelayedError } = await import('bullmq');
    this.worker = new Worker(
      this.name,
      async (j, token) => {
        let job: JobData;
        try {
          job = parseJobData(j.data);
        } catch (e) {
          this.onError(e, null);
          throw e; // BullMQ fails the job (removeOnFail): nothing runs on a payload that is not ours
        }
        try {
          await processor(job);
        } catch (e) {
          if (!(e instanceof DeferJob)) throw e;
          // Its space is at its limit: back to the queue (delayed, then by its priority), not failed.
          await j.moveToDelayed(Date.now() + e.delayMs, token);
          throw new DelayedError();
        }
      },
      {
        connection: await this.connection(),
        prefix: this.prefix,
        concurrency: Math.max(1, concurrency),
        // A job whose worker died (lock not renewed) goes back to waiting after about stalledSec.
        lockDuration: (this.o.stalledSec ?? 30) * 1000,
        stalledInterval: (this.o.stalledSec ?? 30) * 1000,
        maxStalledCount: 2,
      },
    );
    this.worker.on('error', (e) => this.onError(e, null));
    await this.worker.waitUntilReady();
  }

  async counts() {
    const q = await this.q();
    const c = await q.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
    return { waiting: (c.waiting ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0), active: c.active ?? 0 };
  }

  /** Removes every key of this queue (tests). */
  async obliterate(): Promise<void> {
    const q = await this.q();
    await q.obliterate({ force: true });
  }

  async close(opts: { force?: boolean } = {}): Promise<void> {
    await this.worker?.close(opts.force ?? false);
    await this.queue?.close();
    this.worker = null;
    this.queue = null;
    for (const c of this.connections) {
      try {
        await c.quit();
      } catch {
        c.disconnect();
      }
    }
    this.connections = [];
  }
}
