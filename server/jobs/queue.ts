// Queue adapters. Jobs carry ids only ({subject, stage, run}); the queue id is `<subject>-<stage>#<run>`, so pushing the
// same work twice is harmless, while a job queued again after its last run (a new run number) is never swallowed by
// that run still finishing. In-process (embedded default) or BullMQ (REDIS_URL), whose payloads in Redis are written
// and parsed by the domain's codec (their field names are the domain's wire format).
import type { Config } from '../config';
import { MemoryQueue } from './memory-queue';
import { jobId } from './repository';
import { DeferJob, type Ticket } from './scheduler';

/** A job as the runtime knows it: one stage of one subject, and the run of its job row it was queued for. */
export interface JobData<S extends string = string> {
  subject: string;
  stage: S;
  /** How many times the job row has been queued (pipeline_jobs.queued_runs); absent in older payloads. */
  run?: number;
}

/** A job's payload as it travels through a shared queue (Redis for BullMQ): written, and parsed (never cast), by the domain. */
export interface JobCodec<S extends string> {
  encode(job: JobData<S>): Record<string, unknown>;
  /** Throws, naming what is wrong, for a payload that is not a job of this domain (another version's, or corrupted). */
  decode(raw: unknown): JobData<S>;
}

/** The queue's id of a job: its row's id and the run it was queued for. */
export function queueId(job: JobData): string {
  return `${jobId(job.subject, job.stage)}#${job.run ?? 0}`;
}

export type JobProcessor<S extends string = string> = (job: JobData<S>) => Promise<void>;

export interface JobQueue<S extends string = string> {
  readonly kind: 'memory' | 'bullmq';
  /**
   * Adds a job; a job with the same id that is waiting or running is not added again. The ticket (scheduler.ts)
   * places it fairly: its group and the group's limit (in-process), or its priority (BullMQ).
   */
  push(job: JobData<S>, ticket?: Ticket): Promise<void>;
  /**
   * Starts processing with `processor` (a producer-only queue never calls it). A processor that throws DeferJob
   * hands the job back to the queue, which offers it again after the delay.
   */
  startProcessing(processor: JobProcessor<S>, concurrency: number): Promise<void>;
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
export class InProcessQueue<S extends string = string> implements JobQueue<S> {
  readonly kind = 'memory' as const;
  private readonly q: MemoryQueue<JobData<S>>;

  constructor(onError: (e: unknown, job: JobData<S>) => void = () => {}) {
    this.q = new MemoryQueue(queueId, onError, (e) => (e instanceof DeferJob ? e.delayMs : null));
  }

  async push(job: JobData<S>, ticket?: Ticket): Promise<void> {
    this.q.push(job, ticket ? { group: ticket.group, limit: ticket.limit } : {});
  }

  /** Running jobs per group (tests). */
  activeByGroup(): Record<string, number> {
    return this.q.activeByGroup();
  }

  async startProcessing(processor: JobProcessor<S>, concurrency: number): Promise<void> {
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

export interface BullOptions<S extends string> {
  redisUrl: string;
  /** The payloads' format in Redis (the domain's). */
  codec: JobCodec<S>;
  /** Key prefix in Redis (tests use a unique one). */
  prefix?: string;
  queueName?: string;
  /** Seconds after which a job whose worker died is handed to another worker. */
  stalledSec?: number;
}

/** BullMQ over Redis: any number of processes push, any number of workers (`npm run worker`) process. */
export class BullQueue<S extends string = string> implements JobQueue<S> {
  readonly kind = 'bullmq' as const;
  private queue: import('bullmq').Queue | null = null;
  private worker: import('bullmq').Worker | null = null;
  private connections: Array<import('ioredis').Redis> = [];

  constructor(private readonly o: BullOptions<S>, private readonly onError: (e: unknown, job: JobData<S> | null) => void = () => {}) {}

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

  async push(job: JobData<S>, ticket?: Ticket): Promise<void> {
    const q = await this.q();
    await q.add(job.stage, this.o.codec.encode(job), {
      jobId: queueId(job),
      // 1 is taken first (BullMQ's limit is 2^21): a space with few live jobs goes ahead of another's long batch.
      priority: ticket ? Math.min(Math.max(1, ticket.priority), 2_097_152) : undefined,
      attempts: 1,
      removeOnComplete: true,
      removeOnFail: true,
    });
  }

  async startProcessing(processor: JobProcessor<S>, concurrency: number): Promise<void> {
    if (this.worker) return;
    const { Worker, DelayedError } = await import('bullmq');
    this.worker = new Worker(
      this.name,
      async (j, token) => {
        let job: JobData<S>;
        try {
          job = this.o.codec.decode(j.data);
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

/** The queue of `config`: BullMQ over REDIS_URL, else in this process's memory. */
export function createQueue<S extends string>(
  config: Config,
  codec: JobCodec<S>,
  o: { prefix?: string; log?: (m: string, meta?: Record<string, unknown>) => void } = {},
): JobQueue<S> {
  const log = o.log ?? ((m, meta) => console.error(`[queue] ${m}`, meta ?? ''));
  if (config.redisUrl) {
    return new BullQueue({ redisUrl: config.redisUrl, codec, prefix: o.prefix ?? config.queuePrefix, stalledSec: config.worker.staleSec }, (e, job) =>
      log('queue error', { error: e instanceof Error ? e.message : String(e), job }),
    );
  }
  return new InProcessQueue<S>((e, job) => log('job crashed', { error: e instanceof Error ? e.stack : String(e), job }));
}
