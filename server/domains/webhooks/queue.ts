// The delivery queue of webhooks: jobs carry a delivery id only. In-process (embedded default) or BullMQ
// (REDIS_URL, queue "webhooks"), like the pipeline's queue (server/jobs/queue.ts). A job id is
// `<deliveryId>-<attempt>`, so pushing the same attempt twice is harmless.
import * as v from 'valibot';
import { MemoryQueue } from '../../jobs/memory-queue';

const Payload = v.object({ deliveryId: v.pipe(v.string(), v.uuid()), attempt: v.pipe(v.number(), v.integer(), v.minValue(0)) });
export type DeliveryJobData = v.InferOutput<typeof Payload>;
export type DeliveryProcessor = (job: DeliveryJobData) => Promise<void>;

export interface DeliveryQueue {
  push(job: DeliveryJobData): Promise<void>;
  start(processor: DeliveryProcessor, concurrency: number): Promise<void>;
  close(): Promise<void>;
}

const idOf = (j: DeliveryJobData) => `${j.deliveryId}-${j.attempt}`;

export class InProcessDeliveryQueue implements DeliveryQueue {
  private readonly q: MemoryQueue<DeliveryJobData>;

  constructor(onError: (e: unknown) => void = () => {}) {
    this.q = new MemoryQueue(idOf, (e) => onError(e));
  }

  async push(job: DeliveryJobData): Promise<void> {
    this.q.push(job);
  }

  async start(processor: DeliveryProcessor, concurrency: number): Promise<void> {
    this.q.start(processor, concurrency);
  }

  close(): Promise<void> {
    return this.q.close();
  }
}

export class BullDeliveryQueue implements DeliveryQueue {
  private queue: import('bullmq').Queue | null = null;
  private worker: import('bullmq').Worker | null = null;
  private readonly connections: Array<import('ioredis').Redis> = [];

  constructor(private readonly o: { redisUrl: string; prefix: string }, private readonly onError: (e: unknown) => void = () => {}) {}

  private async connection() {
    const { Redis } = await import('ioredis');
    const c = new Redis(this.o.redisUrl, { maxRetriesPerRequest: null });
    c.on('error', (e) => this.onError(e));
    this.connections.push(c);
    return c;
  }

  async push(job: DeliveryJobData): Promise<void> {
    if (!this.queue) {
      const { Queue } = await import('bullmq');
      this.queue = new Queue('webhooks', { connection: await this.connection(), prefix: this.o.prefix });
      this.queue.on('error', (e) => this.onError(e));
    }
    await this.queue.add('deliver', job, { jobId: idOf(job), attempts: 1, removeOnComplete: true, removeOnFail: true });
  }

  async start(processor: DeliveryProcessor, concurrency: number): Promise<void> {
    if (this.worker) return;
    const { Worker } = await import('bullmq');
    this.worker = new Worker('webhooks', async (j) => processor(v.parse(Payload, j.data)), {
      connection: await this.connection(),
      prefix: this.o.prefix,
      concurrency: Math.max(1, concurrency),
    });
    this.worker.on('error', (e) => this.onError(e));
    await this.worker.waitUntilReady();
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue?.close();
    for (const c of this.connections.splice(0)) await c.quit().catch(() => c.disconnect());
  }
}
