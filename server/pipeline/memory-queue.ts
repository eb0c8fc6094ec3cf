// The in-memory job queue of the embedded default, for any payload: a FIFO, N jobs at a time, no job id twice
// (a job whose id is waiting or running is not added again). The pipeline's InProcessQueue and the webhook
// deliveries' queue both run on it.
export class MemoryQueue<T> {
  private waiting: T[] = [];
  private readonly ids = new Set<string>();
  private active = 0;
  private processor: ((job: T) => Promise<void>) | null = null;
  private concurrency = 1;
  private closed = false;
  private readonly running = new Set<Promise<void>>();
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly idOf: (job: T) => string,
    private readonly onError: (e: unknown, job: T) => void = () => {},
  ) {}

  push(job: T): void {
    if (this.closed) return;
    const id = this.idOf(job);
    if (this.ids.has(id)) return;
    this.ids.add(id);
    this.waiting.push(job);
    this.pump();
  }

  start(processor: (job: T) => Promise<void>, concurrency: number): void {
    this.processor = processor;
    this.concurrency = Math.max(1, concurrency);
    this.pump();
  }

  private pump(): void {
    while (this.processor && !this.closed && this.active < this.concurrency && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      const processor = this.processor;
      this.active++;
      const run = async (): Promise<void> => {
        try {
          await processor(job);
        } catch (e) {
          this.onError(e, job);
        } finally {
          this.active--;
          this.ids.delete(this.idOf(job));
          this.running.delete(p);
          if (this.active === 0 && this.waiting.length === 0) {
            const w = this.idleWaiters;
            this.idleWaiters = [];
            w.forEach((f) => f());
          }
          this.pump();
        }
      };
      const p: Promise<void> = Promise.resolve().then(run);
      this.running.add(p);
    }
  }

  /** Resolves when nothing is waiting or running. */
  idle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Whether a job whose id starts with `prefix` is waiting or running. */
  holds(prefix: string): boolean {
    for (const id of this.ids) if (id.startsWith(prefix)) return true;
    return false;
  }

  counts(): { waiting: number; active: number } {
    return { waiting: this.waiting.length, active: this.active };
  }

  /** Takes no more jobs and drops the waiting ones; waits for running ones unless `force`. */
  async close(opts: { force?: boolean } = {}): Promise<void> {
    this.closed = true;
    for (const j of this.waiting) this.ids.delete(this.idOf(j));
    this.waiting = [];
    if (!opts.force) await Promise.allSettled([...this.running]);
  }
}
